import { describe, expect, it } from 'vitest';
import { t as say } from '../src/i18n/messages';
import { useCast } from './helpers/cast';
import { seedCardScene } from './helpers/factories';
import { askedInEachLanguage } from './helpers/languages';

/*
 * The refusals of a body or a query the schemas turn down follow the request's Accept-Language,
 * the schemas' own words and valibot's alike; their `code` and each detail's `path` never change,
 * and without the header they stay the English they always were (docs/i18n.md#which-language).
 * The real server on a real port, asked as any client would be.
 */

const cast = useCast();
const { facilitator } = cast;
const t = cast.t;

/** Each language's first detail, its path the same in every one. */
function firstDetails(errors: Awaited<ReturnType<typeof askedInEachLanguage>>, path: string) {
  const details = new Map<string, string>();
  for (const [lang, error] of errors) {
    expect(error.details?.[0]?.path, lang).toBe(path);
    details.set(lang, error.details![0]!.message);
  }
  return details;
}

describe('refused input in the language of the request', () => {
  it('says a password is too short at signup, counting its characters in each language', async () => {
    const errors = await askedInEachLanguage(
      (options) =>
        t.request('POST', '/v1/auth/signup', {
          body: { email: 'short@example.test', password: 'short', name: 'Short' },
          ...options,
        }),
      400,
      'invalid_request',
    );
    const details = firstDetails(errors, 'password');
    expect(errors.get('')!.message).toBe('Invalid body: password: Passwords have at least 8 characters.');
    expect(details.get('fr')).toBe('Un mot de passe compte au moins 8 caractères.');
    expect(errors.get('fr')!.message).toBe(
      'Corps de la requête invalide\u00a0: password\u00a0: Un mot de passe compte au moins 8 caractères.',
    );
    expect(details.get('de')).toBe('Passwörter haben mindestens 8 Zeichen.');
    // Arabic counts 3 to 10 with their own plural ("few"), not the form for 11 or 100.
    expect(details.get('ar')).toBe(say('ar', 'error.validation.password_short', { min: 8 }));
    expect(details.get('ar')).toContain('8 أحرف');
  });

  it('says only clusters have a color when an idea is given one', async () => {
    const { workshop, card: cluster } = await seedCardScene(cast, 'votes');
    const errors = await askedInEachLanguage(
      (options) =>
        t.request('POST', `/v1/workshops/${workshop.id}/cards`, {
          token: facilitator.token,
          body: { type: 'idea', title: 'Painted', parent: cluster.id, color: 'red' },
          ...options,
        }),
      400,
      'invalid_request',
    );
    const details = firstDetails(errors, 'color');
    expect(details.get('')).toBe('Only clusters have a color.');
    expect(details.get('fr')).toBe('Seuls les regroupements ont une couleur.');
    expect(details.get('de')).toBe('Nur Cluster haben eine Farbe.');
    expect(details.get('ar')).toBe('المجموعات وحدها لها لون.');
  });

  it('says a title given as a number is of the wrong type, in valibot’s words translated', async () => {
    const { workshop } = await seedCardScene(cast, 'votes');
    const errors = await askedInEachLanguage(
      (options) =>
        t.request('POST', `/v1/workshops/${workshop.id}/cards`, {
          token: facilitator.token,
          body: { type: 'cluster', title: 42 },
          ...options,
        }),
      400,
      'invalid_request',
    );
    const details = firstDetails(errors, 'title');
    expect(details.get('')).toBe('Invalid type: Expected string but received 42');
    expect(details.get('fr')).toBe('Type invalide\u00a0: string attendu, mais 42 reçu');
    expect(details.get('de')).toBe('Ungültiger Typ: erwartet string, erhalten 42');
    expect(details.get('ar')).toBe(say('ar', 'error.validation.type', { expected: 'string', received: '42' }));
  });

  it('says a missing card title is required, naming the member as the API spells it', async () => {
    const { workshop } = await seedCardScene(cast, 'votes');
    const errors = await askedInEachLanguage(
      (options) =>
        t.request('POST', `/v1/workshops/${workshop.id}/cards`, {
          token: facilitator.token,
          body: { type: 'cluster' },
          ...options,
        }),
      400,
      'invalid_request',
    );
    const details = firstDetails(errors, 'title');
    expect(details.get('')).toBe('title is required.');
    expect(errors.get('')!.message).toBe('Invalid body: title: title is required.');
    expect(details.get('fr')).toBe('title est obligatoire.');
    expect(details.get('de')).toBe('title ist erforderlich.');
    expect(details.get('ar')).toBe('title مطلوب.');
  });

  it('says a list sent where an object belongs is the wrong type', async () => {
    const { workshop } = await seedCardScene(cast, 'votes');
    const errors = await askedInEachLanguage(
      (options) =>
        t.request('POST', `/v1/workshops/${workshop.id}/cards`, { token: facilitator.token, body: [], ...options }),
      400,
      'invalid_request',
    );
    const details = firstDetails(errors, '');
    expect(details.get('')).toBe('Expected an object but received an array.');
    expect(details.get('fr')).toBe('Un objet est attendu, mais un tableau a été reçu.');
    expect(details.get('de')).toBe('Erwartet wurde ein Objekt, erhalten wurde ein Array.');
    expect(details.get('ar')).toBe(say('ar', 'error.validation.object_not_array'));
  });

  it('says a page number below 1 in the query is out of range', async () => {
    const { workshop } = await seedCardScene(cast, 'votes');
    const errors = await askedInEachLanguage(
      (options) =>
        t.request('GET', `/v1/workshops/${workshop.id}/events?page=0`, { token: facilitator.token, ...options }),
      400,
      'invalid_request',
    );
    const details = firstDetails(errors, 'page');
    expect(details.get('')).toBe('Invalid value: Expected >=1 but received 0');
    expect(errors.get('')!.message).toBe('Invalid query: page: Invalid value: Expected >=1 but received 0');
    expect(details.get('fr')).toBe('Valeur invalide\u00a0: 1 au minimum, mais 0 reçu');
    expect(details.get('de')).toBe('Ungültiger Wert: erwartet mindestens 1, erhalten 0');
    expect(details.get('ar')).toBe(say('ar', 'error.validation.min_value', { requirement: 1, received: '0' }));
    expect(errors.get('ar')!.message).toContain(details.get('ar'));
  });

  it('says a page size of 0 is too small, in the schema’s own words', async () => {
    const { workshop } = await seedCardScene(cast, 'votes');
    const errors = await askedInEachLanguage(
      (options) =>
        t.request('GET', `/v1/workshops/${workshop.id}/events?per_page=0`, { token: facilitator.token, ...options }),
      400,
      'invalid_request',
    );
    const details = firstDetails(errors, 'per_page');
    expect(details.get('')).toBe('Expected at least 1.');
    expect(details.get('fr')).toBe('Une valeur d’au moins 1 est attendue.');
    expect(details.get('de')).toBe('Erwartet wird mindestens 1.');
    expect(details.get('ar')).toBe('المتوقع 1 على الأقل.');
  });
});
