import { describe, expect, it } from 'vitest';
import { createClient } from '../client-sdk/src/index';
import type { WorkshopOutput } from '../src/domain/workshops';
import type { GuestSessionOutput } from '../src/modules/workshops/schemas';
import type { UploadOutput } from '../src/modules/uploads/schemas';
import type { UserOutput } from '../src/modules/users/schemas';
import { canonicalTimeZone, negotiateLanguage } from '../src/domain/languages';
import { useServer } from './helpers/cast';
import { createUser, errorOf, eventLog, expectError, multipart, type TestUser } from './helpers/factories';
import { nativeExport, nativeOf } from './helpers/native-files';
import type { TestServer } from './helpers/server';

/*
 * Languages and time zones (docs/api.md#languages-and-time-zones): a person's `locale` and
 * `time_zone`, chosen or taken from the browser at signup; a workshop's `language`, the
 * creator's unless chosen, carried by copies and native files; the SDK's `Accept-Language`.
 */

const t = useServer({ importsPerMinute: 1_000 });

type Session = { token: string; user: UserOutput };

let signups = 0;
async function signUp(server: TestServer, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const email = `lang-${process.pid}-${++signups}@example.test`;
  const res = await server.request<Session>('POST', '/v1/auth/signup', {
    body: { email, password: 'correct horse battery', name: `Person ${signups}`, ...body },
    headers,
  });
  return { ...res, user: { token: res.body.token, id: res.body.user?.id, email, name: '' } as TestUser };
}

const me = async (user: Pick<TestUser, 'token'>) =>
  (await t.request<UserOutput>('GET', '/v1/user/me', { token: user.token })).body;

const putMe = (user: Pick<TestUser, 'token'>, body: unknown) =>
  t.request('PUT', '/v1/user/me', { token: user.token, body });

const createWorkshop = (user: TestUser, body: Record<string, unknown>) =>
  t.request<WorkshopOutput>('POST', '/v1/workshops', { token: user.token, body });

describe('negotiating a language from Accept-Language', () => {
  it('takes the first supported language by quality, dropping subtags', () => {
    expect(negotiateLanguage('fr-CA')).toBe('fr');
    expect(negotiateLanguage('fr-CA,fr;q=0.9,en;q=0.8')).toBe('fr');
    expect(negotiateLanguage('pt-BR, de;q=0.3, es;q=0.8')).toBe('es');
    expect(negotiateLanguage('AR-eg')).toBe('ar');
    expect(negotiateLanguage('zh-Hant-TW, de-x-private;q=0.5')).toBe('de');
    expect(negotiateLanguage('en;q=0, fr;q=0.1')).toBe('fr');
    expect(negotiateLanguage(' es ; q = 0.5 , de ; q=0.4')).toBe('es');
  });

  it('answers nothing for no header, a wildcard, unknown languages or nonsense', () => {
    for (const header of [undefined, '', '*', 'pt-BR, ja', 'fr;q=0', 'fr;q=2', '12-34, ;;, en_US', 'x'.repeat(200)])
      expect(negotiateLanguage(header), String(header)).toBeUndefined();
  });

  it('knows IANA time zones under their canonical names, and no offsets', () => {
    expect(canonicalTimeZone('asia/tokyo')).toBe('Asia/Tokyo');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('America/New_York')).toBe('America/New_York');
    for (const zone of ['Mars/Olympus', '+05:00', '-0300', '', 'Europe/../UTC', 'a'.repeat(80)])
      expect(canonicalTimeZone(zone), zone).toBeUndefined();
  });
});

