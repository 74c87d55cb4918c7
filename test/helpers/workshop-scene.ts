import { expect } from 'vitest';
import type { CardOutput } from '../../src/domain/cards';
import type { CriterionOutput } from '../../src/domain/criteria';
import type { WorkshopOutput } from '../../src/domain/workshops';
import type { TestUser } from './factories';
import type { TestServer } from './server';

/** A workshop described as a facilitator would build it; `by` names who acts (an index into `people`). */
export interface SceneSpec {
  title: string;
  steps: Array<{ name: string; instructions: string }>;
  criteria: Array<{ title: string; scale: 1 | 2 | 3 | 4 }>;
  sections: string[];
  clusters: Array<{
    title: string;
    color?: string;
    ideas: Array<{
      title: string;
      content?: string;
      aside?: boolean;
      votes?: Array<{ by: number; value: number }>;
      /** `criterion` indexes `criteria`; `value` must be on its scale. */
      ratings?: Array<{ by: number; criterion: number; value: number }>;
      comments?: Array<{ by: number; content: string }>;
      /** `section` indexes `sections`. */
      items?: Array<{ by: number; section: number; content: string }>;
    }>;
  }>;
  /** Zones drawn on a canvas, each linked to the cluster of the same index when there is one. */
  zones: Array<{ name: string; x: number; y: number; cols: number; rows: number }>;
}

export interface BuiltScene {
  workshop: WorkshopOutput;
  /** Card ids by title. */
  cards: Map<string, string>;
}

/**
 * Builds the workshop through the REST API, as its people would: `people[0]` facilitates and
 * starts the first step, the others join as participants and vote, rate, comment and add items.
 */
export async function buildScene(t: TestServer, people: TestUser[], spec: SceneSpec): Promise<BuiltScene> {
  const [facilitator] = people;
  const as = async <T>(user: TestUser, method: string, path: string, body?: unknown) => {
    const res = await t.request<T>(method, path, { token: user.token, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const workshop = await as<WorkshopOutput>(facilitator!, 'POST', '/v1/workshops', {
    title: spec.title,
    description: `About ${spec.title}`,
  });
  const base = `/v1/workshops/${workshop.id}`;
  const code = (await as<{ access_code: string }>(facilitator!, 'GET', `${base}/access_code`)).access_code;
  for (const person of people.slice(1)) await as(person, 'POST', '/v1/workshops/join', { access_code: code });
  const steps: Array<{ id: string }> = [];
  for (const step of spec.steps) steps.push(await as<{ id: string }>(facilitator!, 'POST', `${base}/steps`, step));
  // A workshop with steps takes participants' writes once one is current (docs/api.md#the-lobby).
  if (steps[0]) await as(facilitator!, 'PUT', base, { current_step_id: steps[0].id });
  const criteria: CriterionOutput[] = [];
  for (const criterion of spec.criteria)
    criteria.push(await as<CriterionOutput>(facilitator!, 'POST', `${base}/criteria`, criterion));
  const sectionIds: string[] = [];
  for (const title of spec.sections)
    sectionIds.push((await as<{ id: string }>(facilitator!, 'POST', `${base}/sections`, { title })).id);

  const cards = new Map<string, string>();
  const clusterIds: string[] = [];
  for (const cluster of spec.clusters) {
    const created = await as<CardOutput>(facilitator!, 'POST', `${base}/cards`, {
      type: 'cluster',
      title: cluster.title,
      ...(cluster.color ? { color: cluster.color } : {}),
    });
    cards.set(cluster.title, created.id);
    clusterIds.push(created.id);
    for (const idea of cluster.ideas) {
      const author = people[1 + (cards.size % Math.max(1, people.length - 1))] ?? facilitator!;
      const card = await as<CardOutput>(author, 'POST', `${base}/cards`, {
        type: 'idea',
        title: idea.title,
        content: idea.content ?? '',
        parent: created.id,
        ...(idea.aside ? { aside: true } : {}),
      });
      cards.set(idea.title, card.id);
      const cardPath = `${base}/cards/${card.id}`;
      for (const vote of idea.votes ?? [])
        await as(people[vote.by]!, 'POST', `${cardPath}/votes`, { value: vote.value });
      for (const rating of idea.ratings ?? []) {
        await as(people[rating.by]!, 'POST', `${cardPath}/ratings`, {
          criterium_id: criteria[rating.criterion]!.id,
          value: rating.value,
        });
      }
      for (const comment of idea.comments ?? [])
        await as(people[comment.by]!, 'POST', `${cardPath}/comments`, { content: comment.content });
      for (const item of idea.items ?? []) {
        await as(people[item.by]!, 'POST', `${cardPath}/items`, {
          content: item.content,
          section_id: sectionIds[item.section]!,
        });
      }
    }
  }
  if (spec.zones.length > 0) {
    const canvas = await as<{ zones: Array<{ id: string }> }>(facilitator!, 'POST', `${base}/canvas`, {
      name: 'Board',
      background: { cols: 48, rows: 32 },
      zones: spec.zones,
    });
    for (const [index, zone] of canvas.zones.entries()) {
      if (clusterIds[index])
        await as(facilitator!, 'PUT', `${base}/canvas/zones/${zone.id}`, { cluster_id: clusterIds[index] });
    }
  }
  return { workshop, cards };
}

/** A small retrospective with something of everything: two criteria, votes, ratings, comments, items, zones. */
export const RETRO: SceneSpec = {
  title: 'Q4 retro',
  steps: [
    { name: 'Brainstorm', instructions: 'One idea per card.' },
    { name: 'Vote', instructions: 'Spend your points wisely.' },
  ],
  criteria: [
    { title: 'Impact', scale: 4 },
    { title: 'Effort', scale: 4 },
  ],
  sections: ['Next actions'],
  clusters: [
    {
      title: 'Process',
      color: 'yellow',
      ideas: [
        {
          title: 'Shorter standups',
          content: 'Ten minutes, standing.',
          votes: [
            { by: 1, value: 1 },
            { by: 2, value: 1 },
            { by: 2, value: 1 },
          ],
          ratings: [
            { by: 1, criterion: 0, value: 4 },
            { by: 2, criterion: 0, value: 2 },
            { by: 1, criterion: 1, value: 1 },
          ],
          comments: [{ by: 2, content: 'Yes please' }],
          items: [{ by: 0, section: 0, content: 'Try it for two weeks' }],
        },
        { title: '=HYPERLINK("http://evil.test")', votes: [{ by: 1, value: -1 }] },
      ],
    },
    {
      title: 'Tooling 工具',
      color: 'blue',
      ideas: [
        {
          title: 'Faster CI',
          ratings: [
            { by: 2, criterion: 0, value: 3 },
            { by: 2, criterion: 1, value: 3 },
          ],
          votes: [{ by: 1, value: 1 }],
        },
        { title: 'تحسين الأدوات', content: 'Arabic title', aside: true },
      ],
    },
  ],
  zones: [
    { name: 'Now', x: 0, y: 0, cols: 20, rows: 14 },
    { name: 'Later', x: 24, y: 0, cols: 20, rows: 14 },
  ],
};
