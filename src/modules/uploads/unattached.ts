import type { Config } from '../../config';
import { deleteUnattachedUploads } from './repo';
import { removeBlob, type StorageDeps } from './storage';

/** Uploads removed by one transaction of a sweep. */
const PAGE = 200;
/** Pages one sweep goes through at most: a backlog is worked off over several sweeps. */
const PAGES_PER_SWEEP = 10;

/**
 * Removes uploads attached to nothing (no attachment, no step illustration) once they are
 * `uploadUnattachedHours` old: an upload nobody attached is a file nobody can reach, and an
 * attachment removed leaves its upload behind. Each page's rows are deleted in one transaction,
 * their objects (folder or bucket) removed once it committed; an object whose removal failed, or
 * whose process died first, is left to the sweep of blobs without a row. Every instance sweeps:
 * two sweeps at once pass over each other's rows, and a row already gone is simply not found, so
 * nothing is removed twice. Answers how many uploads were removed.
 */
export async function sweepUnattachedUploads(
  deps: StorageDeps & { config: Pick<Config, 'uploadUnattachedHours'> },
  options: { now?: number } = {},
): Promise<number> {
  const before = new Date((options.now ?? Date.now()) - deps.config.uploadUnattachedHours * 3_600_000).toISOString();
  let removed = 0;
  for (let page = 0; page < PAGES_PER_SWEEP; page++) {
    const gone = await deps.database.transaction((tx) => deleteUnattachedUploads(tx, before, PAGE));
    for (const ref of gone) await removeBlob(deps.files, ref);
    removed += gone.length;
    if (gone.length < PAGE) break;
  }
  return removed;
}
