import { CONTAINERS, recordedKeys, removeBlob, isSafeRef, type StorageDeps } from './storage';

/** A blob with no `files` row, older than this, is on its way to no row: a stray. */
const STRAY_AFTER_MS = 10 * 60_000;
/** Objects looked at by one sweep: one listing and one query. */
const SWEEP_PAGE = 1_000;

/**
 * Removes blobs of `container` no `files` row refers to: what a write left when its process died
 * between the blob and the row, when the row could not be written and removing the blob failed,
 * or when the commit was in doubt (the blob is kept then: the row may be there) and did not
 * happen; an export render whose outcome could not be recorded too. Recent ones may still be on
 * their way to being recorded. One sweep looks at one page of the container, starting after
 * `after`; `next` is where the following sweep goes on (undefined once the last page was seen:
 * start again), so every blob is reached however many recorded ones sort before it.
 */
export async function sweepStrayBlobs(
  deps: StorageDeps,
  container: string,
  options: { after?: string; now?: number } = {},
): Promise<{ removed: number; next: string | undefined }> {
  const now = options.now ?? Date.now();
  const objects = await deps.files.list(`${container}/`, SWEEP_PAGE, options.after);
  const old = objects
    .filter((object) => now - object.modifiedAt.getTime() >= STRAY_AFTER_MS)
    .map((object) => ({ container, key: object.name.slice(container.length + 1) }))
    .filter(isSafeRef);
  const recorded = await recordedKeys(
    deps.database.db,
    container,
    old.map((ref) => ref.key),
  );
  let removed = 0;
  for (const ref of old) {
    if (recorded.has(ref.key)) continue;
    await removeBlob(deps.files, ref);
    removed += 1;
  }
  return { removed, next: objects.length < SWEEP_PAGE ? undefined : objects.at(-1)!.name };
}

/** Where the sweeps of every container stand: the container swept next, and the page within it. */
export interface SweepCursor {
  container: number;
  after: string | undefined;
}

/** Sweeps one page, then moves the cursor on: through a container's pages, then to the next container. */
export async function sweepNextPage(deps: StorageDeps, cursor: SweepCursor): Promise<SweepCursor> {
  const { next } = await sweepStrayBlobs(deps, CONTAINERS[cursor.container]!, { after: cursor.after });
  return next === undefined
    ? { container: (cursor.container + 1) % CONTAINERS.length, after: undefined }
    : { container: cursor.container, after: next };
}
