import * as v from 'valibot';
import { PlanOutput } from './users';

/** What a workshop shows of its owner, an organization or a person. */
export const OwnerSummaryOutput = v.object({
  id: v.string(),
  name: v.string(),
  avatar_url: v.nullable(v.string()),
  plan: PlanOutput,
});

export const OrganizationOutput = v.object({
  ...OwnerSummaryOutput.entries,
  /** Members' password sessions are refused on its routes and workshops (docs/integrations.md#single-sign-on). */
  sso_required: v.boolean(),
});
export type OrganizationOutput = v.InferOutput<typeof OrganizationOutput>;
