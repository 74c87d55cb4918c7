import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { dir } from '../../../i18n/messages';
import type { ExportReport, RenderedExport } from '../report';
import { reportSheets, summaryOf } from './xlsx-sheets';
import { columnWidths, type Cell, type CellKind, type Table } from './xlsx-table';

const MIMETYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const DATE_FORMAT = 'yyyy-mm-dd hh:mm';
// Counts stay in General, which shows a whole number as one and would not hide a fraction.
const FORMATS: Record<CellKind, string> = {
  text: 'General',
  boolean: 'General',
  integer: 'General',
  decimal: '0.00',
  date: DATE_FORMAT,
};

type Workbook = ExcelJS.stream.xlsx.WorkbookWriter;
type Worksheet = ExcelJS.Worksheet;

/**
 * The report as a workbook: a summary sheet first, then one sheet per resource, each a table with
 * a bold header row kept in view, an autofilter, and typed cells (numbers, booleans, and dates as
 * Excel dates, shown in UTC). Written with exceljs's streaming writer, which turns each row into
 * XML as it is added instead of holding a model of the whole workbook until the end.
 */
export async function renderXlsx(report: ExportReport): Promise<RenderedExport> {
  const stream = new PassThrough();
  // The writer resolves once the zip is written in; the bytes are all out once the stream ends.
  const written = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: false });
  workbook.creator = 'Workshop server';
  workbook.created = workbook.modified = new Date(report.generatedAt);
  workbook.title = report.workshop.title;

  // An Arabic workbook's sheets run right to left: column A on the right (docs/i18n.md#right-to-left).
  const rightToLeft = dir(report.workshop.language) === 'rtl';
  writeSummary(workbook, report, rightToLeft);
  for (const table of reportSheets(report)) writeTable(workbook, table, rightToLeft);
  await workbook.commit();
  return { data: await written, mimetype: MIMETYPE, extension: 'xlsx' };
}

/** A sheet holding one table, its header on the first row. */
function writeTable(workbook: Workbook, table: Table, rightToLeft: boolean): void {
  const sheet = workbook.addWorksheet(sheetName(table.name), {
    views: [{ state: 'frozen', xSplit: 0, ySplit: 1, rightToLeft }],
  });
  defineColumns(sheet, table);
  writeRows(sheet, table);
  sheet.commit();
}

/**
 * The workshop's facts, then one row per cluster and a total row. The facts sit above the table,
 * so the frozen rows and the autofilter start at its header; the total row is left out of the
 * filter, so that sorting the clusters keeps it last.
 */
function writeSummary(workbook: Workbook, report: ExportReport, rightToLeft: boolean): void {
  const { facts, table, total } = summaryOf(report);
  const headerRow = facts.length + 2;
  const sheet = workbook.addWorksheet(sheetName(table.name), {
    views: [{ state: 'frozen', xSplit: 0, ySplit: headerRow, rightToLeft }],
  });
  defineColumns(sheet, table, [...facts, total]);
  for (const [label, value] of facts) {
    const row = sheet.addRow([label, value]);
    row.getCell(1).font = { bold: true };
    // The column's format is the table's; a fact takes the one its own value needs.
    row.getCell(2).numFmt = value instanceof Date ? DATE_FORMAT : 'General';
    row.commit();
  }
  sheet.addRow([]).commit();
  writeRows(sheet, table);
  const totalRow = sheet.addRow(total);
  totalRow.font = { bold: true };
  totalRow.commit();
  sheet.commit();
}

/** A name Excel takes for a sheet: none of []:*?/\ and at most 31 characters (the catalogs' are already). */
function sheetName(name: string): string {
  return Array.from(name.replace(/[[\]:*?/\\]/g, ' '))
    .slice(0, 31)
    .join('');
}

/** Widths and formats per column, set before any row as the streaming writer needs. */
function defineColumns(sheet: Worksheet, table: Table, more: readonly (readonly Cell[])[] = []): void {
  const widths = columnWidths(table, more);
  sheet.columns = table.kinds.map((kind, index) => ({ width: widths[index], style: { numFmt: FORMATS[kind] } }));
}

/** The bold header, the rows, and an autofilter over both. */
function writeRows(sheet: Worksheet, table: Table): void {
  const header = sheet.addRow(table.headers);
  header.font = { bold: true };
  header.commit();
  for (const cells of table.rows) sheet.addRow(cells).commit();
  sheet.autoFilter = {
    from: { row: header.number, column: 1 },
    to: { row: header.number + table.rows.length, column: table.headers.length },
  };
}