describe('a person’s locale and time zone', () => {
  it('come from the browser at signup when the body names none: fr-CA speaks French, anything else English', async () => {
    const canadian = await signUp(t, {}, { 'accept-language': 'fr-CA,fr;q=0.9,en;q=0.5' });
    expect(canadian.status).toBe(201);
    expect(canadian.body.user).toMatchObject({ locale: 'fr', time_zone: 'UTC' });
    expect(await me(canadian.user)).toMatchObject({ locale: 'fr', time_zone: 'UTC' });

    expect((await signUp(t, {}, { 'accept-language': 'pt-BR, ja;q=0.8' })).body.user.locale).toBe('en');
    expect((await signUp(t)).body.user.locale).toBe('en');
  });

  it('are the body’s at signup when it names them, the zone stored canonical', async () => {
    const chosen = await signUp(t, { locale: 'ar', time_zone: 'asia/tokyo' }, { 'accept-language': 'de' });
    expect(chosen.status).toBe(201);
    expect(chosen.body.user).toMatchObject({ locale: 'ar', time_zone: 'Asia/Tokyo' });
  });

  it('refuse a signup with a language or zone the service does not know, creating nothing', async () => {
    for (const [member, value] of [
      ['locale', 'pt'],
      ['locale', 'FR'],
      ['locale', 7],
      ['time_zone', 'Mars/Olympus'],
      ['time_zone', '+05:00'],
    ] as const) {
      const email = `refused-${member}-${signups++}@example.test`;
      const res = await t.request('POST', '/v1/auth/signup', {
        body: { email, password: 'correct horse battery', name: 'Nobody', [member]: value },
      });
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path).toBe(member);
      const login = await t.request('POST', '/v1/auth/login', { body: { email, password: 'correct horse battery' } });
      expectError(login, 401, 'invalid_credentials');
    }
  });

  it('are changed with PUT /v1/user/me, together or alone, the name kept', async () => {
    const ada = await createUser(t, 'Ada');
    expect(await me(ada)).toMatchObject({ name: 'Ada', locale: 'en', time_zone: 'UTC' });
    expect((await putMe(ada, { locale: 'de', time_zone: 'europe/berlin' })).status).toBe(204);
    expect(await me(ada)).toMatchObject({ name: 'Ada', locale: 'de', time_zone: 'Europe/Berlin' });
    expect((await putMe(ada, { time_zone: 'America/New_York' })).status).toBe(204);
    expect((await putMe(ada, { display_name: 'Ada L.', locale: 'es' })).status).toBe(204);
    expect(await me(ada)).toMatchObject({ name: 'Ada L.', locale: 'es', time_zone: 'America/New_York' });
  });

  it('refuse unknown values with a 400 naming the member, and change nothing, not even the valid members', async () => {
    const bo = await createUser(t, 'Bo');
    await putMe(bo, { locale: 'fr', time_zone: 'Europe/Paris' });
    const before = await me(bo);
    for (const body of [
      { locale: 'pt' },
      { locale: '' },
      { locale: null },
      { locale: 'fr-FR' },
      { time_zone: 'Nowhere/Land' },
      { time_zone: 'GMT+5' },
      { time_zone: 3 },
      { display_name: 'Bo B.', locale: 'de', time_zone: 'Not/A_Zone' },
      { display_name: 'Bo B.', locale: 'xx', time_zone: 'Asia/Tokyo' },
    ]) {
      const res = await putMe(bo, body);
      expectError(res, 400, 'invalid_request');
      const path = errorOf(res).details?.[0]?.path;
      expect(path === 'locale' || path === 'time_zone', `${JSON.stringify(body)} → ${path}`).toBe(true);
    }
    expect(await me(bo)).toEqual(before);
    expectError(await t.request('PUT', '/v1/user/me', { body: { locale: 'de' } }), 401, 'unauthenticated');
  });
});

