import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CARD_TITLE_MAX as TITLE_MAX } from '../src/domain/cards';
import type { CardColor } from '../src/domain/cards';
import { CARD_COLORS } from '../src/domain/cards';
import { planCardsImport, type ImportPlan } from '../src/modules/cards/csv-plan';
import { renderCsv } from '../src/modules/exports/formats/csv';
import { neutralizeCell, restoreCell } from '../src/lib/csv-cells';
import type { ExportReport, ReportCard } from '../src/modules/exports/report';
import { sampleReport } from './helpers/export-report';

/*
 * The CSV export read back the way `PUT …/cards` reads an upload: the bytes decoded as a multipart
 * file is (`Blob.text()`), then the importer's own parse and plan, which need no database.
 */

interface IdeaSpec {
  title: string;
  content: string;
  aside: boolean;
}
interface ClusterSpec extends IdeaSpec {
  color: CardColor | null;
  ideas: IdeaSpec[];
}

/** A report whose cards are the given clusters, each followed by its ideas. */
function reportWith(clusters: ClusterSpec[], figures: Partial<ReportCard> = {}): ExportReport {
  const cards: ReportCard[] = [];
  const card = (
    fields: Pick<
      ReportCard,
      'type' | 'title' | 'content' | 'aside' | 'color' | 'clusterId' | 'clusterTitle' | 'position'
    >,
  ): ReportCard => {
    const number = cards.length + 1;
    const made: ReportCard = {
      id: `card${number}`,
      shortId: String(number),
      x: null,
      y: null,
      author: 'Ada',
      createdAt: '2026-11-20T09:00:00.000Z',
      score: 0,
      voteCount: 0,
      positivePoints: 0,
      negativePoints: 0,
      ratingAverages: {},
      ratingCount: 0,
      commentCount: 0,
      itemCount: 0,
      ...fields,
      ...figures,
    };
    cards.push(made);
    return made;
  };
  clusters.forEach((spec, position) => {
    const cluster = card({
      type: 'cluster',
      title: spec.title,
      content: spec.content,
      aside: spec.aside,
      color: spec.color,
      clusterId: null,
      clusterTitle: '',
      position,
    });
    spec.ideas.forEach((idea, ideaPosition) =>
      card({
        type: 'idea',
        ...idea,
        color: null,
        clusterId: cluster.id,
        clusterTitle: cluster.title,
        position: ideaPosition,
      }),
    );
  });
  return { ...sampleReport({ clusters: 0 }), cards, votes: [], ratings: [], items: [], comments: [] };
}

const textOf = async (data: Uint8Array) => new Blob([new Uint8Array(data)]).text();
const recordsOf = async (report: ExportReport) => parse(await textOf((await renderCsv(report)).data)) as string[][];
const imported = async (report: ExportReport) => planCardsImport(await textOf((await renderCsv(report)).data));

/** The plan as the cards it creates, in order. */
const cardsOf = (plan: ImportPlan) =>
  plan.clusters.flatMap((cluster) => [
    {
      type: 'cluster',
      title: cluster.title,
      content: cluster.content,
      cluster: '',
      color: cluster.color,
      aside: cluster.aside,
    },
    ...cluster.ideas.map((idea) => ({
      type: 'idea',
      title: idea.title,
      content: idea.content,
      cluster: cluster.title,
      color: null,
      aside: idea.aside,
    })),
  ]);

/** The importer reads every line break as `\n`; everything else comes back as it was. */
const lineBreaks = (text: string) => text.replace(/\r\n?/g, '\n');
const expectedCards = (clusters: ClusterSpec[]) =>
  clusters.flatMap((cluster) => [
    {
      type: 'cluster',
      title: lineBreaks(cluster.title),
      content: lineBreaks(cluster.content),
      cluster: '',
      color: cluster.color,
      aside: cluster.aside,
    },
    ...cluster.ideas.map((idea) => ({
      type: 'idea',
      title: lineBreaks(idea.title),
      content: lineBreaks(idea.content),
      cluster: lineBreaks(cluster.title),
      color: null,
      aside: idea.aside,
    })),
  ]);

