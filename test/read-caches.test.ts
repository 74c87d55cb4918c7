import { describe, expect, it } from 'vitest';
import type { OrganizationOutput } from '../src/domain/organizations';
import type { WorkshopOutput } from '../src/domain/workshops';
import { useUsers, useInstances } from './helpers/cast';
import { seedCurrentStep, seedMember, seedWorkshop } from './helpers/factories';

/*
 * GET /v1/workshops/:id is answered from a cache of its JSON: anything the answer shows that
 * changes, on this instance or another one on the same file, must show at once.
 */

const [a, b] = useInstances(2);
const [owner, member] = useUsers(a, 'Owner', 'Member');

const read = (server: typeof a, token: string, id: string) =>
  server.request<WorkshopOutput>('GET', `/v1/workshops/${id}`, { token });

describe('a cached workshop', () => {
  it('shows changes made on another instance, and its owner renamed', async () => {
    const workshop = await seedWorkshop(a, owner, { title: 'First' });
    expect((await read(a, owner.token, workshop.id)).body.title).toBe('First');
    expect(
      (await b.request('PUT', `/v1/workshops/${workshop.id}`, { token: owner.token, body: { title: 'Second' } }))
        .status,
    ).toBe(200);
    expect((await read(a, owner.token, workshop.id)).body.title).toBe('Second');

    expect(
      (
        await b.request('PUT', `/v1/workshops/${workshop.id}`, {
          token: owner.token,
          body: { description: 'Now described' },
        })
      ).status,
    ).toBe(200);
    expect((await read(a, owner.token, workshop.id)).body.description).toBe('Now described');

    expect(
      (await b.request('PUT', '/v1/user/me', { token: owner.token, body: { display_name: 'Renamed owner' } })).status,
    ).toBe(204);
    expect((await read(a, owner.token, workshop.id)).body.owner.name).toBe('Renamed owner');
  });

  it('shows an organization owner renamed', async () => {
    const org = (
      await a.request<OrganizationOutput>('POST', '/v1/organizations', { token: owner.token, body: { name: 'Acme' } })
    ).body;
    const workshop = await seedWorkshop(a, owner, { ownerType: 'organization', ownerId: org.id });
    expect((await read(a, owner.token, workshop.id)).body.owner.name).toBe('Acme');
    expect(
      (await b.request('PUT', `/v1/organizations/${org.id}`, { token: owner.token, body: { name: 'Acme Inc' } }))
        .status,
    ).toBe(204);
    expect((await read(a, owner.token, workshop.id)).body.owner.name).toBe('Acme Inc');
  });

  it('keeps answers apart for readers whose step hides others’ ratings', async () => {
    const workshop = await seedWorkshop(a, owner);
    await seedMember(a, workshop.id, member);
    await seedCurrentStep(a, workshop.id, { allow_display_ratings: false });
    const criterion = (
      await a.request<{ id: string }>('POST', `/v1/workshops/${workshop.id}/criteria`, {
        token: owner.token,
        body: { title: 'Impact', scale: 1 },
      })
    ).body;
    const card = (
      await a.request<{ id: string }>('POST', `/v1/workshops/${workshop.id}/cards`, {
        token: owner.token,
        body: { type: 'cluster', title: 'C' },
      })
    ).body;
    expect(
      (
        await a.request('POST', `/v1/workshops/${workshop.id}/cards/${card.id}/ratings`, {
          token: owner.token,
          body: { value: 4, criterium_id: criterion.id },
        })
      ).status,
    ).toBe(201);
    const facilitatorView = (await read(a, owner.token, workshop.id)).body;
    const participantView = (await read(a, member.token, workshop.id)).body;
    expect(facilitatorView.criteria[0]!.ratings).toHaveLength(1);
    expect(participantView.criteria[0]!.ratings).toHaveLength(0);
    expect((await read(a, owner.token, workshop.id)).body).toEqual(facilitatorView);
  });
});
