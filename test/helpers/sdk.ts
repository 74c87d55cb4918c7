import sharp from 'sharp';
import { createClient, type WorkshopClient } from '../../client-sdk/src/index';
import type { TestServer } from './server';

let signups = 0;
/** Every account `sdkUser` signs up has this password. */
export const SDK_PASSWORD = 'correct horse battery';

/** A new account signed up through the SDK on `server`, and the SDK client holding its token. */
export async function sdkUser(
  server: Pick<TestServer, 'url'>,
  name: string,
): Promise<{ api: WorkshopClient; id: string; email: string }> {
  const api = createClient({ baseUrl: server.url });
  const email = `${name.toLowerCase()}-sdk-${process.pid}-${++signups}@example.test`;
  const { token, user } = await api.post('/v1/auth/signup', { body: { email, password: SDK_PASSWORD, name } });
  api.setToken(token);
  return { api, id: user.id, email };
}

/** A workshop `facilitator` creates, which each of `participants` joins with its access code. */
export async function sdkWorkshop(facilitator: WorkshopClient, participants: WorkshopClient[], title = 'Workshop') {
  const workshop = await facilitator.post('/v1/workshops', { body: { title } });
  const inWorkshop = { params: { path: { workshop_id: workshop.id } } };
  const { access_code } = await facilitator.get('/v1/workshops/{workshop_id}/access_code', inWorkshop);
  for (const participant of participants) await participant.post('/v1/workshops/join', { body: { access_code } });
  return { workshop, id: workshop.id, inWorkshop };
}

/** A small PNG uploaded through the SDK and made the step's illustration; answers the illustration. */
export async function sdkIllustrate(api: WorkshopClient, workshopId: string, stepId: string) {
  const png = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#3366ff' } })
    .png()
    .toBuffer();
  const image = await api.post('/v1/uploads', {
    body: { file: new Blob([new Uint8Array(png)], { type: 'image/png' }) },
  });
  return api.post('/v1/workshops/{workshop_id}/steps/{step_id}/illustration', {
    params: { path: { workshop_id: workshopId, step_id: stepId } },
    body: { name: 'sunrise.png', blob: { key: image.key, container: image.container } },
  });
}

/**
 * Fay's workshop "Quarterly review" with Pat in it, running its step "Collect", with a cluster
 * "Highlights" on the board: the start of a facilitator's session through the SDK.
 */
export async function sdkRunningWorkshop(t: TestServer) {
  const fay = await sdkUser(t, 'Fay');
  const pat = await sdkUser(t, 'Pat');
  const { id, inWorkshop } = await sdkWorkshop(fay.api, [pat.api], 'Quarterly review');
  const step = await fay.api.post('/v1/workshops/{workshop_id}/steps', { ...inWorkshop, body: { name: 'Collect' } });
  await fay.api.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: step.id } });
  const cluster = await fay.api.post('/v1/workshops/{workshop_id}/cards', {
    ...inWorkshop,
    body: { type: 'cluster', title: 'Highlights' },
  });
  return { fay, pat, id, inWorkshop, step, cluster };
}

/** Live options for tests: WebSocket only, and a dropped connection retried after 300 ms, not seconds. */
export const FAST_RECONNECT = {
  socket: {
    transports: ['websocket' as const],
    reconnectionDelay: 300,
    reconnectionDelayMax: 300,
    randomizationFactor: 0,
  },
};

/**
 * A cluster `clusterTitle` that `facilitator` adds to the workshop, and an idea `ideaTitle` in it,
 * written by `author` (the facilitator unless said).
 */
export async function sdkClusterWithIdea(
  facilitator: WorkshopClient,
  inWorkshop: { params: { path: { workshop_id: string } } },
  clusterTitle: string,
  ideaTitle: string,
  author: WorkshopClient = facilitator,
) {
  const cluster = await facilitator.post('/v1/workshops/{workshop_id}/cards', {
    ...inWorkshop,
    body: { type: 'cluster', title: clusterTitle },
  });
  const idea = await author.post('/v1/workshops/{workshop_id}/cards', {
    ...inWorkshop,
    body: { type: 'idea', title: ideaTitle, parent: cluster.id },
  });
  return { cluster, idea };
}