const idea = (title: string, content = ''): IdeaSpec => ({ title, content, aside: false });
const cluster = (title: string, ideas: IdeaSpec[] = [], color: CardColor | null = null): ClusterSpec => ({
  title,
  content: '',
  aside: false,
  color,
  ideas,
});

describe('CSV export', () => {
  it('writes UTF-8 with a BOM, the import columns first, then the figures, one row per card in board order', async () => {
    const report = sampleReport({ worldText: true });
    const rendered = await renderCsv(report);
    expect(rendered.mimetype).toBe('text/csv; charset=utf-8');
    expect(rendered.extension).toBe('csv');
    expect([...rendered.data.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);

    const [header, ...rows] = parse(Buffer.from(rendered.data).toString('utf8'), { bom: true }) as string[][];
    expect(header).toEqual([
      'type',
      'title',
      'content',
      'cluster',
      'color',
      'aside',
      'short_id',
      'score',
      'votes',
      'comments',
      'items',
      'rating:Impact',
      'rating:Effort',
    ]);
    expect(rows).toHaveLength(report.cards.length);
    rows.forEach((row, index) => {
      const card = report.cards[index]!;
      expect(row).toEqual([
        card.type,
        card.title,
        card.content,
        card.type === 'idea' ? card.clusterTitle : '',
        card.color ?? '',
        String(card.aside),
        card.shortId,
        String(card.score),
        String(card.voteCount),
        String(card.commentCount),
        String(card.itemCount),
        ...report.criteria.map((c) =>
          card.ratingAverages[c.id] === undefined ? '' : String(card.ratingAverages[c.id]),
        ),
      ]);
    });
    expect(rows.map((row) => row[1])).toContain('改进入职流程');
    expect(rows.map((row) => row[1])).toContain('تحسين تجربة العملاء');
  });

  it('neutralises text cells that would run as formulas, and leaves numbers numbers', async () => {
    const titles = ['=SUM(A1)', '+1', '-x', '@x', '\tx', "'=quoted", "'Tis the season", 'plain'];
    const report = reportWith(
      [
        cluster(
          '=HYPERLINK("http://x")',
          titles.map((title) => idea(title, title)),
        ),
      ],
      { score: -3 },
    );
    const [, clusterRow, ...ideaRows] = await recordsOf(report);
    expect(clusterRow!.slice(0, 4)).toEqual(['cluster', `'=HYPERLINK("http://x")`, '', '']);
    expect(ideaRows.map((row) => row[1])).toEqual([
      "'=SUM(A1)",
      "'+1",
      "'-x",
      "'@x",
      "'\tx",
      "''=quoted",
      "'Tis the season",
      'plain',
    ]);
    expect(ideaRows.map((row) => row[2])).toEqual(ideaRows.map((row) => row[1]));
    expect(ideaRows.every((row) => row[3] === `'=HYPERLINK("http://x")`)).toBe(true);
    // The score is a figure we wrote: a spreadsheet must read the number -3, not the text '-3.
    expect(ideaRows.every((row) => row[7] === '-3')).toBe(true);
    const text = Buffer.from((await renderCsv(report)).data).toString('utf8');
    expect(text).toContain(',-3,');

    const back = cardsOf(await imported(report));
    expect(back.map((card) => card.title)).toEqual(['=HYPERLINK("http://x")', ...titles]);
    expect(back.slice(1).map((card) => card.content)).toEqual(titles);
  });

  it('writes line breaks as the importer reads them, \\n, so a cell beginning with \\r needs no quote', async () => {
    const report = reportWith([cluster('C', [idea('\rx', '\r=cmd|calc'), idea('a\r\nb', 'one\rtwo')])]);
    const [, , first, second] = await recordsOf(report);
    expect(first!.slice(1, 3)).toEqual(['\nx', '\n=cmd|calc']);
    expect(second!.slice(1, 3)).toEqual(['a\nb', 'one\ntwo']);
    // Titles are trimmed on import, as by the API, which never holds one that begins with \r.
    expect(
      cardsOf(await imported(report))
        .slice(1)
        .map((card) => [card.title, card.content]),
    ).toEqual([
      ['x', '\n=cmd|calc'],
      ['a\nb', 'one\ntwo'],
    ]);
  });

  it('writes clusters that share a title under names the importer keeps apart', async () => {
    // At the limit, with an emoji where " (2)" must cut in.
    const long = `${'L'.repeat(TITLE_MAX - 5)}🚀LLL`;
    const report = reportWith([
      cluster('Theme', [idea('a')]),
      cluster('Theme (2)', [idea('b')]),
      cluster('Theme', [idea('c'), idea('d')]),
      cluster(long),
      cluster(long, [idea('e')]),
    ]);
    const plan = await imported(report);
    expect(plan.clusters.map((c) => [c.title, c.ideas.map((i) => i.title)])).toEqual([
      ['Theme', ['a']],
      ['Theme (2)', ['b']],
      ['Theme (3)', ['c', 'd']],
      [long, []],
      // Shortened by whole characters: the emoji is not cut in half.
      [`${'L'.repeat(TITLE_MAX - 5)} (2)`, ['e']],
    ]);
    expect(plan.count).toBe(report.cards.length);
  });
});

describe('CSV cells', () => {
  it('restores what it neutralised, and a neutralised cell never starts a formula', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('=', '+', '-', '@', '\t', '\r', "'", 'a', ' ') }),
        fc.string(),
        (start, rest) => {
          const value = start + rest;
          const written = neutralizeCell(value);
          expect(restoreCell(written)).toBe(value);
          expect(/^[=+\-@\t\r]/.test(written)).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
    expect(restoreCell("'Tis the season")).toBe("'Tis the season");
    expect(restoreCell("'=x")).toBe('=x');
  });
});

