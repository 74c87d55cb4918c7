import type { FileRef } from '../uploads/storage';
import type { ExportType } from './schemas';

/** What the service asks of the export worker: render one export into `file`. */
export interface ExportJob {
  /** The export's id. */
  id: string;
  workshopId: string;
  type: ExportType;
  databasePath: string;
  filesDir: string;
  file: FileRef;
}

/** What the worker answers: the file is written, or why it is not. */
export type ExportJobResult =
  | { id: string; ok: true; size: number; mimetype: string; extension: string }
  | { id: string; ok: false; message: string };
