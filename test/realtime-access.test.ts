import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { OrganizationMemberOutput } from '../src/modules/organizations/schemas';
import type { OrganizationOutput } from '../src/domain/organizations';
import {
  createConfirmedUser,
  createUser,
  seedCriterion,
  seedMember,
  seedWorkshop,
  type TestUser,
} from './helpers/factories';
import { useServer, useSockets, useUsers } from './helpers/cast';
import { until } from './helpers/wait';
import { type LiveClient } from './helpers/sockets';

const t = useServer();
const [facilitator] = useUsers(t, 'Fay');
const sockets = useSockets(t);

const api = <T = unknown>(method: string, path: string, user: TestUser, body?: unknown) =>
  t.request<T>(method, path, { token: user.token, body });

const joined = (user: TestUser, workshopId: string) => sockets.joined(user, workshopId);

/** Renames the workshop and waits until a watcher saw it, so anyone else entitled to it has it too. */
async function rename(workshopId: string, title: string, watcher: LiveClient) {
  expect((await api('PUT', `/v1/workshops/${workshopId}`, facilitator, { title })).status).toBe(200);
  await watcher.next('workshop:updated', (p) => p.workshop.title === title);
}

const titles = (client: LiveClient) => client.all('workshop:updated').map((p) => p.workshop.title);

/** The rooms the server has the user's sockets in. */
async function roomsOf(userId: string): Promise<string[]> {
  const sockets = await t.server.realtime.io.fetchSockets();
  return sockets.filter((s) => s.data.user.id === userId).flatMap((s) => [...s.rooms]);
}

function disconnected(client: LiveClient): Promise<string> {
  return new Promise((resolve) => client.socket.once('disconnect', (reason) => resolve(reason)));
}

describe('logout', () => {
  it('ends the sockets opened with the token at once, and only those', async () => {
    const pat = await createUser(t, 'Pat');
    const w = await seedWorkshop(t, facilitator);
    await seedMember(t, w.id, pat);
    const login = await t.request<{ token: string }>('POST', '/v1/auth/login', {
      body: { email: pat.email, password: 'correct horse battery' },
    });
    expect(login.status).toBe(200);
    const otherDevice = await joined({ ...pat, token: login.body.token }, w.id);
    const client = await joined(pat, w.id);
    const watcher = await joined(facilitator, w.id);

    const gone = disconnected(client);
    expect((await api('POST', '/v1/auth/logout', pat)).status).toBe(204);
    expect(await gone).toBe('io server disconnect');

    await rename(w.id, 'After logout', watcher);
    await otherDevice.next('workshop:updated', (p) => p.workshop.title === 'After logout');
    expect(titles(client)).toEqual([]);
    expect(otherDevice.socket.connected).toBe(true);
  });
});

