import type { Db } from '../../db/client';
import type { ExportType } from './schemas';
import { readNative } from './native';
import { readReport } from './read-report';
import type { ExportReport, RenderedExport } from './report';

type Renderer = (report: ExportReport) => Promise<RenderedExport>;

/** Each format's libraries load when a first export of that format is made, not before. */
const RENDERERS: Record<Exclude<ExportType, 'native'>, () => Promise<Renderer>> = {
  pdf: () => import('./formats/pdf').then((m) => m.renderPdf),
  docx: () => import('./formats/docx').then((m) => m.renderDocx),
  xlsx: () => import('./formats/xlsx').then((m) => m.renderXlsx),
  csv: () => import('./formats/csv').then((m) => m.renderCsv),
};

/** Reads the workshop and renders it in `type`; null when the workshop no longer exists. */
export async function renderExport(db: Db, workshopId: string, type: ExportType): Promise<RenderedExport | null> {
  if (type === 'native') {
    const document = readNative(db, workshopId);
    if (!document) return null;
    return { data: Buffer.from(JSON.stringify(document)), mimetype: 'application/json', extension: 'json' };
  }
  const report = readReport(db, workshopId);
  if (!report) return null;
  const render = await RENDERERS[type]();
  return render(report);
}
