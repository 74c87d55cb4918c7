import * as v from 'valibot';

/** Section as the API returns it. */
export const SectionOutput = v.object({ id: v.string(), title: v.string() });
export type SectionOutput = v.InferOutput<typeof SectionOutput>;

/** The API's face of a section: the sections' own routes, the workshop and a card's detail show it alike. */
export function toSection(row: { id: string; title: string }): SectionOutput {
  return { id: row.id, title: row.title };
}
