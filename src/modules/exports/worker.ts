import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parentPort } from 'node:worker_threads';
import type { Database } from '../../db/database';
import { openReaderStore } from '../../db/store';
import { filePath } from '../uploads/storage';
import { preloadRenderers, renderExport } from './render';
import type { ExportJob, ExportJobResult } from './job-messages';

/*
 * The export worker thread: reads the workshop on its own read-only connection, renders it and
 * writes the file, so none of that runs on the thread answering requests. One job at a time.
 */

const readers = new Map<string, Promise<Database>>();

function readerFor(job: ExportJob): Promise<Database> {
  const key = job.databaseUrl ?? job.databasePath;
  let reader = readers.get(key);
  if (!reader) {
    reader = openReaderStore(job);
    readers.set(key, reader);
    // A store that could not be opened (the database away) is opened again for the next job.
    reader.catch(() => readers.delete(key));
  }
  return reader;
}

async function run(job: ExportJob): Promise<ExportJobResult> {
  const path = filePath({ filesDir: job.filesDir }, job.file);
  try {
    const rendered = await renderExport(await readerFor(job), job.workshopId, job.type);
    if (!rendered) return { id: job.id, ok: false, message: 'The workshop no longer exists.' };
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, rendered.data, { flag: 'wx' });
    return { id: job.id, ok: true, size: rendered.data.byteLength, mimetype: rendered.mimetype, extension: rendered.extension };
  } catch (err) {
    rmSync(path, { force: true });
    console.error(`[exports] ${job.type} export ${job.id} failed`, err);
    return { id: job.id, ok: false, message: `The ${job.type} file could not be made.` };
  }
}

preloadRenderers().catch((err) => console.error('[exports] loading the renderers failed', err));

parentPort?.on('message', (job: ExportJob) => {
  void run(job).then((result) => parentPort?.postMessage(result));
});
