import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CardOutput } from '../src/domain/cards';
import { CARD_COLORS } from '../src/domain/cards';
import type { ExportOutput } from '../src/domain/events';
import type { WorkshopOutput } from '../src/domain/workshops';
import { useServer, useUsers } from './helpers/cast';
import { requestsOn } from './helpers/requests';
import { until } from './helpers/wait';

const t = useServer();
const [fay] = useUsers(t, 'Fay');

const request = requestsOn(t);
/** Fay's request, which must succeed. */
const as = <T>(method: string, path: string, body?: unknown) => request<T>(fay!, method, path, body);

async function csvExport(workshopId: string): Promise<Blob> {
  const created = await as<ExportOutput>('POST', `/v1/workshops/${workshopId}/exports`, { type: 'csv' });
  let current = created;
  await until(
    async () => {
      current = await as<ExportOutput>('GET', `/v1/workshops/${workshopId}/exports/${created.id}`);
      return current.state !== 'pending';
    },
    'the CSV export',
    20_000,
  );
  expect(current.state, current.message ?? '').toBe('success');
  return (await fetch(current.url!)).blob();
}

/** The cards as the board shows them: clusters in order, each with its ideas in order. */
async function board(workshopId: string) {
  const list = await as<CardOutput[]>('GET', `/v1/workshops/${workshopId}/cards`);
  const clusters = list.filter((c) => c.type === 'cluster').sort((a, b) => a.position - b.position);
  return clusters.map((cluster) => ({
    title: cluster.title,
    color: cluster.color,
    aside: cluster.aside,
    ideas: list
      .filter((c) => c.parent === cluster.id)
      .sort((a, b) => a.position - b.position)
      .map((idea) => ({ title: idea.title, content: idea.content, aside: idea.aside })),
  }));
}

describe('CSV export → PUT …/cards', () => {
  it('imports back into the same cards, for random workshops', async () => {
    // Text as people type it, formula-looking starts and CSV's own characters included.
    const text = fc
      .tuple(
        fc.constantFrom('', '=', '+', '-', '@', "'", "'=", '"', ','),
        fc.string({ minLength: 1, maxLength: 20, unit: 'grapheme' }),
      )
      .map(([start, rest]) => `${start}${rest}`.replace(/\r/g, '').trim())
      .filter((s) => s.length > 0);
    const idea = fc.record({ title: text, content: fc.oneof(fc.constant(''), text), aside: fc.boolean() });
    const clusters = fc.uniqueArray(
      fc.record({
        title: text,
        color: fc.constantFrom(...CARD_COLORS),
        aside: fc.boolean(),
        ideas: fc.array(idea, { maxLength: 4 }),
      }),
      {
        maxLength: 4,
        selector: (c) => c.title,
      },
    );
    await fc.assert(
      fc.asyncProperty(clusters, async (spec) => {
        const source = await as<WorkshopOutput>('POST', '/v1/workshops', { title: 'Source' });
        for (const cluster of spec) {
          const made = await as<CardOutput>('POST', `/v1/workshops/${source.id}/cards`, {
            type: 'cluster',
            title: cluster.title,
            color: cluster.color,
            aside: cluster.aside,
          });
          for (const item of cluster.ideas)
            await as('POST', `/v1/workshops/${source.id}/cards`, { type: 'idea', parent: made.id, ...item });
        }
        const csv = await csvExport(source.id);
        const target = await as<WorkshopOutput>('POST', '/v1/workshops', { title: 'Target' });
        const form = new FormData();
        form.append('file', csv, 'export.csv');
        const imported = await t.request('PUT', `/v1/workshops/${target.id}/cards`, {
          token: fay.token,
          rawBody: form,
        });
        expect(imported.status, JSON.stringify(imported.body)).toBe(200);
        expect(await board(target.id)).toEqual(await board(source.id));
      }),
      { numRuns: 15, seed: 1123 },
    );
  });
});
