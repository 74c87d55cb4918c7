import PDFDocument from 'pdfkit';
import { dir, t } from '../../../../i18n/messages';
import type { ExportReport, RenderedExport } from '../../report';
import { clusterGroups } from '../report-views';
import { clusterBlock } from './board';
import { canvasDrawing } from './canvas';
import { matrixChart, matrixTitle } from './matrix';
import { topIdeasChart } from './top-ideas';
import { layOut, type Part } from './contents';
import { commentsByCard, itemsOf, sectionItems } from './notes';
import { agenda, titlePage } from './overview';
import { PdfWriter } from './writer';

export const PDF_MIMETYPE = 'application/pdf';

/** The report's parts in order: each is an entry of the contents and of the outline. */
function partsOf(report: ExportReport): Part[] {
  const lang = report.workshop.language;
  const groups = clusterGroups(report);
  const parts: Part[] = [
    { title: t(lang, 'export.heading.agenda'), level: 1, render: (writer) => agenda(writer, report) },
  ];

  parts.push({
    title: t(lang, 'export.heading.clusters_and_ideas'),
    level: 1,
    render: (writer) =>
      writer.note(groups.length === 0 ? t(lang, 'export.note.no_clusters') : t(lang, 'export.note.clusters_intro'), {
        after: 6,
      }),
  });
  for (const group of groups)
    parts.push({ title: group.cluster.title, level: 2, render: (writer) => clusterBlock(writer, report, group) });

  parts.push({
    title: t(lang, 'export.heading.results'),
    level: 1,
    render: (writer) => writer.note(t(lang, 'export.note.results_intro'), { after: 6 }),
  });
  parts.push({
    title: t(lang, 'export.heading.top_ideas_by_score'),
    level: 2,
    render: (writer) => topIdeasChart(writer, report),
  });
  const [first, second] = report.criteria;
  if (first && second) {
    parts.push({
      title: matrixTitle(lang, report.criteria),
      level: 2,
      newPage: true,
      render: (writer) => matrixChart(writer, report, first, second),
    });
  }
  const { canvas } = report;
  parts.push(
    canvas === null
      ? {
          title: t(lang, 'export.heading.canvas'),
          level: 2,
          render: (writer) => writer.note(t(lang, 'export.note.no_canvas')),
        }
      : {
          title: t(lang, 'export.heading.canvas_named', { name: canvas.name }),
          level: 2,
          newPage: true,
          render: (writer) => canvasDrawing(writer, report, canvas),
        },
  );

  const items = itemsOf(report);
  parts.push({
    title: t(lang, 'export.heading.items_by_section'),
    level: 1,
    render: (writer) =>
      writer.note(
        report.sections.length === 0 ? t(lang, 'export.note.no_sections') : t(lang, 'export.note.sections_intro'),
        { after: 6 },
      ),
  });
  for (const section of report.sections) {
    parts.push({
      title: section.title,
      level: 2,
      render: (writer) => sectionItems(writer, report, section, items.get(section.id) ?? []),
    });
  }

  parts.push({
    title: t(lang, 'export.heading.comments'),
    level: 1,
    render: (writer) => commentsByCard(writer, report),
  });
  return parts;
}

/**
 * The workshop report a facilitator hands out: title page, contents, agenda, clusters and ideas,
 * the results drawn (top ideas, the 2×2 of the first two criteria, the canvas), items and
 * comments, with page numbers and an outline. Depends on nothing but the report and the fonts in
 * node_modules, so it runs in the export worker.
 */
export async function renderPdf(report: ExportReport): Promise<RenderedExport> {
  const { workshop } = report;
  const lang = workshop.language;
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: 56, bottom: 60, left: 56, right: 56 },
    bufferPages: true,
    displayTitle: true,
    lang,
    info: {
      Title: workshop.title,
      Author: workshop.facilitators.join(', '),
      Subject: t(lang, 'export.report.subject'),
      // The snapshot's time, so the same report gives the same file.
      CreationDate: new Date(report.generatedAt),
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });

  const writer = new PdfWriter(doc, dir(lang) === 'rtl');
  titlePage(writer, report);
  layOut(writer, partsOf(report), workshop.title, lang);
  doc.end();
  await ended;
  return { data: Buffer.concat(chunks), mimetype: PDF_MIMETYPE, extension: 'pdf' };
}
