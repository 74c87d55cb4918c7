import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { nowIso } from '../../db/columns';
import type { Database } from '../../db/database';
import { ssoBars, type Caller } from '../../domain/permissions';
import type { UserRow } from '../../http/env';
import { StreamedArray, streamedJsonObject } from '../../lib/streamed-json';
import type { Config } from '../../config';
import { budget } from '../../config-limits';
import { AppError } from '../../http/errors';
import type { Limiters } from '../../lib/limiters';
import { listSessions } from '../auth/sessions';
import { renderExport } from '../exports/render';
import { notificationsOf } from '../notifications/repo';
import { toNotification } from '../notifications/schemas';
import { toUser } from '../users/schemas';
import {
  apiTokensOf,
  contributedWorkshopsOf,
  contributionsIn,
  identitiesOf,
  organizationNames,
  organizationRolesOf,
  personalWorkshopsOf,
  workshopMembershipsOf,
  type Contributions,
  type ExportedWorkshopRow,
} from './repo';
import {
  ACCOUNT_FILE,
  CONTRIBUTIONS_FILE,
  WORKSHOPS_FOLDER,
  type AccountFile,
  type ContributedWorkshop,
} from './schemas';

/*
 * GET /v1/user/me/export (docs/api.md#your-data-export): everything the service holds about a
 * person, as a ZIP written to the response while it is made. Each file is read when the archive
 * reaches it, a workshop at a time, each workshop on a snapshot of its own that ends before its
 * bytes are written: a reader that stops reading holds no database lock, and the memory held is
 * one workshop's, however many there are.
 */

interface ExportDeps {
  config: Pick<Config, 'plans' | 'dataExportsPer10Minutes'>;
  database: Database;
  attempts: Limiters;
}

export interface AccountArchive {
  /** `<name> data export <date>.zip`. */
  filename: string;
  body: ReadableStream<Uint8Array>;
}

/** Notifications are read this many at a time. */
const NOTIFICATIONS_PAGE = 500;

/**
 * The archive of `user`'s data, asked for with the session `currentSession` (marked `current`
 * among the sessions); `DATA_EXPORTS_PER_10_MINUTES` of them per user (429 beyond). The workshops it holds are listed before the answer starts, so a database
 * away answers 503; a failure later cuts the download short (the ZIP then lacks its directory, and
 * no reader takes it for whole).
 */
export async function exportAccount(
  deps: ExportDeps,
  user: UserRow & Caller,
  currentSession: string,
): Promise<AccountArchive> {
  const seconds = await deps.attempts
    .limiter({ name: 'data-exports', ...budget(deps.config, 'dataExportsPer10Minutes') })
    .take(user.id);
  if (seconds !== null) {
    throw new AppError(
      'rate_limited',
      `At most ${deps.config.dataExportsPer10Minutes} data exports in 10 minutes; try again in ${seconds} s.`,
      { headers: { 'Retry-After': String(seconds) } },
    );
  }
  const { db } = deps.database;
  const exportedAt = nowIso();
  const personal = (await personalWorkshopsOf(db, user.id)).map((workshop) => ({
    workshop,
    file: nativeFileName(workshop),
  }));
  const contributed = await contributedWorkshopsOf(db, user.id);
  const owners = await organizationNames(db, [
    ...new Set(contributed.filter((w) => w.ownerType === 'organization').map((w) => w.ownerId)),
  ]);
  const readable = contributed.filter((workshop) => !ssoBars(user, workshop));
  const withheld = [...new Set(contributed.filter((workshop) => ssoBars(user, workshop)).map((w) => w.ownerId))];

  const zip = new ZipFile();
  const output = zip.outputStream as Readable;
  const entry = { mtime: new Date(exportedAt) };
  let current: Readable | undefined;
  /** Adds a file whose text `chunks` makes, started only when the archive reaches it. */
  const addLazily = (name: string, chunks: () => AsyncIterable<string | Uint8Array>) =>
    zip.addReadStreamLazy(name, entry, (ready) => {
      current = Readable.from(chunks(), { objectMode: false });
      current.once('error', (err) => {
        console.error(`[account export] writing ${name} for user ${user.id} failed`, err);
        output.destroy(err);
      });
      ready(null, current);
    });
  // A reader that went away: the file being read ends (its generator returns), nothing more is read.
  output.once('close', () => current?.destroy());

  addLazily(ACCOUNT_FILE, () => streamedJsonObject(accountMembers(deps, user, currentSession, exportedAt, personal)));
  for (const { workshop, file } of personal) addLazily(file, () => nativeFile(deps.database, workshop.id));
  addLazily(CONTRIBUTIONS_FILE, () =>
    streamedJsonObject({
      format: 'account-contributions',
      version: 1,
      exported_at: exportedAt,
      user_id: user.id,
      workshops: new StreamedArray(() => contributionsOf(deps.database, user.id, readable, owners)),
      withheld_organizations: withheld.map((id) => ({ id, name: owners.get(id) ?? '' })),
    }),
  );
  zip.end();
  return { filename: archiveName(user.name, exportedAt), body: Readable.toWeb(output) as ReadableStream<Uint8Array> };
}

