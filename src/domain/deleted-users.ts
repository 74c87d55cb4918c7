import { replaceRecords } from './payload-records';
import { DELETED_USER_NAME } from './users';

/*
 * Payloads written before an account was deleted (the event log's changes, their replays, webhook
 * messages still waiting) name it by id: read after the deletion, they show a deleted user instead
 * (docs/api.md#an-accounts-life). People appear in them two ways: as the author or owner of a
 * resource (`user_id`, with `name` beside it for a member), and as a person (`{id, name, …}`: a
 * notification's sender, a personal workshop's owner).
 */

/** The ids a payload may name people by: every `user_id`, and the `id` of anything with a `name`. */
export function userIdsNamedIn(payload: unknown): Set<string> {
  const ids = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (value === null || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    if (typeof record.user_id === 'string') ids.add(record.user_id);
    if (typeof record.id === 'string' && 'name' in record) ids.add(record.id);
    Object.values(record).forEach(walk);
  };
  walk(payload);
  return ids;
}

/**
 * The payload with the deleted accounts among `deleted` shown as a deleted user: `user_id: null`
 * (and the deleted user's name where a name goes with it), a person `{id: null, name: "Deleted
 * user"}` with no avatar. Parts that name none of them come back as they are.
 */
export function withoutDeletedUsers<T>(payload: T, deleted: ReadonlySet<string>): T {
  if (deleted.size === 0) return payload;
  return replaceRecords(payload, (record) => {
    if (typeof record.user_id === 'string' && deleted.has(record.user_id))
      return { ...record, user_id: null, ...('name' in record && { name: DELETED_USER_NAME }) };
    if (typeof record.id === 'string' && 'name' in record && deleted.has(record.id))
      return {
        ...record,
        id: null,
        name: DELETED_USER_NAME,
        ...('avatar_url' in record && { avatar_url: null }),
        ...('email' in record && { email: null }),
      };
    return null;
  });
}