describe('CSV export → import', () => {
  const special = fc.constantFrom(
    '=',
    '+',
    '-',
    '@',
    '\t',
    '\r',
    '\n',
    '\r\n',
    "'",
    '"',
    '""',
    ',',
    ';',
    ' ',
    '\uFEFF',
    'é',
    '改',
    '🚀',
    'ا',
  );
  // Any text a card can hold: every code point but NUL, which no card holds (refused at the edge).
  const text = fc
    .array(fc.oneof(special, fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 8 })
    .map((parts) => parts.join('').replaceAll('\0', ''));
  // Titles are trimmed and required by the API, as by the importer.
  const title = text.map((s) => s.trim()).filter((s) => s.length > 0 && s.length <= TITLE_MAX);
  const ideaArb = fc.record({ title, content: text, aside: fc.boolean() });
  const clusterArb = fc.record({
    title,
    content: text,
    aside: fc.boolean(),
    color: fc.option(fc.constantFrom(...CARD_COLORS), { nil: null }),
    ideas: fc.array(ideaArb, { maxLength: 4 }),
  });

  it('gives back the same cards: type, title, content, cluster, color, aside and order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(clusterArb, { maxLength: 5, selector: (c) => lineBreaks(c.title) }),
        async (clusters) => {
          const report = reportWith(clusters);
          const plan = await imported(report);
          expect(cardsOf(plan)).toEqual(expectedCards(clusters));
          expect(plan.count).toBe(report.cards.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps every card and its place when cluster titles repeat', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(clusterArb, { maxLength: 5 }),
        fc.array(fc.nat(4), { maxLength: 5 }),
        async (clusters, repeats) => {
          // Some clusters take the title of an earlier one.
          const specs = clusters.map((spec, index) =>
            index > 0 && repeats[index] !== undefined
              ? { ...spec, title: clusters[repeats[index]! % index]!.title }
              : spec,
          );
          const plan = await imported(reportWith(specs));
          const back = cardsOf(plan);
          const expected = expectedCards(specs);
          expect(back.map(({ title: _t, cluster: _c, ...rest }) => rest)).toEqual(
            expected.map(({ title: _t, cluster: _c, ...rest }) => rest),
          );
          expect(back.filter((card) => card.type === 'idea').map((card) => card.title)).toEqual(
            expected.filter((card) => card.type === 'idea').map((card) => card.title),
          );
          const titles = plan.clusters.map((c) => c.title);
          expect(new Set(titles).size).toBe(titles.length);
          titles.forEach((written, index) =>
            expect(written.startsWith(lineBreaks(specs[index]!.title).slice(0, TITLE_MAX - 8))).toBe(true),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
