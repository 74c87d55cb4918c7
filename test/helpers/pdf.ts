import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import sharp from 'sharp';

const run = promisify(execFile);

export interface TextItem {
  str: string;
  /** Baseline origin in PDF units, from the page's bottom left. */
  x: number;
  y: number;
  /** Font size in points. */
  size: number;
}

export interface PdfPage {
  /** The page's text items as pdf.js reads them, each line ended by a line break. */
  text: string;
  /** The same without any white space, for text whose spacing pdf.js guesses. */
  compact: string;
  items: TextItem[];
  /** The items sharing a baseline joined left to right, top to bottom. */
  lines: string[];
  /** Where the page's links lead: the named destinations, top to bottom. */
  links: string[];
}

/** Items on one baseline (within half a point), joined left to right; lines top to bottom. */
function linesOf(items: readonly TextItem[]): string[] {
  const rows: Array<{ y: number; items: TextItem[] }> = [];
  for (const item of items) {
    if (item.str.trim() === '') continue;
    const row = rows.find((candidate) => Math.abs(candidate.y - item.y) < 0.5);
    if (row) row.items.push(item);
    else rows.push({ y: item.y, items: [item] });
  }
  return rows
    .sort((a, b) => b.y - a.y)
    .map((row) =>
      row.items
        .sort((a, b) => a.x - b.x)
        .map((item) => item.str.trim())
        .join(' '),
    );
}

export interface ReadPdf {
  pageCount: number;
  pages: PdfPage[];
  /** The titles of the outline (the viewer's sidebar), depth first. */
  outline: string[];
  /** The 1-based page each named destination is on. */
  destinationPages: Map<string, number>;
}

/** Opens a PDF with pdf.js, as a viewer would, and reads every page's text and the outline. */
export async function readPdf(data: Uint8Array): Promise<ReadPdf> {
  const document = await getDocument({
    data: new Uint8Array(data),
    isEvalSupported: false,
    useSystemFonts: false,
    verbosity: 0,
  }).promise;
  try {
    const pages: PdfPage[] = [];
    for (let number = 1; number <= document.numPages; number += 1) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      const items: TextItem[] = [];
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str + (item.hasEOL ? '\n' : '');
        const [a, b, , , x, y] = item.transform as number[];
        items.push({ str: item.str, x: x!, y: y!, size: Math.hypot(a!, b!) });
      }
      const annotations: Array<{ subtype: string; dest?: unknown; rect: number[] }> = await page.getAnnotations();
      const links = annotations
        .filter((annotation) => annotation.subtype === 'Link' && typeof annotation.dest === 'string')
        .sort((a, b) => b.rect[1]! - a.rect[1]!)
        .map((annotation) => annotation.dest as string);
      pages.push({ text, compact: text.replace(/\s+/g, ''), items, lines: linesOf(items), links });
      page.cleanup();
    }
    const outline: string[] = [];
    const walk = (items: Array<{ title: string; items: unknown[] }> | null) => {
      for (const item of items ?? []) {
        outline.push(item.title);
        walk(item.items as Array<{ title: string; items: unknown[] }>);
      }
    };
    walk(await document.getOutline());
    const destinations = await document.getDestinations();
    const destinationPages = new Map<string, number>();
    for (const [name, destination] of Object.entries(destinations)) {
      destinationPages.set(
        name,
        (await document.getPageIndex(destination[0] as Parameters<typeof document.getPageIndex>[0])) + 1,
      );
    }
    return { pageCount: document.numPages, pages, outline, destinationPages };
  } finally {
    await document.destroy();
  }
}

/** One page (1-based) drawn as a PNG by poppler's `pdftoppm`, the renderer CI installs. */
export async function renderPage(data: Uint8Array, page: number, resolution = 60): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'pdf-page-'));
  try {
    const input = join(dir, 'report.pdf');
    await writeFile(input, data);
    await run('pdftoppm', [
      '-png',
      '-r',
      String(resolution),
      '-f',
      String(page),
      '-l',
      String(page),
      '-singlefile',
      input,
      join(dir, 'page'),
    ]);
    return await readFile(join(dir, 'page.png'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface Ink {
  /** Share of pixels clearly darker than the paper. */
  inked: number;
  /** Share of pixels with a noticeable colour (not grey). */
  coloured: number;
  /** Standard deviation of the grey level over the page. */
  spread: number;
}

/** How much is drawn on a rendered page, from its pixels. */
export async function inkOf(png: Buffer): Promise<Ink> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const pixels = info.width * info.height;
  let inked = 0;
  let coloured = 0;
  let sum = 0;
  let squares = 0;
  for (let offset = 0; offset < data.length; offset += info.channels) {
    const [r, g, b] = [data[offset]!, data[offset + 1]!, data[offset + 2]!];
    const grey = (r + g + b) / 3;
    sum += grey;
    squares += grey * grey;
    if (grey < 200) inked += 1;
    if (Math.max(r, g, b) - Math.min(r, g, b) > 40) coloured += 1;
  }
  const mean = sum / pixels;
  return { inked: inked / pixels, coloured: coloured / pixels, spread: Math.sqrt(squares / pixels - mean * mean) };
}
