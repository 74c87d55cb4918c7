import * as v from 'valibot';
import type { Config } from '../../config';
import type { Schema } from '../../db/database';
import type { ExportOutput as ExportResource } from '../../domain/events';
import { newId } from '../../db/columns';
import { fileUrlUntil, LINK_TTL_SECONDS } from '../uploads/file-links';
import { EXPORTS_CONTAINER, objectName, type FileRef } from '../uploads/storage';
import { said } from '../../i18n/valibot';

export type ExportRow = Schema['workshopExports']['$inferSelect'];
export type ExportType = ExportRow['type'];

export const EXPORT_TYPES = ['pdf', 'xlsx', 'docx', 'csv', 'native'] as const satisfies readonly ExportType[];

const exportType = v.picklist(EXPORT_TYPES, said('error.validation.one_of', { options: EXPORT_TYPES.join(', ') }));

/** `type`, or `mimetype` as a sample body of the spec names it (docs/api.md#exports): one of the two. */
export const CreateExportInput = v.pipe(
  v.object({ type: v.optional(exportType), mimetype: v.optional(exportType) }),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const { type, mimetype } = dataset.value;
    if (type !== undefined && mimetype !== undefined && type !== mimetype) {
      addIssue({
        message: said('error.validation.export_type_twice'),
        path: [{ type: 'object', origin: 'value', input: dataset.value, key: 'mimetype', value: mimetype }],
      });
      return NEVER;
    }
    const chosen = type ?? mimetype;
    if (chosen === undefined) {
      addIssue({
        message: said('error.validation.export_type_missing', { options: EXPORT_TYPES.join(', ') }),
        path: [{ type: 'object', origin: 'value', input: dataset.value, key: 'type', value: undefined }],
      });
      return NEVER;
    }
    return { type: chosen };
  }),
);
export type CreateExportInput = v.InferOutput<typeof CreateExportInput>;

export const ExportOutput = v.object({
  id: v.string(),
  created_at: v.string(),
  type: exportType,
  state: v.picklist(['pending', 'success', 'failed']),
  /** A signed download link, valid without a token until 7 days after the export was asked for; null until it succeeded. */
  url: v.nullable(v.string()),
  /** Why a failed export failed; null otherwise. */
  message: v.nullable(v.string()),
});

/**
 * When an export's link stops working: 7 days after it was asked for, the same on every read, so
 * the export can be removed then without breaking a link handed out later.
 */
export function exportExpiry(row: Pick<ExportRow, 'createdAt'>): number {
  return Math.floor(Date.parse(row.createdAt) / 1000) + LINK_TTL_SECONDS;
}

/**
 * Where a render of the workshop's export writes its file. The key starts with the workshop's id,
 * so deleting the workshop removes every object made for it by prefix (`workshopExportsPrefix`),
 * including one whose render was never recorded.
 */
export function newExportFile(workshopId: string): FileRef {
  return { container: EXPORTS_CONTAINER, key: `${workshopId}_${newId()}` };
}

/**
 * The start of the object names of the workshop's exports. Workshop ids are all `newId`'s 22
 * characters, so the keys of one workshop's exports never start with another's id and `_`.
 */
export function workshopExportsPrefix(workshopId: string): string {
  return `${objectName({ container: EXPORTS_CONTAINER, key: workshopId })}_`;
}

/** Where the export's file is stored; null until one was made. */
export function exportFile(row: Pick<ExportRow, 'fileContainer' | 'fileKey'>): FileRef | null {
  return row.fileContainer && row.fileKey ? { container: row.fileContainer, key: row.fileKey } : null;
}

export function toExport(config: Pick<Config, 'publicUrl' | 'secret'>, row: ExportRow): ExportResource {
  const file = row.state === 'success' ? exportFile(row) : null;
  return {
    id: row.id,
    created_at: row.createdAt,
    type: row.type,
    state: row.state,
    url: file ? fileUrlUntil(config, file, exportExpiry(row)) : null,
    message: row.message,
  };
}
