import { AlignmentType, Document, Footer, Packer, PageNumber, Paragraph, TextRun } from 'docx';
import { dir, t } from '../../../../i18n/messages';
import type { ExportReport, RenderedExport } from '../../report';
import { clusters, results } from './board';
import { commentsByCard, itemsBySection } from './notes';
import { agenda, contents, titlePage } from './overview';
import { REPORT_STYLES } from './styles';
import { docxText, xmlSafe } from './text';

export const DOCX_MIMETYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** Marks where the page fields go in the footer's sentence, which each language orders its own way. */
const PAGE = '\uE000';
const PAGES = '\uE001';

function pageFooter(lang: string, rightToLeft: boolean): Footer {
  const sentence = t(lang, 'export.page_of', { page: PAGE, count: PAGES });
  const children = sentence
    .split(/(\uE000|\uE001)/)
    .filter((part) => part !== '')
    .map((part) => (part === PAGE ? PageNumber.CURRENT : part === PAGES ? PageNumber.TOTAL_PAGES : part));
  return new Footer({
    children: [
      new Paragraph({
        alignment: AlignmentType.CENTER,
        bidirectional: rightToLeft || undefined,
        children: [
          new TextRun({
            children,
            rightToLeft: rightToLeft || undefined,
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
  const lang = report.workshop.language;
  const text = docxText(dir(lang) === 'rtl');
  const document = new Document({
    title: xmlSafe(report.workshop.title),
    description: xmlSafe(report.workshop.description),
    creator: xmlSafe(report.workshop.facilitators.join(', ')),
    // Word fills the table of contents and its page numbers when it opens the file.
    features: { updateFields: true },
    styles: REPORT_STYLES,
    sections: [
      {
        footers: { default: pageFooter(lang, text.rightToLeft) },
        children: [
          ...titlePage(text, report),
          ...contents(text, lang),
          ...agenda(text, report),
          ...clusters(text, report),
          ...results(text, report),
          ...itemsBySection(text, report),
          ...commentsByCard(text, report),
        ],
      },
    ],
  });
  const data = await Packer.toBuffer(document);
  return { data, mimetype: DOCX_MIMETYPE, extension: 'docx' };
}
