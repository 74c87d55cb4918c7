import type { Config } from '../../config';
import type { Database, Db } from '../../db/database';
import { AppError } from '../../http/errors';
import { lockUser } from '../../db/user-lock';
import { claimForWorkshop, uploadedBytesSince, uploadFreeingBytes, workshopStoredBytes } from './repo';
import { msg, type Message } from '../../i18n/messages';

/*
 * Upload limits (docs/api.md#files): what one person may upload in a day, and what one workshop's
 * files may hold in all. Both are counted in the `files` table, the service's one truth: a check
 * before the bytes are written refuses early, and the check that decides is made again in the
 * transaction that records the file, under row locks, so requests on any number of instances stop
 * at exactly the limit.
 */

export type UploadLimits = Pick<Config, 'uploadUserDailyMb' | 'uploadGuestDailyMb' | 'uploadWorkshopMb'>;

const MIB = 1024 * 1024;
const DAY_MS = 24 * 3600 * 1000;

/** Who uploads: their id, and whether they are a guest (a smaller daily allowance). */
export interface Uploader {
  id: string;
  guest: boolean;
}

/** The uploader's allowance in bytes for any 24 hours; 0 when unlimited. */
function dailyAllowance(limits: UploadLimits, uploader: Uploader): number {
  return (uploader.guest ? limits.uploadGuestDailyMb : limits.uploadUserDailyMb) * MIB;
}

/**
 * Refuses an upload of `size` bytes that would take the uploader past their allowance for the
 * last 24 hours: 429 `upload_quota_exceeded`, with `Retry-After` the seconds until enough of
 * those 24 hours' uploads are a day old for this one to fit (a whole day for a file larger than
 * the allowance itself: it never fits, and a day is when every earlier upload has stopped counting).
 */
export async function refuseBeyondDailyAllowance(
  db: Db,
  limits: UploadLimits,
  uploader: Uploader,
  size: number,
): Promise<void> {
  const allowance = dailyAllowance(limits, uploader);
  if (allowance === 0) return;
  const now = Date.now();
  const since = new Date(now - DAY_MS).toISOString();
  const used = await uploadedBytesSince(db, uploader.id, since);
  if (used + size <= allowance) return;
  const megabytes = allowance / MIB;
  if (size > allowance) {
    throw quotaExceeded(msg('error.uploads.file_over_daily', { megabytes }), DAY_MS / 1000);
  }
  const freedAt = await uploadFreeingBytes(db, uploader.id, since, used + size - allowance);
  const seconds = Math.max(1, Math.ceil(((freedAt ? Date.parse(freedAt) : now) + DAY_MS - now) / 1000));
  throw quotaExceeded(msg('error.uploads.daily_quota', { megabytes, seconds }), seconds);
}

function quotaExceeded(message: Message, seconds: number): AppError {
  return new AppError('upload_quota_exceeded', message, { headers: { 'Retry-After': String(seconds) } });
}

/** Refuses `size` more bytes in a workshop whose files would then hold more than its limit: 413 `workshop_storage_full`. */
export async function refuseBeyondWorkshopRoom(
  db: Db,
  limits: UploadLimits,
  workshopId: string,
  size: number,
): Promise<void> {
  const room = limits.uploadWorkshopMb * MIB;
  if (room === 0) return;
  if ((await workshopStoredBytes(db, workshopId)) + size <= room) return;
  throw new AppError(
    'workshop_storage_full',
    msg('error.uploads.workshop_full', { megabytes: limits.uploadWorkshopMb }),
  );
}

/**
 * The check that decides, in the transaction recording an upload: the workshop's row first (a
 * guest's upload counts against it), then the uploader's, the house's order of locks.
 */
export async function admitUpload(
  tx: Db,
  deps: { config: UploadLimits; database: Pick<Database, 'lockWorkshop'> },
  uploader: Uploader,
  upload: { size: number; workshopId: string | null },
): Promise<void> {
  const { config, database } = deps;
  if (upload.workshopId && config.uploadWorkshopMb > 0) await database.lockWorkshop(tx, upload.workshopId);
  if (dailyAllowance(config, uploader) > 0) {
    await lockUser(tx, uploader.id);
    await refuseBeyondDailyAllowance(tx, config, uploader, upload.size);
  }
  if (upload.workshopId) await refuseBeyondWorkshopRoom(tx, config, upload.workshopId, upload.size);
}

/**
 * Counts an upload against the workshop that now uses it (an attachment on its card, its step's
 * illustration), in that write's transaction, which holds the workshop's row: refused with 413
 * when the workshop has no room for it. An upload counting against a workshop already (a guest's,
 * or one used before) is not counted again.
 */
export async function countAgainstWorkshop(
  tx: Db,
  limits: UploadLimits,
  file: { id: string; size: number; workshopId: string | null },
  workshopId: string,
): Promise<void> {
  if (file.workshopId !== null) return;
  await refuseBeyondWorkshopRoom(tx, limits, workshopId, file.size);
  await claimForWorkshop(tx, file.id, workshopId);
}
