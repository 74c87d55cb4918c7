import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { UserOutput } from '../src/modules/users/schemas';
import { queueDailyDigests } from '../src/modules/mail/digest';
import { useServer, useUsers } from './helpers/cast';
import { digestTime, sevenAmAfter } from './helpers/digest-time';
import { mailedToken, seedWorkshopWith, type TestUser } from './helpers/factories';

/*
 * Mails in their reader's language (docs/i18n.md#which-language): a person's `locale`, else the
 * language of the workshop a mail is about, else English. Read from the outbox, as mailed.
 */

const t = useServer();
const [fay] = useUsers(t, 'Fay');

interface Mail {
  subject: string;
  text: string;
  html: string;
}

const mailsTo = (email: string) =>
  t.rows<Mail>(sql`SELECT subject, text, html FROM outbox WHERE "to" = ${email} ORDER BY rowid`);

/** Signs up through the API with `locale` (none: the request names no language either). */
async function signUp(name: string, extra: { locale?: string; time_zone?: string } = {}): Promise<TestUser> {
  const email = `${name
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase()}-${randomBytes(4).toString('hex')}@example.test`;
  const res = await t.request<{ token: string; user: UserOutput }>('POST', '/v1/auth/signup', {
    body: { email, password: 'correct horse battery', name, ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.user.locale).toBe(extra.locale ?? 'en');
  return { token: res.body.token, id: res.body.user.id, email, name };
}

/** The link's token of `mail`'s text, proving the text kept its link whole. */
const tokenIn = (mail: Mail, page: string) => new RegExp(`/${page}\\?token=(\\S+)`).exec(mail.text)?.[1];

describe('mails in their reader’s language', () => {
  it('a French account’s confirmation and reset are in French, and their links still work', async () => {
    const claire = await signUp('Claire', { locale: 'fr' });
    const [confirmation] = await mailsTo(claire.email);
    expect(confirmation!.subject).toBe('Confirmez votre adresse e-mail');
    expect(confirmation!.text).toContain('Bonjour Claire,');
    expect(confirmation!.text).toContain('Merci de confirmer votre adresse e-mail.');
    expect(confirmation!.text).toContain('Confirmer mon adresse\u00a0: ');
    expect(confirmation!.text).not.toContain('Hello');
    expect(confirmation!.html).toContain('lang="fr" dir="ltr"');
    const token = await mailedToken(t, claire.email, 'Confirmez votre adresse e-mail');
    expect(tokenIn(confirmation!, 'confirm')).toBe(token);
    const confirmed = await t.request('POST', '/v1/auth/confirm', { token: claire.token, body: { token } });
    expect(confirmed.status).toBe(204);

    expect((await t.request('POST', '/v1/auth/password_reset', { body: { email: claire.email } })).status).toBe(204);
    const reset = (await mailsTo(claire.email)).at(-1)!;
    expect(reset.subject).toBe('Réinitialisez votre mot de passe');
    expect(reset.text).toContain('Quelqu’un a demandé à réinitialiser le mot de passe de votre compte.');
    expect(reset.text).toContain('Le lien est valable 30 minutes');
    expect(reset.html).toContain('Choisir un mot de passe');
    const resetToken = await mailedToken(t, claire.email, 'Réinitialisez votre mot de passe', 'reset');
    const done = await t.request('POST', '/v1/auth/password_reset/confirm', {
      body: { token: resetToken, password: 'a brand new password' },
    });
    expect(done.status).toBe(200);
  });

  const confirmations = [
    [
      'an Arabic account’s',
      'Amal',
      'ar',
      'أكّد عنوان بريدك الإلكتروني',
      'مرحبًا Amal،',
      'يُرجى تأكيد عنوان بريدك الإلكتروني.',
      'lang="ar" dir="rtl"',
    ],
    [
      'a person who never named a language:',
      'Plain',
      undefined,
      'Confirm your e-mail address',
      'Hello Plain,',
      'Please confirm your e-mail address.',
      'lang="en" dir="ltr"',
    ],
  ] as const;
  for (const [whose, name, locale, subject, greeting, sentence, direction] of confirmations)
    it(`${whose} confirmation mail is in their language, its HTML saying which and its direction, and its link confirms`, async () => {
      const person = await signUp(name, locale ? { locale } : {});
      const [mail] = await mailsTo(person.email);
      expect(mail!.subject).toBe(subject);
      expect(mail!.text).toContain(greeting);
      expect(mail!.text).toContain(sentence);
      expect(mail!.html).toContain(direction);
      const token = tokenIn(mail!, 'confirm')!;
      expect((await t.request('POST', '/v1/auth/confirm', { token: person.token, body: { token } })).status).toBe(204);
    });

  it('an invitation to an address without an account is in the workshop’s language; with one, in its locale', async () => {
    const w = await seedWorkshopWith(t, fay, [], { title: 'Rückblick', language: 'de' });
    const stranger = `fremd-${randomBytes(4).toString('hex')}@example.test`;
    const spanish = await signUp('Sofía', { locale: 'es' });
    const invited = await t.request('POST', `/v1/workshops/${w.id}/invitations`, {
      token: fay.token,
      body: { emails: `${stranger},${spanish.email}`, content: 'Bis Freitag!', role: 'facilitator' },
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);

    const [german] = await mailsTo(stranger);
    expect(german!.subject).toBe('Fay lädt Sie ein, „Rückblick“ mitzumoderieren');
    expect(german!.text).toContain('Guten Tag,');
    expect(german!.text).toContain('Fay lädt Sie ein, den Workshop „Rückblick“ mitzumoderieren.');
    expect(german!.text).toContain('Bis Freitag!');
    expect(german!.html).toContain('lang="de" dir="ltr"');
    const link = /(https?:\/\/\S+\/invitations\/(\S+))/.exec(german!.text);
    expect(link?.[1]?.startsWith(`${t.url}/invitations/`)).toBe(true);
    const preview = await t.request<{ workshop_title: string }>(
      'GET',
      `/v1/invitations/${encodeURIComponent(link![2]!)}`,
    );
    expect(preview.status).toBe(200);
    expect(preview.body.workshop_title).toBe('Rückblick');

    const toSofia = (await mailsTo(spanish.email)).at(-1)!;
    expect(toSofia.subject).toBe('Fay le invita a cofacilitar «Rückblick»');
  });

  it('the digest is in its reader’s language, its day on their clock, its counts in their plurals', async () => {
    const zone = 'Europe/Paris';
    const lea = await signUp('Léa', { locale: 'fr', time_zone: zone });
    const w = await seedWorkshopWith(t, lea, [], { title: 'Rétro' });
    const card = await t.request<{ id: string }>('POST', `/v1/workshops/${w.id}/cards`, {
      token: lea.token,
      body: { type: 'cluster', title: 'Idée' },
    });
    expect(card.status).toBe(201);

    await queueDailyDigests(t.deps, digestTime(zone));
    const digest = (await mailsTo(lea.email)).find((mail) => mail.subject.includes('Rétro'));
    expect(digest?.subject).toBe('Ce qui s’est passé hier dans «\u00a0Rétro\u00a0»');
    expect(digest!.text).toContain('- 1 nouvelle carte\n- 0 vote\n- 0 commentaire');
    const day = new Intl.DateTimeFormat('fr', { timeZone: zone, weekday: 'long', day: 'numeric', month: 'long' });
    // The day up to this morning's 07:00 in Paris, as a French reader says it (`7:00` or `07:00`, by the ICU).
    const until = `au ${day.format(sevenAmAfter(zone))} à 0?7:00, «\u00a0Rétro\u00a0» a reçu\u00a0:`;
    expect(digest!.text).toMatch(new RegExp(`^Du .+ à 0?7:00 ${until}$`, 'm'));
    expect(digest!.text).toContain('Ouvrir l’atelier\u00a0: ');
  });
});
