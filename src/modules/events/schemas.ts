import * as v from 'valibot';
import type { Config } from '../../config';
import type { Schema } from '../../db/database';
import type { UserRow } from '../../http/env';
import { PageQuery } from '../../http/pagination';
import { deletedUser, DeletedUserOutput, OtherUserOutput, toOtherUser } from '../users/schemas';
import { said } from '../../i18n/valibot';

export type EventRow = Schema['events']['$inferSelect'];

export const EventOutput = v.object({
  id: v.string(),
  /** The change's number in the workshop, the `seq` its live events carry. */
  seq: v.number(),
  action: v.string(),
  date: v.string(),
  /** The resource under its singular name (`{card: {...}}`), plus `changes: {field: [old, new]}` for updates. */
  change: v.record(v.string(), v.unknown()),
  /**
   * The member who made the change (without their locale and time zone, which are theirs alone);
   * `{id: null, name: "Deleted user"}` once that account is deleted
   * (docs/api.md#an-accounts-life); null when anonymous.
   */
  user: v.nullable(v.union([OtherUserOutput, DeletedUserOutput])),
  /**
   * The API token the change was made with (docs/api.md#events), `user` being the account
   * it acted as; null for a change made in a person's session.
   */
  api_token: v.nullable(v.object({ id: v.string(), name: v.string() })),
});
export type EventOutput = v.InferOutput<typeof EventOutput>;

const ACTION_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** `filters` is a comma-separated list of action names; blanks around names are ignored, and an empty list filters nothing. */
export const EventsQuery = v.object({
  filters: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(4000),
      v.transform((s) => [
        ...new Set(
          s
            .split(',')
            .map((name) => name.trim())
            .filter(Boolean),
        ),
      ]),
      v.check((names) => names.length <= 100, said('error.validation.actions_max', { max: 100 })),
      v.check((names) => names.every((name) => ACTION_NAME.test(name)), said('error.validation.actions_list')),
      v.transform((names) => (names.length > 0 ? names : undefined)),
    ),
  ),
  ...PageQuery,
});

export function toEvent(
  row: EventRow,
  user: UserRow | null,
  apiToken: { id: string; name: string } | null,
  config: Pick<Config, 'plans'>,
): EventOutput {
  return {
    id: row.id,
    seq: row.seq,
    action: row.action,
    date: row.createdAt,
    change: row.change,
    user: user ? (user.deletedAt === null ? toOtherUser(user, config) : deletedUser()) : null,
    api_token: apiToken,
  };
}
