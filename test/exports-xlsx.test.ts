import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { renderXlsx } from '../src/modules/exports/formats/xlsx';
import type { ExportReport, ReportCard } from '../src/modules/exports/report';
import { sampleReport } from './helpers/export-report';

/* The workbook read back with exceljs, as a spreadsheet user would find it. */

const RESOURCE_SHEETS = ['Cards', 'Votes', 'Ratings', 'Items', 'Comments', 'Steps'] as const;

async function workbookOf(report: ExportReport) {
  const rendered = await renderXlsx(report);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.from(rendered.data) as unknown as ExcelJS.Buffer);
  return { rendered, workbook };
}

function sheet(workbook: ExcelJS.Workbook, name: string): ExcelJS.Worksheet {
  const found = workbook.getWorksheet(name);
  expect(found, name).toBeDefined();
  return found!;
}

/** The sheet's rows below its header row, as objects keyed by header. */
function records(
  worksheet: ExcelJS.Worksheet,
  headerRow = 1,
  last = worksheet.rowCount,
): Array<Record<string, ExcelJS.Cell>> {
  const headers = (worksheet.getRow(headerRow).values as unknown[]).slice(1) as string[];
  const rows: Array<Record<string, ExcelJS.Cell>> = [];
  for (let number = headerRow + 1; number <= last; number += 1) {
    const row = worksheet.getRow(number);
    rows.push(Object.fromEntries(headers.map((header, index) => [header, row.getCell(index + 1)])));
  }
  return rows;
}

const { ValueType } = ExcelJS;
const number = (cell: ExcelJS.Cell | undefined) => {
  expect(cell?.type, `${cell?.address} ${JSON.stringify(cell?.value)}`).toBe(ValueType.Number);
  return cell!.value as number;
};
const dateOf = (cell: ExcelJS.Cell | undefined) => {
  expect(cell?.type, cell?.address).toBe(ValueType.Date);
  return (cell!.value as Date).toISOString();
};
const text = (cell: ExcelJS.Cell | undefined) => {
  expect(cell?.type, cell?.address).toBe(ValueType.String);
  return cell!.value as string;
};
const empty = (cell: ExcelJS.Cell | undefined) => expect(cell?.type, cell?.address).toBe(ValueType.Null);
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** The report with a vote and a comment on its first cluster's own card, which its row counts too. */
function withClusterFeedback(base: ExportReport): ExportReport {
  const cards = base.cards.map((card) => ({ ...card }));
  const cluster = cards[0]!;
  Object.assign(cluster, {
    voteCount: cluster.voteCount + 1,
    score: cluster.score - 2,
    negativePoints: cluster.negativePoints + 2,
    commentCount: cluster.commentCount + 1,
  });
  const at = '2026-11-20T12:00:00.000Z';
  return {
    ...base,
    cards,
    votes: [...base.votes, { cardId: cluster.id, user: 'Grace Hopper', value: -2, createdAt: at }],
    comments: [
      ...base.comments,
      { cardId: cluster.id, user: 'Grace Hopper', content: 'Merge with Theme 2?', createdAt: at },
    ],
  };
}

