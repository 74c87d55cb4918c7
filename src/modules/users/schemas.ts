import * as v from 'valibot';
import type { Config, Plan } from '../../config';
import type { UserRow } from '../../http/env';
import { requiredText } from '../../http/validation';
import { DELETED_USER_NAME, PlanOutput } from '../../domain/users';
import { LanguageInput, TimeZoneInput } from '../../domain/languages';

export const UserOutput = v.object({
  id: v.string(),
  /** Null for a guest (docs/api.md#guests). */
  email: v.nullable(v.string()),
  name: v.string(),
  /** Joined a workshop with its code and a name only, until they sign up. */
  guest: v.boolean(),
  avatar_url: v.nullable(v.string()),
  plan: PlanOutput,
  admin: v.boolean(),
  /** The language of the console and of mails to them (docs/api.md#languages-and-time-zones). */
  locale: v.string(),
  /** Their IANA time zone, canonical: their times, and their daily digest at 07:00 there. */
  time_zone: v.string(),
  created_at: v.string(),
  confirmed_at: v.nullable(v.string()),
  updated_at: v.string(),
});
export type UserOutput = v.InferOutput<typeof UserOutput>;

/**
 * A deleted account where a person is named (docs/api.md#an-accounts-life): no id, and the name
 * "Deleted user".
 */
export const DeletedUserOutput = v.object({
  // Always null; typed as a nullable string because openapi-fetch's reading of an answer drops a
  // member whose only type is null, and the SDK's clients would lose it.
  id: v.nullable(v.string()),
  name: v.string(),
});
export type DeletedUserOutput = v.InferOutput<typeof DeletedUserOutput>;

export const deletedUser = (): DeletedUserOutput => ({ id: null, name: DELETED_USER_NAME });

/** Public face of a user inside other resources (notification senders, presence). */
export const UserSummary = v.object({
  id: v.string(),
  name: v.string(),
  avatar_url: v.nullable(v.string()),
  guest: v.boolean(),
});
export type UserSummary = v.InferOutput<typeof UserSummary>;

export function toUserSummary(row: Pick<UserRow, 'id' | 'name' | 'avatarUrl' | 'guest'>): UserSummary {
  return { id: row.id, name: row.name, avatar_url: row.avatarUrl, guest: row.guest };
}

/** A guest's name: 1..60 characters after trimming (docs/api.md#guests), at joining and at renaming. */
export const GUEST_NAME_MAX = 60;

/** Members left out keep their value; at least one is needed. */
export const UpdateMeInput = v.object({
  display_name: v.optional(requiredText(200)),
  name: v.optional(requiredText(200)),
  locale: v.optional(LanguageInput),
  time_zone: v.optional(TimeZoneInput),
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
    guest: row.guest,
    avatar_url: row.avatarUrl,
    plan: planFor(config, row.planName),
    admin: row.admin,
    locale: row.locale,
    time_zone: row.timeZone,
    created_at: row.createdAt,
    confirmed_at: row.confirmedAt,
    updated_at: row.updatedAt,
  };
}

/**
 * A user as other people read them (an event's author): the User without the settings that are
 * theirs alone, locale and time zone (docs/api.md#languages-and-time-zones).
 */
export const OtherUserOutput = v.omit(UserOutput, ['locale', 'time_zone']);
export type OtherUserOutput = v.InferOutput<typeof OtherUserOutput>;

export function toOtherUser(row: UserRow, config: Pick<Config, 'plans'>): OtherUserOutput {
  const { locale: _locale, time_zone: _timeZone, ...seen } = toUser(row, config);
  return seen;
}
