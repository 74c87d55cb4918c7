import { expect } from 'vitest';
import type { CardOutput } from '../../src/domain/cards';
import type { WorkshopOutput } from '../../src/domain/workshops';
import type { TestUser } from './factories';
import type { TestServer } from './server';

/**
 * Requests of a user that must succeed: `as(user, method, path, body)` answers the body, and a
 * status of 300 or more fails the test with the answer in the message.
 */
export function requestsOn(t: Pick<TestServer, 'request'>) {
  return async <T = unknown>(user: Pick<TestUser, 'token'>, method: string, path: string, body?: unknown) => {
    const res = await t.request<T>(method, path, { token: user.token, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
}

/** A workshop `owner` makes (`body`: its title, language…), joined with its code by each of `people`. */
export async function workshopJoinedBy(
  t: Pick<TestServer, 'request'>,
  owner: TestUser,
  people: TestUser[],
  body: Record<string, unknown> = { title: 'Retro' },
): Promise<WorkshopOutput> {
  const as = requestsOn(t);
  const workshop = await as<WorkshopOutput>(owner, 'POST', '/v1/workshops', body);
  const { access_code } = await as<{ access_code: string }>(owner, 'GET', `/v1/workshops/${workshop.id}/access_code`);
  for (const person of people) await as(person, 'POST', '/v1/workshops/join', { access_code });
  return workshop;
}

/**
 * What `author` writes in `owner`'s workshop before their account goes: a cluster "Left behind"
 * with the idea "An idea that stays", a comment and an item on it (in the owner's section
 * "Follow-ups"), and a point from each of them on the idea.
 */
export async function writtenBy(t: Pick<TestServer, 'request'>, owner: TestUser, author: TestUser, workshopId: string) {
  const as = requestsOn(t);
  const base = `/v1/workshops/${workshopId}`;
  const section = await as<{ id: string }>(owner, 'POST', `${base}/sections`, { title: 'Follow-ups' });
  const cluster = await as<CardOutput>(author, 'POST', `${base}/cards`, { type: 'cluster', title: 'Left behind' });
  const idea = await as<CardOutput>(author, 'POST', `${base}/cards`, {
    type: 'idea',
    title: 'An idea that stays',
    parent: cluster.id,
  });
  await as(author, 'POST', `${base}/cards/${idea.id}/comments`, { content: 'A comment that stays' });
  await as(author, 'POST', `${base}/cards/${idea.id}/items`, { content: 'An item that stays', section_id: section.id });
  await as(author, 'POST', `${base}/cards/${idea.id}/votes`, { value: 1 });
  await as(owner, 'POST', `${base}/cards/${idea.id}/votes`, { value: 1 });
  return { section, cluster, idea };
}
