import { parentPort } from 'node:worker_threads';
import { openReaderStore } from '../../db/store';
import { isUnavailable } from '../../db/errors';
import { openFileStore, type FileStoreSettings } from '../../files/open';
import { FileStoreUnavailable } from '../../files/store';
import { objectName } from '../uploads/storage';
import { preloadRenderers, renderExport } from './render';
import type { ExportJob, ExportJobResult } from './job-messages';

/*
 * The export worker thread: reads the workshop on its own read-only connection, renders it and
 * writes the file to the store (the folder or the bucket, through a client of its own), so none of
 * that runs on the thread answering requests. One job at a time.
 */

/**
 * One store per setting, opened on first use and shared by the jobs after it. One that could not
 * be opened (the database away) is opened again for the next job.
 */
function openedOnce<S, T>(
  keyOf: (settings: S) => string,
  open: (settings: S) => Promise<T>,
): (settings: S) => Promise<T> {
  const opened = new Map<string, Promise<T>>();
  return (settings) => {
    const key = keyOf(settings);
    let store = opened.get(key);
    if (!store) {
      store = open(settings);
      opened.set(key, store);
      store.catch(() => opened.delete(key));
    }
    return store;
  };
}

const readerFor = openedOnce(
  (job: ExportJob) => job.databaseUrl ?? job.databasePath,
  (job) => openReaderStore(job),
);
const storeFor = openedOnce(
  (settings: FileStoreSettings) => JSON.stringify([settings.filesDir, settings.filesUrl, settings.s3]),
  openFileStore,
);

async function run(job: ExportJob): Promise<ExportJobResult> {
  try {
    const rendered = await renderExport(await readerFor(job), job.workshopId, job.type);
    if (!rendered) return { id: job.id, ok: false, message: 'The workshop no longer exists.' };
    const files = await storeFor(job.files);
    await files.put(objectName(job.file), rendered.data, { contentType: rendered.mimetype });
    return {
      id: job.id,
      ok: true,
      size: rendered.data.byteLength,
      mimetype: rendered.mimetype,
      extension: rendered.extension,
    };
  } catch (err) {
    // A brief outage is no reason to fail the export for good: the runner leaves it for its lease.
    const away = isUnavailable(err) || err instanceof FileStoreUnavailable;
    console.error(
      `[exports] ${job.type} export ${job.id} failed${away ? '; it is tried again after its lease' : ''}`,
      err,
    );
    // Whatever a write that failed part way left under the name, the runner removes.
    return {
      id: job.id,
      ok: false,
      message: `The ${job.type} file could not be made.`,
      ...(away ? { retry: true } : {}),
    };
  }
}

preloadRenderers().catch((err) => console.error('[exports] loading the renderers failed', err));

parentPort?.on('message', (job: ExportJob) => {
  void run(job).then((result) => parentPort?.postMessage(result));
});
