import JSZip from 'jszip';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { renderDocx } from '../src/modules/exports/formats/docx/render-docx';
import type { ExportReport, ReportCard } from '../src/modules/exports/report';
import { sampleReport } from './helpers/export-report';

/** What a reader meets in the body, in order: paragraphs outside tables, and table rows. */
type Block =
  | { kind: 'paragraph'; style: string | null; text: string; rightToLeft: boolean }
  | { kind: 'row'; header: boolean; cells: string[] };

interface ParsedPart {
  blocks: Block[];
  /** Field instructions (`TOC …`, `PAGE`), trimmed. */
  fields: string[];
}

/** Parses a part with a conforming XML parser, so a file Word would refuse fails here too. */
function parsePart(xml: string): ParsedPart {
  const blocks: Block[] = [];
  const fields: string[] = [];
  const parser = new SaxesParser();
  let tableDepth = 0;
  let paragraph: { style: string | null; text: string; rightToLeft: boolean } | null = null;
  let row: { header: boolean; cells: string[] } | null = null;
  let cellText: string[] | null = null;
  let inText = false;
  let inInstruction = false;
  parser.on('opentag', (tag) => {
    switch (tag.name) {
      case 'w:tbl':
        tableDepth += 1;
        break;
      case 'w:tr':
        row = { header: false, cells: [] };
        break;
      case 'w:tblHeader':
        if (row) row.header = true;
        break;
      case 'w:tc':
        cellText = [];
        break;
      case 'w:p':
        paragraph = { style: null, text: '', rightToLeft: false };
        break;
      case 'w:pStyle':
        if (paragraph) paragraph.style = String(tag.attributes['w:val']);
        break;
      case 'w:bidi':
        if (paragraph) paragraph.rightToLeft = true;
        break;
      case 'w:br':
        if (paragraph) paragraph.text += '\n';
        break;
      case 'w:t':
        inText = true;
        break;
      case 'w:instrText':
        inInstruction = true;
        break;
    }
  });
  parser.on('text', (text) => {
    if (inText && paragraph) paragraph.text += text;
    if (inInstruction) fields.push(text.trim());
  });
  parser.on('closetag', (tag) => {
    switch (tag.name) {
      case 'w:t':
        inText = false;
        break;
      case 'w:instrText':
        inInstruction = false;
        break;
      case 'w:p':
        if (paragraph && cellText) cellText.push(paragraph.text);
        else if (paragraph && tableDepth === 0) blocks.push({ kind: 'paragraph', ...paragraph });
        paragraph = null;
        break;
      case 'w:tc':
        if (row && cellText) row.cells.push(cellText.join('\n'));
        cellText = null;
        break;
      case 'w:tr':
        if (row) blocks.push({ kind: 'row', ...row });
        row = null;
        break;
      case 'w:tbl':
        tableDepth -= 1;
        break;
    }
  });
  parser.write(xml).close();
  return { blocks, fields };
}

interface OpenedDocx {
  raw: Record<'document' | 'styles' | 'settings' | 'footer', string>;
  body: ParsedPart;
  footer: ParsedPart;
}

async function openDocx(report: ExportReport): Promise<OpenedDocx> {
  const rendered = await renderDocx(report);
  expect(rendered.mimetype).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
  expect(rendered.extension).toBe('docx');
  const zip = await JSZip.loadAsync(rendered.data);
  const read = async (path: string) => {
    const file = zip.file(path);
    if (!file) throw new Error(`${path} is missing from the docx`);
    return file.async('string');
  };
  const relations = await read('word/_rels/document.xml.rels');
  const footerPath = /Target="(footer\d*\.xml)"/.exec(relations)?.[1];
  expect(footerPath).toBeDefined();
  const raw = {
    document: await read('word/document.xml'),
    styles: await read('word/styles.xml'),
    settings: await read('word/settings.xml'),
    footer: await read(`word/${footerPath}`),
  };
  for (const part of ['[Content_Types].xml', 'docProps/core.xml', 'word/numbering.xml']) parsePart(await read(part));
  parsePart(raw.styles);
  parsePart(raw.settings);
  return { raw, body: parsePart(raw.document), footer: parsePart(raw.footer) };
}

