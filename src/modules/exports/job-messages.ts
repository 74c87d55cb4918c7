import type { FileStoreSettings } from '../../files/open';
import type { FileRef } from '../uploads/storage';
import type { ExportType } from './schemas';

/** What the service asks of the export worker: render one export into `file`. */
export interface ExportJob {
  /** The export's id. */
  id: string;
  workshopId: string;
  type: ExportType;
  /** The store to read from: the SQLite file, or PostgreSQL's URL when set. */
  databasePath: string;
  databaseUrl: string | undefined;
  /** The store to write to: the worker opens its own, alike. */
  files: FileStoreSettings;
  file: FileRef;
}

/** What became of an export: the file is written, or why it is not. */
export type ExportOutcome =
  { ok: true; size: number; mimetype: string; extension: string } | { ok: false; message: string };

/**
 * What the worker answers, for the export `id`. `retry`: the render failed only because the
 * database or the file storage was away, so the export is not failed but made again later.
 */
export type ExportJobResult = ExportOutcome & { id: string; retry?: boolean };
