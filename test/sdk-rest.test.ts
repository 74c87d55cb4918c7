import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ApiError, createClient, newIdempotencyKey } from '../client-sdk/src/index';
import { useServer } from './helpers/cast';
import { confirmAddress } from './helpers/factories';
import { SDK_PASSWORD, sdkUser } from './helpers/sdk';

/*
 * The SDK's REST client against the real server: every resource family through the typed calls,
 * errors as ApiError, paged lists followed by their Link header, Retry-After honoured.
 */

const t = useServer();

const signedUp = (name: string) => sdkUser(t, name);

/** What a rejected promise rejected with. */
async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('SDK REST client', () => {
  it('signs up, logs in and out, and reads and changes the account', async () => {
    const { api, email } = await signedUp('Ada');
    const anonymous = createClient({ baseUrl: `${t.url}/` });
    const { token, user } = await anonymous.post('/v1/auth/login', { body: { email, password: SDK_PASSWORD } });
    anonymous.setToken(token);
    expect(anonymous.token).toBe(token);
    expect((await anonymous.get('/v1/user/me')).id).toBe(user.id);

    await api.put('/v1/user/me', { body: { display_name: 'Ada L.' } });
    expect((await api.get('/v1/user/me')).name).toBe('Ada L.');

    await anonymous.post('/v1/auth/logout');
    const refused = await failure(anonymous.get('/v1/user/me'));
    expect([refused.status, refused.code]).toEqual([401, 'unauthenticated']);
  });

  it('runs a workshop: steps, cards, feedback, canvas, timer, participation, members, exports', async () => {
    const fay = await signedUp('Fay');
    const pat = await signedUp('Pat');
    const { api } = fay;

    const templates = await api.get('/v1/templates');
    expect(templates.map((template) => template.id)).toContain('retrospective');
    const workshop = await api.post('/v1/workshops', { body: { title: 'Retro', template: 'retrospective' } });
    const inWorkshop = { path: { workshop_id: workshop.id } };

    const { access_code } = await api.get('/v1/workshops/{workshop_id}/access_code', { params: inWorkshop });
    expect((await pat.api.post('/v1/workshops/join', { body: { access_code } })).id).toBe(workshop.id);
    const roles = await api.get('/v1/workshops/{workshop_id}/user_roles', { params: inWorkshop });
    expect(roles.map((role) => role.role).sort()).toEqual(['facilitator', 'participant']);

    const step = await api.post('/v1/workshops/{workshop_id}/steps', { params: inWorkshop, body: { name: 'Vote' } });
    const updated = await api.put('/v1/workshops/{id}', {
      params: { path: { id: workshop.id } },
      body: { current_step_id: step.id, description: 'Sprint 42' },
    });
    expect(updated.current_step_id).toBe(step.id);
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#3366ff' } })
      .png()
      .toBuffer();
    const image = await api.post('/v1/uploads', {
      body: { file: new Blob([new Uint8Array(png)], { type: 'image/png' }) },
    });
    const illustration = await api.post('/v1/workshops/{workshop_id}/steps/{step_id}/illustration', {
      params: { path: { workshop_id: workshop.id, step_id: step.id } },
      body: { blob: { key: image.key, container: image.container } },
    });
    expect(illustration.crop_url).toContain('{{width}}');

    const cluster = await api.post('/v1/workshops/{workshop_id}/cards', {
      params: inWorkshop,
      body: { type: 'cluster', title: 'Went well', color: 'green' },
    });
    const idea = await pat.api.post('/v1/workshops/{workshop_id}/cards', {
      params: inWorkshop,
      body: { type: 'idea', title: 'Pairing', parent: cluster.id },
    });
    const second = await pat.api.post('/v1/workshops/{workshop_id}/cards', {
      params: inWorkshop,
      body: { type: 'idea', title: 'Reviews', parent: cluster.id },
    });
    const onIdea = { path: { workshop_id: workshop.id, card_id: idea.id } };

    const vote = await pat.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
      params: onIdea,
      body: { value: 1 },
    });
    expect(vote.value).toBe(1);
    const criterion = await api.post('/v1/workshops/{workshop_id}/criteria', {
      params: inWorkshop,
      body: { title: 'Impact', scale: 2 },
    });
    const top = criterion.current_scale.at(-1)!;
    const rating = await pat.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/ratings', {
      params: onIdea,
      body: { criterium_id: criterion.id, value: top },
    });
    const section = await api.post('/v1/workshops/{workshop_id}/sections', {
      params: inWorkshop,
      body: { title: 'Actions' },
    });
    const item = await pat.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/items', {
      params: onIdea,
      body: { section_id: section.id, content: 'Pair on Fridays' },
    });
    const comment = await pat.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/comments', {
      params: onIdea,
      body: { content: 'Yes!' },
    });
    const file = await pat.api.post('/v1/uploads', { body: { file: new Blob(['notes'], { type: 'text/plain' }) } });
    const attachment = await pat.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/attachments', {
      params: onIdea,
      body: { name: 'notes.txt', blob: { key: file.key, container: file.container } },
    });
    const card = await api.get('/v1/workshops/{workshop_id}/cards/{id}', {
      params: { path: { workshop_id: workshop.id, id: idea.id } },
    });
    expect(card.summary).toEqual({ score: 1, comments: 1, attachments: 1, sections: { [section.id]: 1 } });
    expect([rating.value, item.content, comment.content, attachment.name]).toEqual([
      top,
      'Pair on Fridays',
      'Yes!',
      'notes.txt',
    ]);

    const merged = await api.post('/v1/workshops/{workshop_id}/cards/merge', {
      params: inWorkshop,
      body: { cards_id: [idea.id, second.id] },
    });
    expect(merged.summary.score).toBe(1);
    const csv = 'type,title,cluster\nidea,From CSV,Imported\n';
    const imported = await api.put('/v1/workshops/{workshop_id}/cards', {
      params: inWorkshop,
      body: { file: new Blob([csv], { type: 'text/csv' }) },
    });
    expect(imported.map((c) => c.title)).toEqual(['Imported', 'From CSV']);

    const canvas = await api.post('/v1/workshops/{workshop_id}/canvas', {
      params: inWorkshop,
      body: { canvas_id: 'swot' },
    });
    const zone = canvas.zones[0]!;
    await api.put('/v1/workshops/{workshop_id}/canvas/zones/{id}', {
      params: { path: { workshop_id: workshop.id, id: zone.id } },
      body: { cluster_id: imported[0]!.id },
    });
    expect((await api.get('/v1/canvas')).length).toBeGreaterThan(0);

    const timer = await api.put('/v1/workshops/{workshop_id}/timer', { params: inWorkshop, body: { duration_s: 300 } });
    expect(timer.state).toBe('running');
    expect((await pat.api.get('/v1/workshops/{workshop_id}/participation', { params: inWorkshop })).participants).toBe(
      1,
    );

    const { recipients } = await api.post('/v1/workshops/{id}/messages', {
      params: { path: { id: workshop.id } },
      body: { content: 'Break' },
    });
    expect(recipients).toBe(1);
    const notifications = [];
    for await (const notification of pat.api.paginate('/v1/user/me/notifications'))
      notifications.push(notification.type);
    expect(notifications).toContain('message');
    const invitations = await api.post('/v1/workshops/{workshop_id}/invitations', {
      params: inWorkshop,
      body: { emails: 'guest@example.test', content: 'Join us' },
    });
    await api.delete('/v1/workshops/{workshop_id}/invitations/{id}', {
      params: { path: { workshop_id: workshop.id, id: invitations[0]!.id } },
    });

    const exported = await api.post('/v1/workshops/{workshop_id}/exports', {
      params: inWorkshop,
      body: { type: 'csv' },
    });
    expect(exported.state).toBe('pending');

    await api.delete('/v1/workshops/{id}/votes', { params: { path: { id: workshop.id } } });
    await api.delete('/v1/workshops/{id}', { params: { path: { id: workshop.id } } });
    expect((await failure(api.get('/v1/workshops/{id}', { params: { path: { id: workshop.id } } }))).status).toBe(404);
  });

  it('runs an organization and lists its workshops', async () => {
    const { api } = await signedUp('Olga');
    const member = await signedUp('Mia');
    // An organization seat follows a confirmed address.
    await confirmAddress(t, member.email, member.api.token ?? undefined);
    const organization = await api.post('/v1/organizations', { body: { name: 'Acme' } });
    const added = await api.post('/v1/organizations/{id}/members', {
      params: { path: { id: organization.id } },
      body: { email: member.email, role: 'facilitator' },
    });
    expect(added.pending).toBe(false);
    const workshop = await member.api.post('/v1/organizations/{organization_id}/workshops', {
      params: { path: { organization_id: organization.id } },
      body: { title: 'Org workshop' },
    });
    const listed = await api.get('/v1/user/me/workshops');
    expect(listed.map((w) => w.id)).toContain(workshop.id);
    expect((await member.api.get('/v1/user/me/organizations')).map((o) => o.id)).toEqual([organization.id]);
  });

  it('throws ApiError with the code, message, details and status of a refusal', async () => {
    const { api } = await signedUp('Eve');
    const stranger = await signedUp('Stan');
    const workshop = await api.post('/v1/workshops', { body: { title: 'Private' } });

    const invalid = await failure(api.post('/v1/workshops', { body: { title: '' } }));
    expect([invalid.status, invalid.code]).toEqual([400, 'invalid_request']);
    expect(invalid.details.map((detail) => detail.path)).toContain('title');
    expect(invalid.message).toMatch(/title/);

    const hidden = await failure(stranger.api.get('/v1/workshops/{id}', { params: { path: { id: workshop.id } } }));
    expect([hidden.status, hidden.code]).toEqual([404, 'not_found']);

    const archived = await api.put('/v1/workshops/{id}', {
      params: { path: { id: workshop.id } },
      body: { state: 'archived' },
    });
    expect(archived.state).toBe('archived');
    const refused = await failure(
      api.post('/v1/workshops/{workshop_id}/steps', {
        params: { path: { workshop_id: workshop.id } },
        body: { name: 'Late' },
      }),
    );
    expect([refused.status, refused.code]).toEqual([409, 'workshop_archived']);
  });

  it('downloads a file the service answers with as a Blob, named as the service names it', async () => {
    const { api } = await signedUp('Zoe');
    await api.put('/v1/user/me', { body: { name: 'Zoë' } });
    await api.post('/v1/workshops', { body: { title: 'Zoë’s retro' } });
    const { blob, filename } = await api.download('/v1/user/me/export');
    expect(blob).toBeInstanceOf(Blob);
    const bytes = Buffer.from(await blob.arrayBuffer());
    expect(bytes.subarray(0, 2).toString()).toBe('PK');
    expect(bytes.includes(Buffer.from('account.json'))).toBe(true);
    // The exact name (`filename*`), not the header's ASCII stand-in.
    expect(filename).toMatch(/^Zoë data export \d{4}-\d{2}-\d{2}\.zip$/);

    // A refusal is an ApiError, its JSON body read although a file was asked for.
    await api.post('/v1/auth/logout');
    const refused = await failure(api.download('/v1/user/me/export'));
    expect([refused.status, refused.code]).toEqual([401, 'unauthenticated']);
    // Only the routes that answer files are downloads.
    const typesOnly = () => {
      // @ts-expect-error the account is JSON, not a file
      void api.download('/v1/user/me');
    };
    expect(typesOnly).toBeTypeOf('function');
  });

  it('follows the Link header through every page of a list', async () => {
    const { api } = await signedUp('Paula');
    const workshop = await api.post('/v1/workshops', { body: { title: 'Busy' } });
    const inWorkshop = { path: { workshop_id: workshop.id } };
    for (const name of ['One', 'Two', 'Three', 'Four', 'Five']) {
      await api.post('/v1/workshops/{workshop_id}/steps', { params: inWorkshop, body: { name } });
    }
    const first = await api.fetchClient.GET('/v1/workshops/{workshop_id}/events', {
      params: { ...inWorkshop, query: { per_page: 2 } },
    });
    const total = Number(first.response.headers.get('x-total-count'));
    expect(total).toBe(6);

    const actions: string[] = [];
    for await (const event of api.paginate('/v1/workshops/{workshop_id}/events', {
      params: { ...inWorkshop, query: { per_page: 2 } },
    })) {
      actions.push(event.action);
    }
    expect(actions).toEqual(['addStep', 'addStep', 'addStep', 'addStep', 'addStep', 'createWorkshop']);

    // Stopping early fetches no further page.
    let seen = 0;
    for await (const _event of api.paginate('/v1/workshops/{workshop_id}/events', {
      params: { ...inWorkshop, query: { per_page: 2 } },
    })) {
      if (++seen === 1) break;
    }
    expect(seen).toBe(1);
  });

  it('waits as long as Retry-After says and sends the request again', async () => {
    const sent: Array<{ at: number; body: string }> = [];
    const api = createClient({
      baseUrl: t.url,
      fetch: async (request) => {
        sent.push({ at: Date.now(), body: await request.clone().text() });
        // The first answer is the server's rate limit as a proxy in front of it would give it.
        if (sent.length === 1)
          return new Response(JSON.stringify({ error: { code: 'rate_limited', message: 'Too many attempts.' } }), {
            status: 429,
            headers: { 'retry-after': '1' },
          });
        return fetch(request);
      },
    });
    const email = `retry-${process.pid}@example.test`;
    const { user } = await api.post('/v1/auth/signup', {
      body: { email, password: 'correct horse battery', name: 'Rita' },
    });
    expect(user.email).toBe(email);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(990);
    expect(sent[1]!.body).toBe(sent[0]!.body);
  });

  it('sends every write with an Idempotency-Key of its own, the same one on each retry, and none on reads', async () => {
    const keys: Array<{ method: string; key: string | null }> = [];
    const api = createClient({
      baseUrl: t.url,
      fetch: async (request) => {
        keys.push({ method: request.method, key: request.headers.get('idempotency-key') });
        if (keys.length === 1)
          return new Response(JSON.stringify({ error: { code: 'rate_limited', message: 'Too many attempts.' } }), {
            status: 429,
            headers: { 'retry-after': '0' },
          });
        return fetch(request);
      },
    });
    const { token } = await api.post('/v1/auth/signup', {
      body: { email: `keys-${process.pid}@example.test`, password: 'correct horse battery', name: 'Kim' },
    });
    api.setToken(token);
    await api.get('/v1/user/me');
    await api.put('/v1/user/me', { body: { display_name: 'Kim K.' } });
    expect(keys.map((k) => k.method)).toEqual(['POST', 'POST', 'GET', 'PUT']);
    expect(keys[0]!.key).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[1]!.key).toBe(keys[0]!.key);
    expect(keys[2]!.key).toBeNull();
    expect(keys[3]!.key).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[3]!.key).not.toBe(keys[0]!.key);
  });

  it('sends a write again after its answer was lost on the way, and the server runs it once', async () => {
    const fay = await signedUp('Lia');
    const workshop = await fay.api.post('/v1/workshops', { body: { title: 'Lost answers' } });
    let attempts = 0;
    const flaky = createClient({
      baseUrl: t.url,
      token: fay.api.token,
      fetch: async (request) => {
        attempts++;
        const response = await fetch(request);
        // The server made the card; the connection dropped before the answer arrived.
        if (attempts === 1) {
          await response.body?.cancel();
          throw new TypeError('fetch failed');
        }
        return response;
      },
    });
    const inWorkshop = { path: { workshop_id: workshop.id } };
    const cluster = await flaky.post('/v1/workshops/{workshop_id}/cards', {
      params: inWorkshop,
      body: { type: 'cluster', title: 'Sent once' },
    });
    expect(attempts).toBe(2);
    const cards = await fay.api.get('/v1/workshops/{workshop_id}/cards', { params: inWorkshop });
    expect(cards.filter((card) => card.title === 'Sent once').map((card) => card.id)).toEqual([cluster.id]);
  });

  it('uses the Idempotency-Key the caller gives, so a write queued while offline keeps its key', async () => {
    const fay = await signedUp('Ola');
    const workshop = await fay.api.post('/v1/workshops', { body: { title: 'Offline queue' } });
    const inWorkshop = { path: { workshop_id: workshop.id } };
    const key = newIdempotencyKey();
    const send = () =>
      fay.api.post('/v1/workshops/{workshop_id}/cards', {
        params: inWorkshop,
        body: { type: 'cluster', title: 'Queued' },
        headers: { 'Idempotency-Key': key },
      });
    const first = await send();
    const second = await send();
    expect(second).toEqual(first);
    const cards = await fay.api.get('/v1/workshops/{workshop_id}/cards', { params: inWorkshop });
    expect(cards.filter((card) => card.title === 'Queued')).toHaveLength(1);
  });

  describe("against the server's own rate limit", () => {
    const limited = useServer({ joinAttemptsPerMinute: 2 });

    it('gives up at once on a Retry-After longer than allowed, saying how long', async () => {
      const api = createClient({ baseUrl: limited.url, retry: { maxDelaySeconds: 5 } });
      const { token } = await api.post('/v1/auth/signup', {
        body: { email: `guess-${process.pid}@example.test`, password: 'correct horse battery', name: 'Gus' },
      });
      api.setToken(token);
      const guess = () => api.post('/v1/workshops/join', { body: { access_code: '000-000-000' } });
      expect((await failure(guess())).status).toBe(404);
      expect((await failure(guess())).status).toBe(404);
      const started = Date.now();
      const limit = await failure(guess());
      expect([limit.status, limit.code]).toEqual([429, 'rate_limited']);
      expect(limit.retryAfter).toBeGreaterThan(5);
      expect(Date.now() - started).toBeLessThan(1_000);
    });
  });
});