const headingsOf = (blocks: Block[], level: 1 | 2 | 3) =>
  blocks.flatMap((block) => (block.kind === 'paragraph' && block.style === `Heading${level}` ? [block.text] : []));

const headingLevel = (block: Block) =>
  block.kind === 'paragraph' ? Number(/^Heading(\d)$/.exec(block.style ?? '')?.[1] ?? 0) : 0;

/** The blocks below a heading, up to the next heading of its level or above. */
function under(blocks: Block[], level: 1 | 2 | 3, text: string): Block[] {
  const start = blocks.findIndex(
    (block) => headingLevel(block) === level && block.kind === 'paragraph' && block.text === text,
  );
  if (start < 0) throw new Error(`no Heading${level} "${text}"`);
  const end = blocks.findIndex(
    (block, index) => index > start && headingLevel(block) >= 1 && headingLevel(block) <= level,
  );
  return blocks.slice(start + 1, end < 0 ? undefined : end);
}

const rowsOf = (blocks: Block[]) =>
  blocks.flatMap((block) => (block.kind === 'row' && !block.header ? [block.cells] : []));
const textOf = (blocks: Block[]) =>
  blocks.map((block) => (block.kind === 'row' ? block.cells.join(' | ') : block.text)).join('\n');
const ideasOf = (report: ExportReport) => report.cards.filter((card) => card.type === 'idea');
const label = (card: ReportCard) => `#${card.shortId} ${card.title}`;