describe('XLSX export', () => {
  const report = sampleReport({ worldText: true });

  it('has a summary sheet, then one sheet per resource with a bold frozen header, an autofilter and fitted widths', async () => {
    const { rendered, workbook } = await workbookOf(report);
    expect(rendered.mimetype).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(rendered.extension).toBe('xlsx');
    expect(workbook.worksheets.map((w) => w.name)).toEqual(['Summary', ...RESOURCE_SHEETS]);

    const sizes = {
      Cards: report.cards.length,
      Votes: report.votes.length,
      Ratings: report.ratings.length,
      Items: report.items.length,
      Comments: report.comments.length,
      Steps: report.steps.length,
    };
    for (const name of RESOURCE_SHEETS) {
      const worksheet = sheet(workbook, name);
      expect(worksheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
      expect(worksheet.rowCount, name).toBe(sizes[name] + 1);
      const header = worksheet.getRow(1);
      expect(header.cellCount).toBeGreaterThan(2);
      header.eachCell((cell) => expect(cell.font?.bold, `${name} ${cell.address}`).toBe(true));
      expect(worksheet.getRow(2).getCell(1).font?.bold ?? false).toBe(false);
      const lastColumn = worksheet.getColumn(header.cellCount).letter;
      expect(worksheet.autoFilter).toBe(`A1:${lastColumn}${worksheet.rowCount}`);
      worksheet.columns.forEach((column, index) => {
        const headerText = header.getCell(index + 1).text;
        expect(column.width, `${name} ${headerText}`).toBeGreaterThanOrEqual(Math.min(60, headerText.length));
        expect(column.width, `${name} ${headerText}`).toBeLessThanOrEqual(60);
      });
    }
    const cards = sheet(workbook, 'Cards');
    const widthOf = (header: string) =>
      cards.columns[(cards.getRow(1).values as unknown[]).indexOf(header) - 1]!.width!;
    // The long idea's title hits the cap; the contents are "Details for …" plus the title.
    expect(widthOf('Title')).toBe(60);
    expect(widthOf('Created (UTC)')).toBeGreaterThanOrEqual('2026-11-20 09:00'.length);
    expect(widthOf('Type')).toBeLessThan(12);
  });

  it('writes each card with typed cells: numbers, booleans, dates, and text intact in any script', async () => {
    const { workbook } = await workbookOf(report);
    const rows = records(sheet(workbook, 'Cards'));
    expect(rows).toHaveLength(report.cards.length);
    rows.forEach((row, index) => {
      const card = report.cards[index]!;
      expect(number(row['Short id'])).toBe(Number(card.shortId));
      expect(text(row.Type)).toBe(card.type);
      expect(text(row.Title)).toBe(card.title);
      if (card.content === '') empty(row.Content);
      else expect(text(row.Content)).toBe(card.content);
      if (card.type === 'idea') expect(text(row.Cluster)).toBe(card.clusterTitle);
      else empty(row.Cluster);
      if (card.color === null) empty(row.Color);
      else expect(text(row.Color)).toBe(card.color);
      expect(row.Aside?.type).toBe(ValueType.Boolean);
      expect(row.Aside?.value).toBe(card.aside);
      expect(text(row.Author)).toBe(card.author);
      expect(dateOf(row['Created (UTC)'])).toBe(card.createdAt);
      expect(number(row.Score)).toBe(card.score);
      expect(number(row.Votes)).toBe(card.voteCount);
      expect(number(row['Positive points'])).toBe(card.positivePoints);
      expect(number(row['Negative points'])).toBe(card.negativePoints);
      for (const criterion of report.criteria) {
        const average = card.ratingAverages[criterion.id];
        const cell = row[`${criterion.title} (average)`];
        if (average === undefined) empty(cell);
        else expect(number(cell)).toBeCloseTo(average, 10);
      }
      expect(number(row.Comments)).toBe(card.commentCount);
      expect(number(row.Items)).toBe(card.itemCount);
    });
    const titles = rows.map((row) => row.Title!.value);
    for (const world of ['改进入职流程', 'تحسين تجربة العملاء', 'Ship it 🚀 faster', 'Übergröße & Ähnliches'])
      expect(titles).toContain(world);
    expect(rows[0]!['Created (UTC)']!.numFmt).toMatch(/yyyy-mm-dd/);
  });

  it('names the card, the user, the criterion and the section on votes, ratings, items and comments', async () => {
    const { workbook } = await workbookOf(report);
    const cardOf = new Map(report.cards.map((card) => [card.id, card]));
    const expectCard = (row: Record<string, ExcelJS.Cell>, cardId: string) => {
      const card = cardOf.get(cardId)!;
      expect(number(row.Card)).toBe(Number(card.shortId));
      expect(text(row['Card title'])).toBe(card.title);
    };
    records(sheet(workbook, 'Votes')).forEach((row, index) => {
      const vote = report.votes[index]!;
      expectCard(row, vote.cardId);
      expect([text(row.User), number(row.Value), dateOf(row['Created (UTC)'])]).toEqual([
        vote.user,
        vote.value,
        vote.createdAt,
      ]);
    });
    const criterionTitle = new Map(report.criteria.map((c) => [c.id, c.title]));
    records(sheet(workbook, 'Ratings')).forEach((row, index) => {
      const rating = report.ratings[index]!;
      expectCard(row, rating.cardId);
      expect([text(row.Criterion), text(row.User), number(row.Value), dateOf(row['Created (UTC)'])]).toEqual([
        criterionTitle.get(rating.criterionId),
        rating.user,
        rating.value,
        rating.createdAt,
      ]);
    });
    const sectionTitle = new Map(report.sections.map((s) => [s.id, s.title]));
    records(sheet(workbook, 'Items')).forEach((row, index) => {
      const item = report.items[index]!;
      expectCard(row, item.cardId);
      expect([text(row.Section), text(row.User), text(row.Content), dateOf(row['Created (UTC)'])]).toEqual([
        sectionTitle.get(item.sectionId),
        item.user,
        item.content,
        item.createdAt,
      ]);
    });
    records(sheet(workbook, 'Comments')).forEach((row, index) => {
      const comment = report.comments[index]!;
      expectCard(row, comment.cardId);
      expect([text(row.User), text(row.Content), dateOf(row['Created (UTC)'])]).toEqual([
        comment.user,
        comment.content,
        comment.createdAt,
      ]);
    });
    expect(
      records(sheet(workbook, 'Steps')).map((row) => [
        number(row.Step),
        text(row.Name),
        text(row.Instructions),
        row.Current!.value,
      ]),
    ).toEqual(
      report.steps.map((step) => [
        step.number,
        step.name,
        step.instructions,
        step.id === report.workshop.currentStepId,
      ]),
    );
  });

  it('sums each cluster and the whole workshop on the summary sheet, from the votes, ratings and comments themselves', async () => {
    const report = withClusterFeedback(sampleReport({ worldText: true }));
    const { workbook } = await workbookOf(report);
    const summary = sheet(workbook, 'Summary');
    const facts = Object.fromEntries(
      [1, 2, 3, 4].map((n) => [summary.getRow(n).getCell(1).value, summary.getRow(n).getCell(2)]),
    );
    expect(text(facts.Workshop)).toBe('Retro 2026 — 回顾 — مراجعة');
    expect(dateOf(facts['Generated (UTC)'])).toBe(report.generatedAt);
    expect(text(facts.Facilitators)).toBe(report.workshop.facilitators.join(', '));
    expect(number(facts.Participants)).toBe(report.workshop.participantCount);

    const headerRow = 6;
    expect(summary.views[0]).toMatchObject({ state: 'frozen', ySplit: headerRow });
    summary.getRow(headerRow).eachCell((cell) => expect(cell.font?.bold).toBe(true));
    const clusters = report.cards.filter((card) => card.type === 'cluster');
    const rows = records(summary, headerRow);
    expect(rows).toHaveLength(clusters.length + 1);
    expect(summary.autoFilter).toBe(
      `A${headerRow}:${summary.getColumn(summary.getRow(headerRow).cellCount).letter}${headerRow + clusters.length}`,
    );

    // Expected figures, counted from the report's lists rather than from the cards' own tallies.
    const figures = (members: ReportCard[], ideas: ReportCard[]) => {
      const ids = new Set(members.map((card) => card.id));
      const votes = report.votes.filter((vote) => ids.has(vote.cardId));
      const averages = report.criteria.map((criterion) => {
        const perIdea = ideas
          .map((idea) =>
            report.ratings.filter((r) => r.cardId === idea.id && r.criterionId === criterion.id).map((r) => r.value),
          )
          .filter((values) => values.length > 0)
          .map(mean);
        return perIdea.length === 0 ? null : mean(perIdea);
      });
      return {
        ideas: ideas.length,
        votes: votes.length,
        score: votes.reduce((sum, vote) => sum + vote.value, 0),
        averages,
        comments: report.comments.filter((c) => ids.has(c.cardId)).length,
      };
    };
    const read = (row: Record<string, ExcelJS.Cell>) => ({
      ideas: number(row.Ideas),
      votes: number(row.Votes),
      score: number(row.Score),
      averages: report.criteria.map((criterion) => row[`${criterion.title} (average)`]!.value as number | null),
      comments: number(row.Comments),
    });
    const close = (actual: ReturnType<typeof read>, expected: ReturnType<typeof figures>) => {
      expect({ ...actual, averages: null }).toEqual({ ...expected, averages: null });
      actual.averages.forEach((average, index) =>
        expected.averages[index] === null
          ? expect(average).toBeNull()
          : expect(average).toBeCloseTo(expected.averages[index]!, 10),
      );
    };
    clusters.forEach((cluster, index) => {
      const row = rows[index]!;
      expect(number(row['Short id'])).toBe(Number(cluster.shortId));
      expect(text(row.Cluster)).toBe(cluster.title);
      const ideas = report.cards.filter((card) => card.clusterId === cluster.id);
      close(read(row), figures([cluster, ...ideas], ideas));
    });
    const total = rows.at(-1)!;
    expect(text(total.Cluster)).toBe('Total');
    expect(total.Cluster!.font?.bold).toBe(true);
    close(
      read(total),
      figures(
        report.cards,
        report.cards.filter((card) => card.type === 'idea'),
      ),
    );
    expect(number(total.Votes)).toBe(report.votes.length);
    expect(number(total.Comments)).toBe(report.comments.length);
  });

  it('keeps formula-looking text as text and drops characters a workbook cannot hold', async () => {
    const base = sampleReport({ clusters: 1, ideasPerCluster: 2 });
    base.cards[1]!.title = '=HYPERLINK("http://example.com","x")';
    base.cards[2]!.title = 'bell\u0007 and tab\tkept';
    const { workbook } = await workbookOf(base);
    const rows = records(sheet(workbook, 'Cards'));
    expect(text(rows[1]!.Title)).toBe('=HYPERLINK("http://example.com","x")');
    expect(text(rows[2]!.Title)).toBe('bell and tab\tkept');
  });

  // Its speed is measured by `npm run bench -- exports`, not asserted here.
  it('renders a 2,000-card workshop whole', async () => {
    const big = sampleReport({ clusters: 100, ideasPerCluster: 19 });
    expect(big.cards).toHaveLength(2000);
    const rendered = await renderXlsx(big);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(rendered.data) as unknown as ExcelJS.Buffer);
    expect(sheet(workbook, 'Cards').rowCount).toBe(2001);
    expect(sheet(workbook, 'Ratings').rowCount).toBe(big.ratings.length + 1);
  });
});
