import * as v from 'valibot';

/** Section as the API returns it. */
export const SectionOutput = v.object({ id: v.string(), title: v.string() });
export type SectionOutput = v.InferOutput<typeof SectionOutput>;
