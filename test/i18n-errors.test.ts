import { describe, expect, it } from 'vitest';
import { t as say } from '../src/i18n/messages';
import { useCast } from './helpers/cast';
import { createUser, seedCard, seedCardScene } from './helpers/factories';
import { askedInEachLanguage } from './helpers/languages';

/*
 * The refusals the services raise follow the request's Accept-Language; their `code` never
 * changes, and without the header they stay the English they always were (docs/i18n.md). The real
 * server on a real port, asked as any client would be.
 */

const cast = useCast();
const { facilitator, participant } = cast;
const t = cast.t;

describe('refusals in the language of the request', () => {
  it('says a card that does not exist is not found, in French, German and Arabic', async () => {
    const { workshop } = await seedCardScene(cast, 'votes');
    const errors = await askedInEachLanguage(
      (options) =>
        t.request('GET', `/v1/workshops/${workshop.id}/cards/no-such-card`, { token: facilitator.token, ...options }),
      404,
      'not_found',
    );
    expect(errors.get('')!.message).toBe('Card not found.');
    expect(errors.get('fr')!.message).toBe('Carte introuvable.');
    expect(errors.get('de')!.message).toBe('Karte nicht gefunden.');
    expect(errors.get('ar')!.message).toBe(say('ar', 'error.missing.card'));
  });

  it("says a vote over the card's budget is refused, counting the points in each language", async () => {
    const { workshop, card: cluster } = await seedCardScene(cast, 'votes', { voteMaxPositive: 3 });
    const idea = await seedCard(t, workshop.id, participant, { parentId: cluster.id });
    const path = `/v1/workshops/${workshop.id}/cards/${idea.id}/votes`;
    expect((await t.request('POST', path, { token: participant.token, body: { value: 3 } })).status).toBe(201);
    const errors = await askedInEachLanguage(
      (options) => t.request('POST', path, { token: participant.token, body: { value: 1 }, ...options }),
      409,
      'vote_limit_reached',
    );
    expect(errors.get('')!.message).toBe('This vote would put more than 3 positive points of its voter on this card.');
    expect(errors.get('fr')!.message).toBe(
      'Ce vote dépasserait la limite de 3 points positifs par votant sur cette carte.',
    );
    expect(errors.get('de')!.message).toBe(
      'Diese Stimme überschreitet die Grenze von 3 Pluspunkten pro Person auf dieser Karte.',
    );
    // Arabic's plural for 3 is its own ("few"), not the form for 11 or 100.
    expect(errors.get('ar')!.message).toBe(say('ar', 'error.votes.over_card_budget', { max: 3, side: 'positive' }));
    expect(errors.get('ar')!.message).toContain('3 نقاط إيجابية');
  });

  it('says no workshop has the access code someone typed', async () => {
    const joiner = await createUser(t, 'Joiner');
    const errors = await askedInEachLanguage(
      (options) =>
        t.request('POST', '/v1/workshops/join', {
          token: joiner.token,
          body: { access_code: '987-654-321' },
          ...options,
        }),
      404,
      'not_found',
    );
    expect(errors.get('')!.message).toBe('Workshop with this access code not found.');
    expect(errors.get('fr')!.message).toBe('Aucun atelier n’a ce code d’accès.');
    expect(errors.get('de')!.message).toBe('Kein Workshop hat diesen Zugangscode.');
    expect(errors.get('ar')!.message).toBe(say('ar', 'error.missing.workshop_with_code'));
  });

  it('says an e-mail address already has an account when someone signs up with it', async () => {
    const holder = await createUser(t, 'Holder');
    const errors = await askedInEachLanguage(
      (options) =>
        t.request('POST', '/v1/auth/signup', {
          body: { email: holder.email, password: 'correct horse battery', name: 'Second' },
          ...options,
        }),
      409,
      'email_taken',
    );
    expect(errors.get('')!.message).toBe('An account with this e-mail already exists.');
    expect(errors.get('fr')!.message).toBe('Un compte existe déjà avec cette adresse e-mail.');
    expect(errors.get('de')!.message).toBe('Es gibt bereits ein Konto mit dieser E-Mail-Adresse.');
    expect(errors.get('ar')!.message).toBe(say('ar', 'error.auth.email_taken'));
  });

  it('says why a field was refused in its detail too, at the same path', async () => {
    const { workshop, card: cluster } = await seedCardScene(cast, 'votes');
    const idea = await seedCard(t, workshop.id, facilitator, { parentId: cluster.id });
    const errors = await askedInEachLanguage(
      (options) =>
        t.request('PUT', `/v1/workshops/${workshop.id}/cards/${idea.id}`, {
          token: facilitator.token,
          body: { color: 'red' },
          ...options,
        }),
      400,
      'invalid_request',
    );
    expect(errors.get('')).toEqual({
      code: 'invalid_request',
      message: 'Only clusters have a color.',
      details: [{ path: 'color', message: 'Only clusters have a color.' }],
    });
    const expected = { fr: 'Seuls les regroupements ont une couleur.', de: 'Nur Cluster haben eine Farbe.' };
    for (const [lang, text] of Object.entries(expected))
      expect(errors.get(lang)).toEqual({
        code: 'invalid_request',
        message: text,
        details: [{ path: 'color', message: text }],
      });
    expect(errors.get('ar')!.details).toEqual([{ path: 'color', message: say('ar', 'error.cards.color_on_idea') }]);
  });
});
