import * as v from 'valibot';
import type { Config, Plan } from '../../config';
import type { UserRow } from '../../http/env';
import { requiredText } from '../../http/validation';

export const PlanOutput = v.object({ name: v.string(), workshops_max_attendees: v.number() });

export const UserOutput = v.object({
  id: v.string(),
  email: v.string(),
  name: v.string(),
  avatar_url: v.nullable(v.string()),
  plan: PlanOutput,
  admin: v.boolean(),
  created_at: v.string(),
  confirmed_at: v.nullable(v.string()),
  updated_at: v.string(),
});
export type UserOutput = v.InferOutput<typeof UserOutput>;

/** Public face of a user inside other resources (event authors, notification senders). */
export const UserSummary = v.object({ id: v.string(), name: v.string(), avatar_url: v.nullable(v.string()) });

export const UpdateMeInput = v.object({
  display_name: v.optional(requiredText(200)),
  name: v.optional(requiredText(200)),
});
export type UpdateMeInput = v.InferOutput<typeof UpdateMeInput>;

export function planFor(config: Pick<Config, 'plans'>, name: string): Plan {
  return config.plans[name] ?? config.plans.free ?? { name, workshops_max_attendees: 100 };
}

export function toUser(row: UserRow, config: Pick<Config, 'plans'>): UserOutput {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    avatar_url: row.avatarUrl,
    plan: planFor(config, row.planName),
    admin: row.admin,
    created_at: row.createdAt,
    confirmed_at: row.confirmedAt,
    updated_at: row.updatedAt,
  };
}
