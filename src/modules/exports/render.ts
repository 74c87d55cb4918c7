import type { Database } from '../../db/database';
import type { ExportType } from './schemas';
import { readNative } from './native';
import { readReport } from './read-report';
import type { ExportReport, RenderedExport } from './report';

type Renderer = (report: ExportReport) => Promise<RenderedExport>;

/** Each format's libraries (pdfkit and fonts, docx, exceljs) are loaded once, on first use. */
const RENDERERS: Record<Exclude<ExportType, 'native'>, () => Promise<Renderer>> = {
  pdf: once(() => import('./formats/pdf/render-pdf').then((m) => m.renderPdf)),
  docx: once(() => import('./formats/docx/render-docx').then((m) => m.renderDocx)),
  xlsx: once(() => import('./formats/xlsx').then((m) => m.renderXlsx)),
  csv: once(() => import('./formats/csv').then((m) => m.renderCsv)),
};

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => (loading ??= load());
}

/**
 * Loads every format's libraries: the worker does it as it starts, so a first export of a format
 * does not also pay for loading half a megabyte of library code.
 */
export function preloadRenderers(): Promise<unknown> {
  return Promise.all(Object.values(RENDERERS).map((load) => load()));
}

/** Reads the workshop and renders it in `type`; null when the workshop no longer exists. */
export async function renderExport(
  database: Database,
  workshopId: string,
  type: ExportType,
): Promise<RenderedExport | null> {
  if (type === 'native') {
    const document = await readNative(database, workshopId);
    if (!document) return null;
    return { data: Buffer.from(JSON.stringify(document)), mimetype: 'application/json', extension: 'json' };
  }
  const report = await readReport(database, workshopId);
  if (!report) return null;
  const render = await RENDERERS[type]();
  return render(report);
}