describe('losing access', () => {
  async function orgScene() {
    const owner = await createUser(t, 'Olga');
    const admin = await createConfirmedUser(t, 'Adam');
    const org = (await api<OrganizationOutput>('POST', '/v1/organizations', owner, { name: 'Acme' })).body;
    const member = await api<OrganizationMemberOutput>('POST', `/v1/organizations/${org.id}/members`, owner, {
      email: admin.email,
      role: 'admin',
    });
    expect(member.status).toBe(201);
    const w = await seedWorkshop(t, facilitator, { ownerType: 'organization', ownerId: org.id });
    const removeAdmin = async () => {
      expect((await api('DELETE', `/v1/organizations/${org.id}/members/${member.body.id}`, owner)).status).toBe(204);
    };
    return { admin, w, removeAdmin };
  }

  it('stops the feed of an organization admin removed from the organization', async () => {
    const { admin, w, removeAdmin } = await orgScene();
    const client = await joined(admin, w.id);
    const watcher = await joined(facilitator, w.id);
    await rename(w.id, 'While admin', watcher);
    await client.next('workshop:updated', (p) => p.workshop.title === 'While admin');

    await removeAdmin();
    await until(
      async () => !(await roomsOf(admin.id)).some((room) => room.startsWith(`workshop:${w.id}`)),
      "the admin out of the workshop's rooms",
      2_000,
    );
    await rename(w.id, 'After removal', watcher);
    expect(titles(client)).toEqual(['While admin']);
    expect(client.socket.connected).toBe(true);
    expect(await client.join(w.id)).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('moves a removed admin who is still a participant to the participants room', async () => {
    const { admin, w, removeAdmin } = await orgScene();
    await seedMember(t, w.id, admin);
    await joined(admin, w.id);
    expect(await roomsOf(admin.id)).toContain(`workshop:${w.id}:facilitators`);

    await removeAdmin();
    await until(
      async () => (await roomsOf(admin.id)).includes(`workshop:${w.id}:participants`),
      "the admin in the participants' room",
      2_000,
    );
    const rooms = await roomsOf(admin.id);
    expect(rooms).not.toContain(`workshop:${w.id}:facilitators`);
    expect(rooms).toContain(`workshop:${w.id}`);
  });

  it('keeps an organization admin demoted as a member in the facilitators room: the admin still facilitates', async () => {
    const { admin, w } = await orgScene();
    await seedMember(t, w.id, admin, 'facilitator');
    await joined(admin, w.id);
    const watcher = await joined(facilitator, w.id);
    const roles = await api<Array<{ id: string; user_id: string }>>(
      'GET',
      `/v1/workshops/${w.id}/user_roles`,
      facilitator,
    );
    const membership = roles.body.find((r) => r.user_id === admin.id)!;

    expect(
      (await api('PUT', `/v1/workshops/${w.id}/user_roles/${membership.id}`, facilitator, { role: 'participant' }))
        .status,
    ).toBe(200);
    await watcher.next('workshop:event', (p) => p.action === 'updateMember');
    const rooms = await roomsOf(admin.id);
    expect(rooms).toContain(`workshop:${w.id}:facilitators`);
    expect(rooms).not.toContain(`workshop:${w.id}:participants`);
  });

  it('takes a socket out of the workshop when a join is refused', async () => {
    const pat = await createUser(t, 'Pat');
    const w = await seedWorkshop(t, facilitator);
    await seedMember(t, w.id, pat);
    const client = await joined(pat, w.id);
    const watcher = await joined(facilitator, w.id);
    // Removed without a logged event: only the refused join tells.
    await t.write(async (tx, { workshopMembers }) =>
      tx.delete(workshopMembers).where(and(eq(workshopMembers.workshopId, w.id), eq(workshopMembers.userId, pat.id))),
    );

    expect(await client.join(w.id)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect((await roomsOf(pat.id)).filter((room) => room.startsWith('workshop:'))).toEqual([]);
    await rename(w.id, 'Members only', watcher);
    expect(titles(client)).toEqual([]);
  });
});

describe('workshop deletion', () => {
  it("takes every socket out of the deleted workshop's rooms, per-user rooms included", async () => {
    const pat = await createUser(t, 'Pat');
    const w = await seedWorkshop(t, facilitator);
    await seedMember(t, w.id, pat);
    const client = await joined(pat, w.id);
    await joined(facilitator, w.id);
    expect(await roomsOf(pat.id)).toContain(`workshop:${w.id}:user:${pat.id}`);

    expect((await api('DELETE', `/v1/workshops/${w.id}`, facilitator)).status).toBe(204);
    const inWorkshop = async () =>
      [...(await roomsOf(pat.id)), ...(await roomsOf(facilitator.id))].filter((room) =>
        room.startsWith(`workshop:${w.id}`),
      );
    await until(async () => (await inWorkshop()).length === 0, "nobody left in the workshop's room", 2_000);
    expect(client.socket.connected).toBe(true);
  });
});

describe('workshop:updated', () => {
  it('leaves criteria out: their ratings depend on the reader', async () => {
    const w = await seedWorkshop(t, facilitator);
    await seedCriterion(t, w.id, { title: 'Impact' });
    const client = await joined(facilitator, w.id);
    await rename(w.id, 'Without criteria', client);
    const payload = client.all('workshop:updated')[0];
    expect(payload.workshop).not.toHaveProperty('criteria');
    expect(payload.workshop).toMatchObject({ id: w.id, title: 'Without criteria', sections: [] });
  });
});