describe('docx export', () => {
  it('structures the report with Word headings, a table of contents field and page numbers', async () => {
    const report = sampleReport();
    const { raw, body, footer } = await openDocx(report);

    expect(headingsOf(body.blocks, 1)).toEqual(['Agenda', 'Clusters', 'Results', 'Items', 'Comments']);
    expect(raw.document).toContain('<w:pStyle w:val="Heading1"/>');
    expect(headingsOf(under(body.blocks, 1, 'Agenda'), 2)).toEqual(
      report.steps.map((step) => `${step.number}. ${step.name}`),
    );
    expect(textOf(under(body.blocks, 2, '2. Vote'))).toContain(report.steps[1]!.instructions);
    const clusters = report.cards.filter((card) => card.type === 'cluster');
    expect(headingsOf(under(body.blocks, 1, 'Clusters'), 2)).toEqual(clusters.map((cluster) => cluster.title));
    // The navigation pane follows outline levels; the heading styles carry them.
    expect(raw.styles).toMatch(/w:styleId="Heading1">.*?<w:outlineLvl w:val="0"\/>/);
    expect(raw.styles).toMatch(/w:styleId="Heading3">.*?<w:outlineLvl w:val="2"\/>/);

    expect(body.fields).toContain('TOC \\h \\o "1-2"');
    expect(raw.document).toContain('<w:docPartGallery w:val="Table of Contents"/>');
    expect(raw.settings).toContain('<w:updateFields/>');
    expect(footer.fields).toEqual(expect.arrayContaining(['PAGE', 'NUMPAGES']));
    expect(textOf(footer.blocks)).toContain('Page');

    const title = textOf(body.blocks.slice(0, 6));
    expect(title).toContain(report.workshop.title);
    expect(title).toContain('23 November 2026');
    expect(title).toContain('Facilitators: Ada Lovelace');
    expect(title).toContain(`Participants: ${report.workshop.participantCount}`);
    expect(title).toContain(report.workshop.description);
  });

  it('lists every idea under its cluster with score, votes and rating averages', async () => {
    const report = sampleReport();
    const { body } = await openDocx(report);
    for (const cluster of report.cards.filter((card) => card.type === 'cluster')) {
      const section = under(body.blocks, 2, cluster.title);
      expect(section.find((block) => block.kind === 'row' && block.header)).toMatchObject({
        cells: ['#', 'Idea', 'Score', 'Votes', 'Impact', 'Effort'],
      });
      const expected = ideasOf(report)
        .filter((idea) => idea.clusterId === cluster.id)
        .map((idea) => [
          idea.shortId,
          `${idea.title}\n${idea.content}`,
          String(idea.score),
          String(idea.voteCount),
          idea.ratingAverages.crit1!.toFixed(1),
          idea.ratingAverages.crit2!.toFixed(1),
        ]);
      expect(rowsOf(section)).toEqual(expected);
    }
  });

  it("gives each cluster's total score as the spreadsheet's summary does: its own votes and its ideas'", async () => {
    const report = sampleReport();
    const cluster = report.cards.find((card) => card.type === 'cluster')!;
    cluster.score = 4;
    cluster.voteCount = 4;
    const { body } = await openDocx(report);
    const ideaScores = ideasOf(report)
      .filter((idea) => idea.clusterId === cluster.id)
      .reduce((sum, idea) => sum + idea.score, 0);
    expect(textOf(under(body.blocks, 2, cluster.title))).toContain(`Total score ${4 + ideaScores}`);
  });

  it('ranks the top ideas and places ideas on the 2×2 by the middle of each scale', async () => {
    const report = sampleReport({ clusters: 5, ideasPerCluster: 6 });
    const { body } = await openDocx(report);

    const top = rowsOf(under(body.blocks, 2, 'Top ideas'));
    const voted = ideasOf(report).filter((idea) => idea.voteCount > 0);
    expect(top).toHaveLength(Math.min(10, voted.length));
    const best = Math.max(...voted.map((idea) => idea.score));
    expect(top[0]![0]).toBe('1');
    expect(Number(top[0]![3])).toBe(best);
    const scores = top.map((cells) => Number(cells[3]));
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    top.forEach((cells, index) =>
      expect(Number(cells[0])).toBe(
        index === 0 || scores[index] !== scores[index - 1] ? index + 1 : Number(top[index - 1]![0]),
      ),
    );

    const quadrants = rowsOf(under(body.blocks, 2, 'Impact and Effort'));
    expect(quadrants.map((cells) => cells[0]!.split('\n')[0])).toEqual([
      'high Impact / high Effort',
      'high Impact / low Effort',
      'low Impact / high Effort',
      'low Impact / low Effort',
    ]);
    const [impact, effort] = report.criteria;
    for (const idea of ideasOf(report)) {
      const high = (value: number, criterion: typeof impact) =>
        value >= (criterion!.min + criterion!.max) / 2 ? 'high' : 'low';
      const name = `${high(idea.ratingAverages.crit1!, impact)} Impact / ${high(idea.ratingAverages.crit2!, effort)} Effort`;
      const holding = quadrants.filter((cells) =>
        cells[1]!.split('\n').some((line) => line.startsWith(`${label(idea)} (`)),
      );
      expect(holding.map((cells) => cells[0]!.split('\n')[0])).toEqual([name]);
    }
  });

  it('shows the canvas zones, items by section and comments by card', async () => {
    const report = sampleReport();
    const { body } = await openDocx(report);
    const cardOf = (id: string) => report.cards.find((card) => card.id === id)!;

    const zones = rowsOf(under(body.blocks, 2, 'Canvas: Board'));
    expect(zones).toEqual(
      report.canvas!.zones.map((zone) => [
        zone.name,
        `${zone.x}, ${zone.y}`,
        `${zone.cols} × ${zone.rows}`,
        cardOf(zone.clusterId!).title,
      ]),
    );

    const items = under(body.blocks, 1, 'Items');
    expect(headingsOf(items, 2)).toEqual(report.sections.map((section) => section.title));
    expect(report.items.length).toBeGreaterThan(0);
    for (const section of report.sections) {
      const expected = report.items
        .filter((item) => item.sectionId === section.id)
        .map((item) => [label(cardOf(item.cardId)), item.content, item.user]);
      expect(rowsOf(under(items, 2, section.title)).map((cells) => cells.slice(0, 3))).toEqual(expected);
    }

    const comments = under(body.blocks, 1, 'Comments');
    expect(report.comments.length).toBeGreaterThan(0);
    for (const comment of report.comments) {
      const card = cardOf(comment.cardId);
      const place =
        card.type === 'idea'
          ? under(under(comments, 2, card.clusterTitle), 3, label(card))
          : under(comments, 2, card.title);
      expect(textOf(place)).toContain(comment.content);
      expect(textOf(place)).toContain(comment.user);
    }
  });

  it('passes Chinese, Arabic and emoji through and lays Arabic paragraphs out right to left', async () => {
    const report = sampleReport({ worldText: true });
    const { raw, body } = await openDocx(report);
    for (const text of [
      'Retro 2026 — 回顾 — مراجعة',
      '改进入职流程',
      'تحسين تجربة العملاء',
      'Ship it 🚀 faster',
      'Übergröße & Ähnliches',
    ]) {
      expect(textOf(body.blocks)).toContain(text);
    }
    expect(raw.document).toContain('Ship it 🚀 faster');
    expect(raw.document).toContain('تحسين تجربة العملاء');
    const headings = body.blocks.filter((block) => block.kind === 'paragraph' && block.style === 'Heading2');
    expect(headings.find((block) => block.kind === 'paragraph' && block.text === 'تحسين تجربة العملاء')).toMatchObject({
      rightToLeft: true,
    });
    expect(headings.find((block) => block.kind === 'paragraph' && block.text === '改进入职流程')).toMatchObject({
      rightToLeft: false,
    });
    expect(textOf(body.blocks)).toContain(`A long idea ${'that keeps going and going '.repeat(20)}end`);
  });

  it('escapes XML in user text, drops characters XML cannot hold, and keeps line breaks', async () => {
    const report = sampleReport();
    const hostile = `<script>&"'`;
    report.workshop.title = `${hostile}\u0007\uD800`;
    report.steps[0]!.name = hostile;
    report.steps[0]!.instructions = 'First line\nSecond line';
    report.cards[0]!.title = hostile;
    report.cards[1]!.title = `${hostile} idea`;
    report.comments[0]!.content = `${hostile} comment`;
    const { raw, body } = await openDocx(report);

    expect(raw.document).not.toContain('<script>');
    expect(raw.document).toContain('&lt;script&gt;&amp;');
    expect(textOf(body.blocks.slice(0, 1))).toBe(hostile);
    expect(headingsOf(under(body.blocks, 1, 'Agenda'), 2)[0]).toBe(`1. ${hostile}`);
    expect(headingsOf(under(body.blocks, 1, 'Clusters'), 2)[0]).toBe(hostile);
    expect(textOf(under(body.blocks, 2, `1. ${hostile}`))).toContain('First line\nSecond line');
    expect(textOf(body.blocks)).toContain(`${hostile} comment`);
  });

  it('renders a workshop with no steps, cards or canvas', async () => {
    const report: ExportReport = {
      ...sampleReport({ clusters: 0, canvas: false }),
      steps: [],
      sections: [],
      criteria: [],
      cards: [],
      votes: [],
      ratings: [],
      items: [],
      comments: [],
      workshop: {
        ...sampleReport().workshop,
        description: '',
        facilitators: [],
        participantCount: 0,
        currentStepId: null,
      },
    };
    const { body } = await openDocx(report);
    expect(headingsOf(body.blocks, 1)).toEqual(['Agenda', 'Clusters', 'Results', 'Items', 'Comments']);
    expect(headingsOf(body.blocks, 2)).toEqual(['Top ideas', 'Canvas']);
    const text = textOf(body.blocks);
    for (const note of [
      'The agenda has no steps.',
      'No clusters yet.',
      'No idea has votes yet.',
      'The workshop has no canvas.',
      'No comments yet.',
    ]) {
      expect(text).toContain(note);
    }
    expect(rowsOf(body.blocks)).toEqual([]);
  });

  it('leaves the 2×2 out unless the workshop has exactly two criteria', async () => {
    const one = await openDocx(sampleReport({ criteria: 1 }));
    expect(headingsOf(under(one.body.blocks, 1, 'Results'), 2)).toEqual(['Top ideas', 'Canvas: Board']);
    expect(textOf(one.body.blocks)).not.toMatch(/(high|low) Impact \//);
    expect(
      one.body.blocks.find((block) => block.kind === 'row' && block.header && block.cells[0] === 'Quadrant'),
    ).toBeUndefined();

    const two = await openDocx(sampleReport({ criteria: 2 }));
    expect(headingsOf(under(two.body.blocks, 1, 'Results'), 2)).toEqual([
      'Top ideas',
      'Impact and Effort',
      'Canvas: Board',
    ]);
  });
});
