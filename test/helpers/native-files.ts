import { expect } from 'vitest';
import type { ExportOutput } from '../../src/domain/events';
import type { NativeDocument } from '../../src/modules/exports/native-schema';
import type { TestUser } from './factories';
import type { TestServer } from './server';
import { until } from './wait';

/*
 * Native files (docs/api.md#exports): made through the exports routes, and compared for what they
 * hold rather than for the ids an import gives anew.
 */

/** Asks for the workshop's native export and waits until it is made. */
export async function nativeExport(t: TestServer, user: TestUser, workshopId: string): Promise<ExportOutput> {
  const created = await t.request<ExportOutput>('POST', `/v1/workshops/${workshopId}/exports`, {
    token: user.token,
    body: { type: 'native' },
  });
  expect(created.status).toBe(201);
  let current = created.body;
  await until(
    async () => {
      current = (
        await t.request<ExportOutput>('GET', `/v1/workshops/${workshopId}/exports/${created.body.id}`, {
          token: user.token,
        })
      ).body;
      return current.state !== 'pending';
    },
    'the native export',
    20_000,
  );
  expect(current.state, current.message ?? '').toBe('success');
  return current;
}

/** The workshop's native export, read through its signed link. */
export async function nativeOf(t: TestServer, user: TestUser, workshopId: string): Promise<NativeDocument> {
  const made = await nativeExport(t, user, workshopId);
  return (await (await fetch(made.url!)).json()) as NativeDocument;
}

/**
 * The document with its ids replaced by what they stand for (cards by short id, the rest by
 * place), and what an import may change (the workshop's own id, times of the export) left out.
 */
export function comparable(doc: NativeDocument) {
  const names = new Map<string, string>();
  doc.cards.forEach((c) => names.set(c.id, `card#${c.short_id}`));
  doc.steps.forEach((s, i) => names.set(s.id, `step#${i}`));
  doc.criteria.forEach((c, i) => names.set(c.id, `criterion#${i}`));
  doc.sections.forEach((s, i) => names.set(s.id, `section#${i}`));
  doc.canvas?.zones.forEach((z, i) => names.set(z.id, `zone#${i}`));
  const name = (id: string | null) => (id === null ? null : (names.get(id) ?? `unknown:${id}`));
  const view = (v: NativeDocument['workshop']['view']) => ({
    ...v,
    card: name(v.card ?? null),
    sort_criterium_id: name(v.sort_criterium_id ?? null),
    show_cluster_ids: (v.show_cluster_ids ?? []).map(name),
  });
  const sorted = <T>(rows: T[]) => rows.map((r) => JSON.stringify(r)).sort();
  const { id: _id, created_at: _created, state: _state, ...workshop } = doc.workshop;
  return {
    workshop: { ...workshop, view: view(workshop.view), current_step_id: name(workshop.current_step_id) },
    users: sorted(doc.users),
    steps: doc.steps.map((s) => ({ ...s, id: name(s.id), view: view(s.view) })),
    criteria: doc.criteria.map((c) => ({ ...c, id: name(c.id) })),
    sections: doc.sections.map((s) => ({ ...s, id: name(s.id) })),
    cards: doc.cards.map((c) => ({ ...c, id: name(c.id), parent_id: name(c.parent_id) })),
    votes: sorted(doc.votes.map((r) => ({ ...r, card_id: name(r.card_id) }))),
    ratings: sorted(doc.ratings.map((r) => ({ ...r, card_id: name(r.card_id), criterium_id: name(r.criterium_id) }))),
    items: sorted(doc.items.map((r) => ({ ...r, card_id: name(r.card_id), section_id: name(r.section_id) }))),
    comments: sorted(doc.comments.map((r) => ({ ...r, card_id: name(r.card_id) }))),
    canvas: doc.canvas && {
      ...doc.canvas,
      document: undefined,
      zones: doc.canvas.zones.map((z) => ({ ...z, id: name(z.id), cluster_id: name(z.cluster_id) })),
    },
  };
}
