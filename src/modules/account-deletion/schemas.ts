import * as v from 'valibot';

/** `password` is the account's; an account without one sends none (it needs a fresh sign-in instead). */
export const AccountDeletionInput = v.object({
  password: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(1024))),
});
export type AccountDeletionInput = v.InferOutput<typeof AccountDeletionInput>;

const Named = v.object({ id: v.string(), name: v.string() });
const Titled = v.object({ id: v.string(), title: v.string() });

/**
 * What deleting the account would do now (docs/api.md#an-accounts-life), for the console's
 * confirmation: the deletion follows the same plan, read again in its own transaction.
 */
export const AccountDeletionPreview = v.object({
  /** Personal workshops with no other facilitator: they go, with their files and exports. */
  workshops_deleted: v.array(Titled),
  /** Personal workshops with another facilitator: they pass to the one of longest standing. */
  workshops_passed_on: v.array(v.object({ id: v.string(), title: v.string(), to: Named })),
  /** Organizations the account leaves; their workshops stay theirs. */
  organizations_left: v.array(Named),
  /** Organizations where the account is alone, with no workshop: they go with it. */
  organizations_deleted: v.array(Named),
  /** Organizations it is the only admin of, with other members or workshops: the deletion is refused (409 `last_admin`) while any is listed. */
  last_admin_of: v.array(Named),
  sessions: v.number(),
  api_tokens: v.number(),
  notifications: v.number(),
  /** The deletion asks for the password. */
  password_required: v.boolean(),
  /** The account has no password and its session was not opened in the last 10 minutes: sign in again first. */
  reauthentication_required: v.boolean(),
});
export type AccountDeletionPreview = v.InferOutput<typeof AccountDeletionPreview>;
