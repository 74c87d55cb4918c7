import { WebSocket } from 'ws';
import { createClient, type WorkshopClient } from '../../client-sdk/src/index';
import { openCanvas, type WorkshopCanvas } from '../../client-sdk/src/canvas';
import type { FleetInstance } from './fleet';
import { SDK_PASSWORD } from './sdk';

/*
 * People using a fleet: one account, reached through any instance (the same token everywhere),
 * and the workshop they share.
 */

let accounts = 0;

export interface FleetUser {
  id: string;
  token: string;
  /** The SDK client for one base URL (an instance, or the proxy), holding this user's token. */
  on(url: string): WorkshopClient;
}

export async function fleetUser(signupUrl: string, name: string): Promise<FleetUser> {
  const api = createClient({ baseUrl: signupUrl });
  const email = `${name.toLowerCase()}-fleet-${process.pid}-${++accounts}@example.test`;
  const { token, user } = await api.post('/v1/auth/signup', { body: { email, password: SDK_PASSWORD, name } });
  const clients = new Map<string, WorkshopClient>();
  return {
    id: user.id,
    token,
    on(url) {
      let client = clients.get(url);
      if (!client) {
        client = createClient({ baseUrl: url });
        client.setToken(token);
        clients.set(url, client);
      }
      return client;
    },
  };
}

/**
 * A workshop `facilitator` makes through `url`, with a current step and one cluster, which each
 * of `participants` joins by its code through `url` too.
 */
export async function fleetWorkshop(url: string, facilitator: FleetUser, participants: FleetUser[]) {
  const api = facilitator.on(url);
  const workshop = await api.post('/v1/workshops', { body: { title: 'Fleet' } });
  const inWorkshop = { params: { path: { workshop_id: workshop.id } } };
  const step = await api.post('/v1/workshops/{workshop_id}/steps', {
    ...inWorkshop,
    body: { name: 'Ideas and votes' },
  });
  await api.put('/v1/workshops/{id}', { params: { path: { id: workshop.id } }, body: { current_step_id: step.id } });
  const cluster = await api.post('/v1/workshops/{workshop_id}/cards', {
    ...inWorkshop,
    body: { type: 'cluster', title: 'Ideas' },
  });
  const { access_code } = await api.get('/v1/workshops/{workshop_id}/access_code', inWorkshop);
  for (const participant of participants)
    await participant.on(url).post('/v1/workshops/join', { body: { access_code } });
  return { id: workshop.id, clusterId: cluster.id, inWorkshop };
}

/** The workshop's canvas through `url`, for `user`, once in step with the server. */
export async function fleetCanvas(url: string, user: FleetUser, workshopId: string): Promise<WorkshopCanvas> {
  const canvas = openCanvas({ baseUrl: url, token: user.token }, workshopId, { WebSocket, maxBackoffTime: 500 });
  await canvas.synced;
  return canvas;
}

export const instanceUrls = (instances: FleetInstance[]) => instances.map((instance) => instance.url);