describe('guests', () => {
  async function guestJoin(
    host: TestUser,
    workshopId: string,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) {
    const { access_code } = (
      await t.request<{ access_code: string }>('GET', `/v1/workshops/${workshopId}/access_code`, { token: host.token })
    ).body;
    const res = await t.request<GuestSessionOutput>('POST', '/v1/workshops/join/guest', {
      body: { access_code, name: 'Gina', ...body },
      headers,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  it('speak the page’s choice, else their browser’s language, else the workshop’s, and may change it', async () => {
    const host = await createUser(t, 'Host');
    const workshop = (await createWorkshop(host, { title: 'Atelier', language: 'fr' })).body;

    const chosen = await guestJoin(
      host,
      workshop.id,
      { locale: 'ar', time_zone: 'Africa/Cairo' },
      {
        'accept-language': 'de',
      },
    );
    expect(chosen.user).toMatchObject({ guest: true, locale: 'ar', time_zone: 'Africa/Cairo' });
    expect((await guestJoin(host, workshop.id, {}, { 'accept-language': 'es-MX, en;q=0.5' })).user.locale).toBe('es');
    const unmatched = await guestJoin(host, workshop.id, {}, { 'accept-language': 'ja' });
    expect(unmatched.user).toMatchObject({ locale: 'fr', time_zone: 'UTC' });

    expect((await putMe(unmatched, { locale: 'de', time_zone: 'Europe/Vienna' })).status).toBe(204);
    expect(await me(unmatched)).toMatchObject({ locale: 'de', time_zone: 'Europe/Vienna' });
    expectError(await putMe(unmatched, { locale: 'klingon' }), 400, 'invalid_request');

    // Signing up keeps what the guest chose, unless the signup says otherwise.
    const upgraded = await t.request<Session>('POST', '/v1/auth/signup', {
      token: unmatched.token,
      body: { email: `gina-${signups++}@example.test`, password: 'correct horse battery', name: 'Gina' },
      headers: { 'accept-language': 'es' },
    });
    expect(upgraded.body.user).toMatchObject({ id: unmatched.user.id, guest: false, locale: 'de' });
    expect(upgraded.body.user.time_zone).toBe('Europe/Vienna');
  });
});

describe('a workshop’s language', () => {
  it('is its creator’s locale unless the body names one, and is changed by its facilitators', async () => {
    const german = (await signUp(t, { locale: 'de' })).user;
    const pat = await createUser(t, 'Pat');
    const plain = await createWorkshop(german, { title: 'Planung' });
    expect(plain.status).toBe(201);
    expect(plain.body.language).toBe('de');
    expect((await createWorkshop(german, { title: 'Plan', language: 'es' })).body.language).toBe('es');
    expect((await createWorkshop(german, { template: 'retrospective' })).body.language).toBe('de');

    const id = plain.body.id;
    const put = (user: TestUser, body: unknown) =>
      t.request<WorkshopOutput>('PUT', `/v1/workshops/${id}`, { token: user.token, body });
    const changed = await put(german, { language: 'ar' });
    expect(changed.status).toBe(200);
    expect(changed.body.language).toBe('ar');
    expect((await t.request<WorkshopOutput>('GET', `/v1/workshops/${id}`, { token: german.token })).body.language).toBe(
      'ar',
    );
    const logged = (await eventLog(t, id)).find((event) => event.action === 'updateWorkshop');
    expect(logged?.change).toMatchObject({ changes: { language: ['de', 'ar'] } });

    for (const language of ['pt', 'AR', '', null]) {
      const res = await put(german, { language, title: 'Renamed' });
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path).toBe('language');
    }
    expectError(await createWorkshop(german, { title: 'Nope', language: 'it' }), 400, 'invalid_request');

    // Participants may not change it; strangers do not see the workshop.
    const { access_code } = (
      await t.request<{ access_code: string }>('GET', `/v1/workshops/${id}/access_code`, { token: german.token })
    ).body;
    await t.request('POST', '/v1/workshops/join', { token: pat.token, body: { access_code } });
    expectError(await put(pat, { language: 'en' }), 403, 'forbidden');
    expectError(await put(await createUser(t, 'Stan'), { language: 'en' }), 404, 'not_found');
    expect((await t.request<WorkshopOutput>('GET', `/v1/workshops/${id}`, { token: german.token })).body).toMatchObject(
      { language: 'ar', title: 'Planung' },
    );
  });

  it('is carried by a copy, whoever copies it, unless the copy names another', async () => {
    const french = (await signUp(t, { locale: 'fr' })).user;
    const spanish = (await signUp(t, { locale: 'es' })).user;
    const source = (await createWorkshop(french, { title: 'Source' })).body;
    const { access_code } = (
      await t.request<{ access_code: string }>('GET', `/v1/workshops/${source.id}/access_code`, { token: french.token })
    ).body;
    await t.request('POST', '/v1/workshops/join', { token: spanish.token, body: { access_code } });

    const copy = await createWorkshop(spanish, { workshop_id: source.id });
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ title: 'Source', language: 'fr' });
    expect((await createWorkshop(spanish, { workshop_id: source.id, language: 'es' })).body.language).toBe('es');
  });

  it('goes through the native format and back; older files without it take the importer’s locale', async () => {
    const arabic = (await signUp(t, { locale: 'ar' })).user;
    const english = await createUser(t, 'Eve');
    const source = (await createWorkshop(arabic, { title: 'ورشة', language: 'de' })).body;

    const file = await nativeOf(t, arabic, source.id);
    expect(file.workshop.language).toBe('de');
    const link = (await nativeExport(t, arabic, source.id)).url!;
    const again = await createWorkshop(english, { url: link });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.body.language).toBe('de');
    expect((await createWorkshop(english, { url: link, language: 'es' })).body.language).toBe('es');

    // A file from before languages, and one naming a language this service does not speak.
    const { language: _dropped, ...older } = file.workshop;
    const fromFile = async (workshop: object) => {
      const upload = await t.request<UploadOutput>('POST', '/v1/uploads', {
        token: english.token,
        rawBody: multipart('file', JSON.stringify({ ...file, workshop }), { name: 'w.json', type: 'application/json' }),
      });
      expect(upload.status, JSON.stringify(upload.body)).toBe(201);
      const created = await createWorkshop(english, { url: upload.body.url });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body;
    };
    expect((await fromFile(older)).language).toBe('en');
    expect((await fromFile({ ...older, language: 'pt-BR' })).language).toBe('en');
    expect((await fromFile({ ...older, language: 'fr' })).language).toBe('fr');
  });
});

