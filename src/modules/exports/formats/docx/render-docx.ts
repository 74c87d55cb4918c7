import { AlignmentType, Document, Footer, Packer, PageNumber, Paragraph, TextRun } from 'docx';
import type { ExportReport, RenderedExport } from '../../report';
import { clusters, results } from './board';
import { commentsByCard, itemsBySection } from './notes';
import { agenda, contents, titlePage } from './overview';
import { REPORT_STYLES } from './styles';
import { xmlSafe } from './text';

export const DOCX_MIMETYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

function pageFooter(): Footer {
  return new Footer({
    children: [
      new Paragraph({
        alignment: AlignmentType.CENTER,
        children: [
          new TextRun({
            children: ['Page ', PageNumber.CURRENT, ' of ', PageNumber.TOTAL_PAGES],
            size: 18,
            color: '666666',
          }),
        ],
      }),
    ],
  });
}

/**
 * The workshop report as a Word document. Sections, agenda steps and clusters are real Heading 1–3
 * paragraphs, so Word's navigation pane and its table of contents follow the report's structure.
 */
export async function renderDocx(report: ExportReport): Promise<RenderedExport> {
  const document = new Document({
    title: xmlSafe(report.workshop.title),
    description: xmlSafe(report.workshop.description),
    creator: xmlSafe(report.workshop.facilitators.join(', ')),
    // Word fills the table of contents and its page numbers when it opens the file.
    features: { updateFields: true },
    styles: REPORT_STYLES,
    sections: [
      {
        footers: { default: pageFooter() },
        children: [
          ...titlePage(report),
          ...contents(),
          ...agenda(report),
          ...clusters(report),
          ...results(report),
          ...itemsBySection(report),
          ...commentsByCard(report),
        ],
      },
    ],
  });
  const data = await Packer.toBuffer(document);
  return { data, mimetype: DOCX_MIMETYPE, extension: 'docx' };
}
