import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { Config } from '../../config';
import { budget } from '../../config-limits';
import { nowIso } from '../../db/columns';
import type { Database } from '../../db/database';
import { ssoBars, type Caller } from '../../domain/permissions';
import type { UserRow } from '../../http/env';
import { AppError } from '../../http/errors';
import type { Limiters } from '../../lib/limiters';
import { streamedJsonObject } from '../../lib/streamed-json';
import { renderExport } from '../exports/render';
import { accountMembers } from './account-file';
import { contributionsMembers } from './contributions-file';
import { contributedWorkshopsOf, organizationNames, personalWorkshopsOf, type ExportedWorkshopRow } from './repo';
import { ACCOUNT_FILE, CONTRIBUTIONS_FILE, WORKSHOPS_FOLDER } from './schemas';
import { msg } from '../../i18n/messages';

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

/**
 * The archive of `user`'s data, asked for with the session `currentSession` (marked `current`
 * among the sessions); `DATA_EXPORTS_PER_10_MINUTES` of them per user (429 beyond). The workshops
 * it holds are listed before the answer starts, so a database away answers 503; a failure later
 * cuts the download short (the ZIP then lacks its directory, and no reader takes it for whole).
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
      msg('error.account.exports_rate', { max: deps.config.dataExportsPer10Minutes, seconds }),
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
  // What the ZIP writer itself finds wrong ends the download the same way.
  zip.on('error', (err: Error) => output.destroy(err));

  addLazily(ACCOUNT_FILE, () => streamedJsonObject(accountMembers(deps, user, currentSession, exportedAt, personal)));
  for (const { workshop, file } of personal) addLazily(file, () => nativeFile(deps.database, workshop.id));
  addLazily(CONTRIBUTIONS_FILE, () =>
    streamedJsonObject(contributionsMembers(deps.database, user.id, exportedAt, { readable, withheld, owners })),
  );
  zip.end();
  return { filename: archiveName(user.name, exportedAt), body: Readable.toWeb(output) as ReadableStream<Uint8Array> };
}

/** The native export of one personal workshop (docs/api.md#exports), as `POST /v1/workshops` takes it back. */
async function* nativeFile(database: Database, workshopId: string): AsyncGenerator<Uint8Array | string> {
  const rendered = await renderExport(database, workshopId, 'native');
  // Deleted while the archive was being written.
  yield rendered ? rendered.data : 'null\n';
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