describe('the SDK', () => {
  it('sends Accept-Language with every request, from a string or asked each time from a function', async () => {
    const sent: Array<string | null> = [];
    const recording = (request: Request) => {
      sent.push(request.headers.get('accept-language'));
      return globalThis.fetch(request);
    };
    const fixed = createClient({ baseUrl: t.url, acceptLanguage: 'fr-CA, en;q=0.5', fetch: recording });
    const email = `sdk-lang-${signups++}@example.test`;
    const { token, user } = await fixed.post('/v1/auth/signup', {
      body: { email, password: 'correct horse battery', name: 'Sophie' },
    });
    expect(user.locale).toBe('fr');
    fixed.setToken(token);
    await fixed.get('/v1/user/me');
    expect(sent).toEqual(['fr-CA, en;q=0.5', 'fr-CA, en;q=0.5']);

    let pageLanguage: string | null = 'de';
    const switching = createClient({ baseUrl: t.url, acceptLanguage: () => pageLanguage, fetch: recording });
    sent.length = 0;
    const first = await switching.post('/v1/auth/signup', {
      body: { email: `sdk-de-${signups++}@example.test`, password: 'correct horse battery', name: 'Dieter' },
    });
    expect(first.user.locale).toBe('de');
    pageLanguage = null;
    const second = await switching.post('/v1/auth/signup', {
      body: { email: `sdk-none-${signups++}@example.test`, password: 'correct horse battery', name: 'Nadia' },
    });
    expect(second.user.locale).toBe('en');
    // Left to the runtime when the function has nothing to say.
    expect(sent[0]).toBe('de');
    expect(sent[1]).not.toBe('de');
  });
});
