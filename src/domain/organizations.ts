import * as v from 'valibot';
import { PlanOutput } from './users';

export const OrganizationOutput = v.object({
  id: v.string(),
  name: v.string(),
  avatar_url: v.nullable(v.string()),
  plan: PlanOutput,
});
export type OrganizationOutput = v.InferOutput<typeof OrganizationOutput>;
