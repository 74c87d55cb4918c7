import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { expect } from 'vitest';
import type { ExportOutput } from '../../src/domain/events';
import type { TestUser } from './factories';
import type { ReadPdf } from './pdf';
import type { TestServer } from './server';
import { until } from './wait';

/* Exports as a person gets them: asked for, waited on, downloaded through their link, read back. */

export type ExportType = 'csv' | 'xlsx' | 'pdf' | 'docx' | 'native';

/** Asks for an export as `user`, waits until it is made, and downloads it through its link, without a token. */
export async function exported(
  t: TestServer,
  user: TestUser,
  workshopId: string,
  type: ExportType,
): Promise<{ url: string; data: Buffer }> {
  const path = `/v1/workshops/${workshopId}/exports`;
  const get = async (suffix = '', body?: unknown) => {
    const res = await t.request<ExportOutput>(body ? 'POST' : 'GET', `${path}${suffix}`, { token: user.token, body });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body;
  };
  const created = await get('', { type });
  let current = created;
  await until(
    async () => {
      current = await get(`/${created.id}`);
      return current.state !== 'pending';
    },
    `the ${type} export`,
    20_000,
  );
  expect(current.state, current.message ?? '').toBe('success');
  const res = await fetch(current.url!);
  expect(res.status).toBe(200);
  return { url: current.url!, data: Buffer.from(await res.arrayBuffer()) };
}

/** Every part of a zip (xlsx, docx) as text, with the XML tags taken out. */
export async function zipText(data: Buffer): Promise<string> {
  const zip = await JSZip.loadAsync(data);
  const parts = await Promise.all(
    Object.values(zip.files)
      .filter((file) => !file.dir)
      .map((file) => file.async('string')),
  );
  return parts.map((part) => part.replace(/<[^>]+>/g, ' ')).join('\n');
}

/** A sheet's rows below its header, as cell values keyed by header. */
export function records(workbook: ExcelJS.Workbook, name: string): Array<Record<string, unknown>> {
  const sheet = workbook.getWorksheet(name);
  expect(sheet, name).toBeDefined();
  const headers = (sheet!.getRow(1).values as unknown[]).slice(1) as string[];
  const rows: Array<Record<string, unknown>> = [];
  for (let number = 2; number <= sheet!.rowCount; number += 1) {
    const row = sheet!.getRow(number);
    rows.push(Object.fromEntries(headers.map((header, index) => [header, row.getCell(index + 1).value])));
  }
  return rows;
}

/** The workbook of an xlsx export. */
export async function workbookOf(data: Buffer): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(data as unknown as ExcelJS.Buffer);
  return workbook;
}

export const rowWith = (rows: Array<Record<string, unknown>>, column: string, value: string) => {
  const row = rows.find((candidate) => candidate[column] === value);
  expect(row, `a row with ${column} "${value}"`).toBeDefined();
  return row!;
};

/** The line after the one holding `text`, on the same page: an idea's facts, a comment's content. */
export function lineAfter(pdf: ReadPdf, text: string): string {
  for (const page of pdf.pages) {
    const index = page.lines.findIndex((line) => line.includes(text));
    if (index >= 0 && index + 1 < page.lines.length) return page.lines[index + 1]!;
  }
  throw new Error(`no line holds "${text}"`);
}

/** The line before the one holding `text`: a comment's attribution. */
export function lineBefore(pdf: ReadPdf, text: string): string {
  for (const page of pdf.pages) {
    const index = page.lines.findIndex((line) => line === text);
    if (index > 0) return page.lines[index - 1]!;
  }
  throw new Error(`no line is "${text}"`);
}
