import { CsvError, parse } from 'csv-parse';
import { AppError, type ErrorDetail } from '../../http/errors';
import { restoreCell } from '../../lib/csv-cells';
import { CARD_CSV_COLUMNS, isFigureColumn } from '../../domain/card-csv';
import { CARD_COLORS, CARD_CONTENT_MAX, CARD_TITLE_MAX, type CardColor } from '../../domain/cards';
import { msg } from '../../i18n/messages';

type Column = (typeof CARD_CSV_COLUMNS)[number];

export interface PlannedCard {
  title: string;
  content: string;
  aside: boolean;
}

export interface PlannedCluster extends PlannedCard {
  color: CardColor | null;
  ideas: PlannedCard[];
}

/** What a CSV file turns into: clusters in order of first mention, each with its ideas in file order. */
export interface ImportPlan {
  clusters: PlannedCluster[];
  count: number;
}

interface Row {
  line: number;
  get(column: Column): string;
}

const MAX_DETAILS = 50;
/**
 * Rows one import may hold: far beyond a real workshop, and a bound on the work a request can ask
 * for. With the clusters its ideas name, an import stays within `WORKSHOP_MAX_CARDS`.
 */
export const CSV_MAX_ROWS = 5_000;
const ASIDE_VALUES: Record<string, boolean> = {
  '': false,
  true: true,
  false: false,
  '1': true,
  '0': false,
  yes: true,
  no: false,
};

/**
 * Reads a cards CSV into an import plan, or throws one 400 whose message and details name every
 * bad line (`path: "line 7"`). Lines count from 1, the header being line 1.
 */
export async function planCardsImport(text: string): Promise<ImportPlan> {
  // Text columns cannot hold a NUL character on PostgreSQL; SQLite would store it: refused on both.
  const nul = text.indexOf('\0');
  if (nul >= 0)
    throw badFile([
      { path: `line ${text.slice(0, nul).split(/\r\n?|\n/).length}`, message: 'The file holds a NUL character.' },
    ]);
  const rows = readRows(await parseRecords(text));
  const errors: ErrorDetail[] = [];
  const fail = (line: number, message: string) => errors.push({ path: `line ${line}`, message });

  const clusters = new Map<string, PlannedCluster & { declaredOn?: number }>();
  const clusterNamed = (title: string) => {
    let cluster = clusters.get(title);
    if (!cluster) {
      cluster = { title, content: '', aside: false, color: null, ideas: [] };
      clusters.set(title, cluster);
    }
    return cluster;
  };

  let count = 0;
  for (const row of rows) {
    const type = row.get('type').trim().toLowerCase() || 'idea';
    // Text cells an export neutralised against formula injection come back as they were.
    const title = restoreCell(row.get('title').trim());
    const content = restoreCell(row.get('content'));
    const clusterTitle = restoreCell(row.get('cluster').trim());
    const color = row.get('color').trim().toLowerCase();
    const aside = ASIDE_VALUES[row.get('aside').trim().toLowerCase()];
    const problems: string[] = [];
    if (type !== 'idea' && type !== 'cluster') problems.push(`type must be idea or cluster, not "${type}"`);
    if (title === '') problems.push('title is required');
    if (title.length > CARD_TITLE_MAX) problems.push(`title is longer than ${CARD_TITLE_MAX} characters`);
    if (content.length > CARD_CONTENT_MAX) problems.push(`content is longer than ${CARD_CONTENT_MAX} characters`);
    if (color !== '' && !(CARD_COLORS as readonly string[]).includes(color))
      problems.push(`color must be one of ${CARD_COLORS.join(', ')}`);
    if (aside === undefined) problems.push('aside must be true or false');
    if (type === 'idea' && color !== '') problems.push('only clusters have a color');
    if (type === 'idea' && clusterTitle === '') problems.push('an idea needs a cluster');
    if (clusterTitle.length > CARD_TITLE_MAX) problems.push(`cluster is longer than ${CARD_TITLE_MAX} characters`);
    if (type === 'cluster' && clusterTitle !== '' && clusterTitle !== title)
      problems.push('a cluster cannot belong to a cluster');
    if (type === 'cluster' && title !== '' && clusters.get(title)?.declaredOn !== undefined) {
      problems.push(`a cluster titled "${title}" is already on line ${clusters.get(title)!.declaredOn}`);
    }
    if (problems.length > 0) {
      fail(row.line, `${problems.join('; ')}.`);
      continue;
    }

    count += 1;
    if (type === 'cluster') {
      const cluster = clusterNamed(title);
      Object.assign(cluster, {
        content,
        aside: aside!,
        color: (color || null) as CardColor | null,
        declaredOn: row.line,
      });
    } else {
      clusterNamed(clusterTitle).ideas.push({ title, content, aside: aside! });
    }
  }

  if (errors.length > 0) throw badFile(errors);
  // Clusters that ideas named but no row declared are created too.
  count += [...clusters.values()].filter((cluster) => cluster.declaredOn === undefined).length;
  const planned = [...clusters.values()].map(({ declaredOn: _declaredOn, ...cluster }) => cluster);
  return { clusters: planned, count };
}

