import type { Config } from '../../config';
import type { Database } from '../../db/database';
import { ssoBars, type Caller } from '../../domain/permissions';
import type { UserRow } from '../../http/env';
import { StreamedArray } from '../../lib/streamed-json';
import { listSessions } from '../auth/sessions';
import { notificationsOf } from '../notifications/repo';
import { toNotification } from '../notifications/schemas';
import { toUser } from '../users/schemas';
import {
  apiTokensOf,
  identitiesOf,
  organizationRolesOf,
  workshopMembershipsOf,
  type ExportedWorkshopRow,
} from './repo';
import type { AccountFile } from './schemas';

/*
 * `account.json` (docs/api.md#your-data-export): what the account holds, never a secret (no
 * password or hash, no session token, no API token's secret or hash).
 */

/** Notifications are read this many at a time. */
const NOTIFICATIONS_PAGE = 500;

/**
 * The members of `account.json`, in the order of `AccountFile`: each read when the file reaches it,
 * the notifications a page at a time.
 */
export function accountMembers(
  deps: { config: Pick<Config, 'plans'>; database: Database },
  user: UserRow & Caller,
  currentSession: string,
  exportedAt: string,
  personal: Array<{ workshop: ExportedWorkshopRow; file: string }>,
): Record<keyof AccountFile, unknown> {
  const { db } = deps.database;
  return {
    format: 'account-export',
    version: 1,
    exported_at: exportedAt,
    profile: toUser(user, deps.config),
    sign_in: async () => ({
      password: user.passwordHash !== null,
      identities: (await identitiesOf(db, user.id)).map((identity) => ({
        issuer: identity.issuer,
        subject: identity.subject,
        email: identity.email,
        created_at: identity.createdAt,
      })),
    }),
    organizations: async () =>
      (await organizationRolesOf(db, user.id)).map((org) => ({
        id: org.id,
        name: org.name,
        role: org.role,
        joined_at: org.joinedAt,
      })),
    personal_workshops: personal.map(({ workshop, file }) => ({
      id: workshop.id,
      title: workshop.title,
      created_at: workshop.createdAt,
      file,
    })),
    // As the workshop list: less those single sign-on keeps this session out of.
    workshop_memberships: async () =>
      (await workshopMembershipsOf(db, user.id))
        .filter((membership) => !ssoBars(user, membership))
        .map((membership) => ({
          workshop_id: membership.id,
          title: membership.title,
          organization_id: membership.ownerType === 'organization' ? membership.ownerId : null,
          personal: membership.ownerType === 'user',
          role: membership.role,
          joined_at: membership.joinedAt,
        })),
    sessions: () => listSessions(deps, user.id, currentSession),
    api_tokens: async () =>
      (await apiTokensOf(db, user.id)).map((token) => ({
        id: token.id,
        name: token.name,
        organization_id: token.organizationId,
        scopes: token.scopes,
        prefix: token.prefix,
        created_at: token.createdAt,
        expires_at: token.expiresAt,
        last_used_at: token.lastUsedAt,
        revoked_at: token.revokedAt,
      })),
    notifications: new StreamedArray(async function* () {
      for (let offset = 0; ; offset += NOTIFICATIONS_PAGE) {
        const page = await notificationsOf(db, user.id, NOTIFICATIONS_PAGE, offset);
        yield* page.map(toNotification);
        if (page.length < NOTIFICATIONS_PAGE) return;
      }
    }),
  };
}
