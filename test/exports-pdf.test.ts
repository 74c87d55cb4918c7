import { beforeAll, describe, expect, it } from 'vitest';
import { renderPdf } from '../src/modules/exports/formats/pdf/render-pdf';
import type { ExportReport, ReportCard } from '../src/modules/exports/report';
import { sampleReport } from './helpers/export-report';
import { inkOf, type PdfPage, readPdf, type ReadPdf, renderPage } from './helpers/pdf';

/*
 * The PDF report read back the way a reader meets it: pdf.js (the viewer in browsers) opens the
 * file and extracts each page's text, outline and item positions; poppler draws a page to pixels.
 */

async function rendered(report: ExportReport): Promise<{ data: Uint8Array; pdf: ReadPdf }> {
  const { data, mimetype, extension } = await renderPdf(report);
  expect(mimetype).toBe('application/pdf');
  expect(extension).toBe('pdf');
  expect(Buffer.from(data.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
  return { data, pdf: await readPdf(data) };
}

/** The 1-based number of the page that begins with `heading` (its first line). */
function pageStarting(pdf: ReadPdf, heading: string): number {
  const index = pdf.pages.findIndex((page) => page.lines[0] === heading);
  expect(index, `a page beginning with "${heading}"`).toBeGreaterThanOrEqual(0);
  return index + 1;
}

function pageOf(pdf: ReadPdf, number: number): PdfPage {
  return pdf.pages[number - 1]!;
}

/** Fails with the pattern and the lines when no line matches. */
function expectLine(lines: readonly string[], pattern: RegExp): void {
  expect(
    lines.filter((line) => pattern.test(line)),
    `${pattern} in ${JSON.stringify(lines)}`,
  ).not.toHaveLength(0);
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const squeeze = (text: string) => text.replace(/\s+/g, '');
const allText = (pdf: ReadPdf) => pdf.pages.map((page) => page.compact).join('');

/** The top ten voted ideas as the report ranks them: score, then votes, then board order. */
function topTen(report: ExportReport): ReportCard[] {
  return report.cards
    .filter((card) => card.type === 'idea' && card.voteCount > 0)
    .map((card, order) => ({ card, order }))
    .sort((a, b) => b.card.score - a.card.score || b.card.voteCount - a.card.voteCount || a.order - b.order)
    .slice(0, 10)
    .map(({ card }) => card);
}

describe('PDF export of a sample workshop', () => {
  const report = sampleReport();
  let data: Uint8Array;
  let pdf: ReadPdf;
  beforeAll(async () => {
    ({ data, pdf } = await rendered(report));
  });

  it('is a PDF of several pages, each numbered "Page n of N"', () => {
    expect(pdf.pageCount).toBeGreaterThan(1);
    pdf.pages.forEach((page, index) => expectLine(page.lines, new RegExp(`Page ${index + 1} of ${pdf.pageCount}$`)));
  });

  it('opens with a title page: workshop, date, facilitators and participant count', () => {
    const [title, subtitle, ...rest] = pageOf(pdf, 1).lines;
    expect(title).toBe('Quarterly retrospective');
    expect(subtitle).toBe('Workshop report of 23 November 2026');
    expect(rest).toContain('Facilitators Ada Lovelace');
    expect(rest).toContain(`Participants ${report.workshop.participantCount}`);
  });

  it('has a contents page whose page numbers are where each part begins, and the same outline', () => {
    const contents = pageOf(pdf, 2).lines;
    expect(contents[0]).toBe('Contents');
    const numbered = new Map(
      contents.flatMap((line) => {
        const match = /^(.+) (\d+)$/.exec(line);
        return match && !line.startsWith('Quarterly retrospective') ? [[match[1]!, Number(match[2])] as const] : [];
      }),
    );
    for (const heading of [
      'Agenda',
      'Clusters and ideas',
      'Results',
      'Impact × Effort',
      'Canvas: Board',
      'Items by section',
      'Comments',
    ]) {
      expect(numbered.get(heading), heading).toBe(pageStarting(pdf, heading));
    }
    // Each entry links to the page it names.
    const targets = pageOf(pdf, 2).links.map((name) => pdf.destinationPages.get(name));
    expect(targets).toEqual([...numbered.values()]);
    for (const cluster of report.cards.filter((card) => card.type === 'cluster')) {
      const page = numbered.get(cluster.title);
      expect(pageOf(pdf, page!).lines, cluster.title).toContain(cluster.title);
    }
    expect(pdf.outline).toEqual([
      'Contents',
      'Agenda',
      'Clusters and ideas',
      'Theme 1',
      'Theme 2',
      'Theme 3',
      'Theme 4',
      'Results',
      'Top ideas by score',
      'Impact × Effort',
      'Canvas: Board',
      'Items by section',
      'Next actions',
      'Open questions',
      'Comments',
    ]);
  });

  it('lists the agenda with each step’s instructions', () => {
    const agenda = pageOf(pdf, pageStarting(pdf, 'Agenda')).lines;
    for (const step of report.steps) {
      expect(agenda).toContain(`${step.number}. ${step.name}`);
      expect(agenda).toContain(step.instructions);
    }
  });

  it('shows every cluster and idea with its score and averages', () => {
    const start = pageStarting(pdf, 'Clusters and ideas');
    const end = pageStarting(pdf, 'Results');
    const lines = pdf.pages.slice(start - 1, end - 1).flatMap((page) => page.lines);
    for (const card of report.cards) {
      if (card.type === 'cluster') expect(lines).toContain(card.title);
      else {
        expect(lines).toContain(`#${card.shortId} ${card.title}`);
        const facts = lines[lines.indexOf(`#${card.shortId} ${card.title}`) + 1]!;
        expect(facts).toContain(`Score ${card.score}`);
        expect(facts).toContain(`Impact ${card.ratingAverages.crit1!.toFixed(1)}`);
        expect(facts).toContain(`Effort ${card.ratingAverages.crit2!.toFixed(1)}`);
      }
    }
  });

  it('draws the top ideas as a bar chart with labels, values and an axis title', async () => {
    const number = pageStarting(pdf, 'Results');
    const page = pageOf(pdf, number);
    expect(page.lines).toContain('Top ideas by score');
    expect(page.lines).toContain('Score (sum of vote values)');
    const bars = topTen(report);
    expect(bars).toHaveLength(10);
    for (const idea of bars) expect(page.lines).toContain(`#${idea.shortId} ${idea.title} ${idea.score}`);

    const ink = await inkOf(await renderPage(data, number));
    expect(ink.inked).toBeGreaterThan(0.03);
    expect(ink.coloured).toBeGreaterThan(0.02);
    expect(ink.spread).toBeGreaterThan(20);
    const blank = await inkOf(await renderPage(data, pageStarting(pdf, 'Comments')));
    expect(blank.coloured).toBeLessThan(ink.coloured / 10);
  });

  it('places each idea on the Impact × Effort matrix by its number, with the criteria as axis titles', () => {
    const page = pageOf(pdf, pageStarting(pdf, 'Impact × Effort'));
    expect(page.lines).toContain('Impact (average)');
    expect(page.items.map((item) => item.str)).toContain('Effort (average)');
    // The dots' labels are the only 7-point text beside the quadrant names.
    const labelled = new Set(
      page.items.filter((item) => Math.abs(item.size - 7) < 0.1).flatMap((item) => item.str.split(/[,\s]+/)),
    );
    for (const idea of report.cards.filter((card) => card.type === 'idea'))
      expect(labelled, `#${idea.shortId}`).toContain(idea.shortId);
    expect(page.lines).toContain('# Idea Impact Effort');
    expect(page.lines).toContain('2 Idea 1.1 0.0 0.5');
  });

  it('draws the canvas with its zones named', () => {
    const page = pageOf(pdf, pageStarting(pdf, 'Canvas: Board'));
    const zoneLabels = page.items.filter((item) => Math.abs(item.size - 9) < 0.1).map((item) => item.str);
    for (const zone of report.canvas!.zones) {
      expect(zoneLabels).toContain(zone.name);
      expectLine(
        page.lines,
        new RegExp(
          `^${escaped(zone.name)} ${zone.x}, ${zone.y} ${zone.cols} × ${zone.rows} #\\d+ ${escaped(zone.name)}$`,
        ),
      );
    }
  });

  it('groups items by section and comments by card', () => {
    const items = pdf.pages
      .slice(pageStarting(pdf, 'Items by section') - 1, pageStarting(pdf, 'Comments') - 1)
      .flatMap((page) => page.lines);
    for (const item of report.items) expect(items).toContain(item.content);
    const comments = pdf.pages.slice(pageStarting(pdf, 'Comments') - 1).flatMap((page) => page.lines);
    for (const comment of report.comments) {
      const card = report.cards.find((candidate) => candidate.id === comment.cardId)!;
      expect(comments.indexOf(comment.content)).toBeGreaterThan(comments.indexOf(`#${card.shortId} ${card.title}`));
    }
  });

  it('gives the same file for the same report', async () => {
    const again = await renderPdf(report);
    expect(Buffer.from(again.data).equals(Buffer.from(data))).toBe(true);
  });
});

describe('PDF export of text in other scripts', () => {
  const report = sampleReport({ worldText: true });
  let data: Uint8Array;
  let pdf: ReadPdf;
  beforeAll(async () => {
    ({ data, pdf } = await rendered(report));
  });

  it('embeds a CJK font and keeps Chinese text extractable', () => {
    expect(Buffer.from(data).toString('latin1')).toMatch(/\/BaseFont \/[A-Z]{6}\+SourceHanSansCN-Regular/);
    expect(pageOf(pdf, 1).lines[0]).toContain('Retro 2026 — 回顾 —');
    expect(allText(pdf)).toContain('改进入职流程');
    expectLine(pageOf(pdf, 2).lines, /^改进入职流程 \d+$/);
  });

  /*
   * Arabic is set right to left: the page holds the glyphs in visual order and pdf.js turns a
   * right-to-left run back into reading order. One thing does not survive: lam + alef are one
   * ligature glyph whose Unicode value is "لا", and reversing the run turns that pair around
   * too, so "العملاء" reads back as "العمالء". The expected text is turned the same way; every
   * other letter, and the order of the words, must come back as written.
   */
  const asExtracted = (arabic: string) => squeeze(arabic).replaceAll('لا', 'ال');

  it('keeps Arabic text extractable, words in reading order', () => {
    expect(squeeze(pageOf(pdf, 1).lines[0]!)).toContain(asExtracted('مراجعة'));
    const contents = pageOf(pdf, 2).lines.map(squeeze);
    expect(contents).toContain(`${asExtracted('تحسين تجربة العملاء')}4`);
  });

  it('shows a visible stand-in for emoji no font has', () => {
    const contents = pageOf(pdf, 2).lines;
    expectLine(contents, /^Ship it □ faster \d+$/);
    expect(pdf.outline).toContain('Ship it 🚀 faster');
  });

  it('wraps long text instead of cutting it', () => {
    const long = report.cards.find((card) => card.title.startsWith('A long idea'))!;
    const page = pdf.pages.find((candidate) => candidate.compact.includes(squeeze(`#${long.shortId} ${long.title}`)));
    expect(page).toBeDefined();
    const firstLine = page!.lines.findIndex((line) => line.startsWith(`#${long.shortId} A long idea`));
    expect(page!.lines[firstLine]!.length).toBeLessThan(long.title.length / 3);
  });
});

describe('PDF export of other workshop shapes', () => {
  it('draws no matrix for a workshop with one criterion', async () => {
    const { pdf } = await rendered(sampleReport({ criteria: 1 }));
    expect(pdf.outline).toEqual(expect.arrayContaining(['Results', 'Top ideas by score', 'Canvas: Board']));
    expect(pdf.outline.some((title) => title.includes('×'))).toBe(false);
    expect(allText(pdf)).not.toContain('(average)');
  });

  it('uses the first two of three criteria and says so', async () => {
    const { pdf } = await rendered(sampleReport({ criteria: 3 }));
    const heading = 'Impact × Effort (the first two of 3 criteria)';
    expect(pdf.outline).toContain(heading);
    expect(pageOf(pdf, pageStarting(pdf, heading)).lines).toContain('Impact (average)');
  });

  it('still renders a workshop with no cards, no steps and no canvas', async () => {
    const report = sampleReport({ clusters: 0, canvas: false });
    report.steps = [];
    report.workshop.currentStepId = null;
    const { pdf } = await rendered(report);
    expect(pdf.pageCount).toBeGreaterThan(1);
    const text = pdf.pages.flatMap((page) => page.lines);
    for (const note of [
      'The agenda has no steps.',
      'No clusters yet.',
      'No idea has votes yet.',
      'The workshop has no canvas.',
      'No items.',
      'No comments yet.',
    ]) {
      expect(text).toContain(note);
    }
    expectLine(text, new RegExp(`Page ${pdf.pageCount} of ${pdf.pageCount}$`));
  });
});
