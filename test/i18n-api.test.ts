import { describe, expect, it } from 'vitest';
import { t } from '../src/i18n/messages';
import { useServer } from './helpers/cast';
import { SDK_PASSWORD } from './helpers/sdk';

/*
 * An error's `message` follows the request's Accept-Language, negotiated against the catalogs
 * (docs/i18n.md#which-language); its `code` never changes. The real server on a real port, called
 * as any client would, with the header a browser sends.
 */

let accounts = 0;

interface ErrorBody {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
}

describe('errors in the language of the request', () => {
  const server = useServer();

  /** A new account's token. */
  async function signedIn(name: string): Promise<string> {
    const res = await fetch(`${server.url}/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `${name}-${process.pid}@example.test`, password: SDK_PASSWORD, name }),
    });
    return ((await res.json()) as { token: string }).token;
  }

  /** Sends a workshop to create with a body that is not JSON, as a signed-in account, with `accept` as Accept-Language. */
  async function malformed() {
    const token = await signedIn(`lea-${++accounts}`);
    return async (accept?: string) => {
      const res = await fetch(`${server.url}/v1/workshops`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...(accept !== undefined ? { 'accept-language': accept } : {}),
        },
        body: '{"title": ',
      });
      return { status: res.status, body: (await res.json()) as ErrorBody };
    };
  }

  it('says the message in German for Accept-Language: de, with the same code as in English', async () => {
    const send = await malformed();
    const english = await send();
    expect(english).toEqual({
      status: 400,
      body: { error: { code: 'invalid_request', message: 'The body is not well-formed JSON.' } },
    });
    const german = await send('de');
    expect(german.status).toBe(400);
    expect(german.body.error).toEqual({ code: 'invalid_request', message: t('de', 'error.body_not_json') });
    expect(german.body.error.message).toBe('Der Inhalt der Anfrage ist kein wohlgeformtes JSON.');
  });

  it('negotiates a regional variant to its language, and follows the weights', async () => {
    const send = await malformed();
    expect((await send('fr-CA')).body.error.message).toBe(t('fr', 'error.body_not_json'));
    expect((await send('ja, de;q=0.5, en;q=0.4')).body.error.message).toBe(t('de', 'error.body_not_json'));
    expect((await send('de;q=0.1, es-MX')).body.error.message).toBe(t('es', 'error.body_not_json'));
    expect((await send('ar-EG')).body.error.message).toBe(t('ar', 'error.body_not_json'));
  });

  it('answers in English for a language without a catalog, a wildcard or a header that is no language', async () => {
    const send = await malformed();
    for (const header of ['ja', '*', 'de;q=0', '!!!, 12345678901', ''])
      expect((await send(header)).body.error).toEqual({
        code: 'invalid_request',
        message: 'The body is not well-formed JSON.',
      });
  });

  it("says the validation's message in the language, its details as they are", async () => {
    const token = await signedIn('ola');
    const res = await fetch(`${server.url}/v1/workshops`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'accept-language': 'es' },
      body: JSON.stringify({ title: '' }),
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as ErrorBody;
    const first = error.details![0]!;
    expect(first.path).toContain('title');
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe(
      t('es', 'error.invalid_input.at', { what: 'body', path: first.path, detail: first.message }),
    );
    expect(error.message.startsWith(`Cuerpo de la solicitud no válido: ${first.path}: `)).toBe(true);
  });

  it('says an unknown route in the language', async () => {
    const res = await fetch(`${server.url}/no-such-route`, { headers: { 'accept-language': 'fr-FR,fr;q=0.9' } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as ErrorBody).error).toEqual({
      code: 'not_found',
      message: 'Aucune route pour GET /no-such-route.',
    });
  });
});

describe('the participant page in the language of the request', () => {
  const server = useServer();

  const page = async (accept?: string) => {
    const res = await fetch(`${server.url}/join`, { headers: accept ? { 'accept-language': accept } : {} });
    return { html: await res.text(), vary: res.headers.get('vary') };
  };

  it('is served in the negotiated language, with its direction and its messages file preloaded', async () => {
    const arabic = await page('ar-EG,ar;q=0.9,en;q=0.5');
    expect(arabic.vary).toContain('Accept-Language');
    expect(arabic.html).toContain('<html lang="ar" dir="rtl">');
    expect(arabic.html).toMatch(
      /<link rel="modulepreload" href="\/participant\/assets\/messages-ar-[A-Z0-9]+\.js" \/>/,
    );
    expect(arabic.html).toContain(`<title>${t('ar', 'participant.join.title')}</title>`);
    expect((await page('fr-CA')).html).toContain('<html lang="fr" dir="ltr">');
    const english = await page();
    expect(english.html).toContain('<html lang="en" dir="ltr">');
    expect(english.html).toContain('<h1 id="join-title">Join the workshop</h1>');
  });

  it("serves each language's messages file, and only the page's own messages in it", async () => {
    const { html } = await page('de');
    const files = JSON.parse(
      /<meta name="messages" content="([^"]+)"/.exec(html)![1]!.replace(/&quot;/g, '"'),
    ) as Record<string, string>;
    expect(Object.keys(files).sort()).toEqual(['ar', 'de', 'en', 'en-XA', 'es', 'fr']);
    const res = await fetch(`${server.url}/participant/assets/${files.de}`);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toContain('immutable');
    const module = await res.text();
    expect(module.startsWith('export default {"tag":"de","dir":"ltr","intl":"de","messages":{')).toBe(true);
    expect(module).toContain('"participant.join.submit":"Teilnehmen"');
    expect(module).not.toContain('"error.');
  });
});