/**
 * The members of `account.json`, in the order of `AccountFile`: each read when the file reaches it,
 * the notifications a page at a time.
 */
function accountMembers(
  deps: ExportDeps,
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

/** The native export of one personal workshop (docs/api.md#exports), as `POST /v1/workshops` takes it back. */
async function* nativeFile(database: Database, workshopId: string): AsyncGenerator<Uint8Array | string> {
  const rendered = await renderExport(database, workshopId, 'native');
  // Deleted while the archive was being written.
  yield rendered ? rendered.data : 'null\n';
}

/** What the user wrote in each workshop, a workshop at a time. */
async function* contributionsOf(
  database: Database,
  userId: string,
  workshops: readonly ExportedWorkshopRow[],
  owners: ReadonlyMap<string, string>,
): AsyncGenerator<ContributedWorkshop> {
  for (const workshop of workshops) {
    const rows = await database.snapshot((db) => contributionsIn(db, workshop.id, userId));
    yield contributedWorkshop(workshop, owners, rows);
  }
}

function contributedWorkshop(
  workshop: ExportedWorkshopRow,
  owners: ReadonlyMap<string, string>,
  rows: Contributions,
): ContributedWorkshop {
  return {
    workshop: {
      id: workshop.id,
      title: workshop.title,
      created_at: workshop.createdAt,
      organization:
        workshop.ownerType === 'organization'
          ? { id: workshop.ownerId, name: owners.get(workshop.ownerId) ?? '' }
          : null,
    },
    role: rows.role,
    cards: rows.cards.map((card) => ({
      id: card.id,
      short_id: card.number,
      type: card.type,
      title: card.title,
      content: card.content,
      color: card.color,
      aside: card.aside,
      parent_id: card.parentId,
      author_visibility: card.authorVisibility,
      created_at: card.createdAt,
      updated_at: card.updatedAt,
    })),
    comments: rows.comments.map((comment) => ({
      id: comment.id,
      card_id: comment.cardId,
      content: comment.content,
      author_visibility: comment.authorVisibility,
      created_at: comment.createdAt,
    })),
    votes: rows.votes.map((vote) => ({
      id: vote.id,
      card_id: vote.cardId,
      value: vote.value,
      created_at: vote.createdAt,
    })),
    ratings: rows.ratings.map(({ rating, criterion }) => ({
      id: rating.id,
      card_id: rating.cardId,
      criterium_id: rating.criteriumId,
      criterion,
      value: rating.value,
      created_at: rating.createdAt,
    })),
    items: rows.items.map(({ item, section }) => ({
      id: item.id,
      card_id: item.cardId,
      section_id: item.sectionId,
      section,
      content: item.content,
      author_visibility: item.authorVisibility,
      created_at: item.createdAt,
    })),
    attachments: rows.attachments.map((attachment) => ({
      id: attachment.id,
      card_id: attachment.cardId,
      name: attachment.name,
      mimetype: attachment.mimetype,
      size: attachment.size,
      author_visibility: attachment.authorVisibility,
      created_at: attachment.createdAt,
    })),
  };
}

/** `workshops/<title, in plain letters>-<id>.json`: readable, and unique by the id. */
function nativeFileName(workshop: Pick<ExportedWorkshopRow, 'id' | 'title'>): string {
  const slug = workshop.title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${WORKSHOPS_FOLDER}/${slug ? `${slug}-` : ''}${workshop.id}.json`;
}

/** `<name> data export <date>.zip`, without the characters file systems refuse. */
function archiveName(name: string, exportedAt: string): string {
  const refused = (ch: string) => ch < ' ' || ch === '\u007f' || '/\\:*?"<>|'.includes(ch);
  const safe =
    [...name]
      .map((ch) => (refused(ch) ? '_' : ch))
      .join('')
      .trim() || 'account';
  return `${safe} data export ${exportedAt.slice(0, 10)}.zip`;
}