type ParsedRecord = { record: string[]; info: { lines: number } };

/** The file is fed to the parser this much at a time, the event loop free in between. */
const PARSE_CHUNK = 64 * 1024;

/**
 * Parses the CSV, a chunk at a time so that other requests are served meanwhile; stops one record
 * past the limit, so a huge file costs no more than a refused one. Whatever the parser trips on
 * came from the file: it is the client's 400, never a 500.
 */
async function parseRecords(text: string): Promise<ParsedRecord[]> {
  // Counting lines is only reliable with one kind of line break.
  const input = text.replace(/\r\n?/g, '\n');
  const records: ParsedRecord[] = [];
  const parser = parse({ bom: true, info: true, skip_empty_lines: true, to: CSV_MAX_ROWS + 2 });
  let failure: unknown;
  parser.on('readable', () => {
    let record: ParsedRecord | null;
    while ((record = parser.read() as ParsedRecord | null) !== null) records.push(record);
  });
  parser.on('error', (err) => (failure ??= err));
  const ended = new Promise<void>((resolve) => parser.on('end', resolve).on('close', resolve));
  for (
    let start = 0;
    start < input.length && failure === undefined && records.length <= CSV_MAX_ROWS + 1;
    start += PARSE_CHUNK
  ) {
    parser.write(input.slice(start, start + PARSE_CHUNK));
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (failure === undefined && records.length <= CSV_MAX_ROWS + 1) {
    parser.end();
    await ended;
  } else {
    parser.destroy();
  }
  if (failure !== undefined) {
    const line = failure instanceof CsvError ? ((failure as CsvError & { lines?: number }).lines ?? 1) : 1;
    throw badFile([
      { path: `line ${line}`, message: failure instanceof Error ? failure.message : 'The file is not valid CSV.' },
    ]);
  }
  return records;
}

/** Checks the header and turns the records into rows that know their starting line. */
function readRows(records: ParsedRecord[]): Row[] {
  if (records.length > CSV_MAX_ROWS + 1) {
    throw new AppError('payload_too_large', msg('error.cards.csv_too_many_rows', { max: CSV_MAX_ROWS }));
  }
  const [header, ...body] = records;
  if (!header || header.record.every((cell) => cell.trim() === '')) {
    throw badFile([
      { path: 'line 1', message: `A header row is required, naming columns among ${CARD_CSV_COLUMNS.join(', ')}.` },
    ]);
  }

  const index = new Map<Column, number>();
  const headerProblems: string[] = [];
  header.record.forEach((cell, position) => {
    const name = cell.trim().toLowerCase();
    // An export's figures after the card's columns are read past, so the export imports as it is.
    if (isFigureColumn(name)) return;
    if (!(CARD_CSV_COLUMNS as readonly string[]).includes(name)) headerProblems.push(`unknown column "${cell.trim()}"`);
    else if (index.has(name as Column)) headerProblems.push(`column "${name}" appears twice`);
    else index.set(name as Column, position);
  });
  if (!index.has('title')) headerProblems.push('the title column is required');
  if (headerProblems.length > 0) {
    throw badFile([
      {
        path: `line ${startLine(header)}`,
        message: `${headerProblems.join('; ')} (columns: ${CARD_CSV_COLUMNS.join(', ')}).`,
      },
    ]);
  }

  return body.map((entry) => ({
    line: startLine(entry),
    get: (column) => {
      const position = index.get(column);
      return position === undefined ? '' : (entry.record[position] ?? '');
    },
  }));
}

/** csv-parse reports the line a record ends on; quoted line breaks inside it come before that. */
function startLine(entry: { record: string[]; info: { lines: number } }): number {
  const breaks = entry.record.reduce((n, cell) => n + (cell.match(/\n/g)?.length ?? 0), 0);
  return entry.info.lines - breaks;
}

function badFile(details: ErrorDetail[]): AppError {
  const [first] = details;
  const more = details.length > 1 ? ` (and ${details.length - 1} more bad line${details.length > 2 ? 's' : ''})` : '';
  return new AppError('invalid_request', `The CSV file is invalid: ${first!.path}: ${first!.message}${more}`, {
    details: details.slice(0, MAX_DETAILS),
  });
}
