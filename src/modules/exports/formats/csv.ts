import { stringify } from 'csv-stringify/sync';
import type { ExportReport, RenderedExport, ReportCard } from '../report';
import { CARD_CSV_COLUMNS, EXPORT_FIGURE_COLUMNS, RATING_COLUMN_PREFIX } from '../../../domain/card-csv';
import { CARD_TITLE_MAX } from '../../../domain/cards';
import { neutralizeCell } from '../../../lib/csv-cells';

/**
 * The workshop's cards as the CSV that `PUT …/cards` imports: the importer's columns first, then
 * the figures (`short_id`, `score`, `votes`, `comments`, `items`, one `rating:<criterion>` average
 * per criterion), which the importer reads past. One row per card in board order, each cluster
 * followed by its ideas; UTF-8 with a BOM so that spreadsheets read it as UTF-8.
 *
 * Text cells go through `neutralizeCell` against formula injection. Figures do not: they are
 * numbers we wrote ourselves, and a score of `-3` must stay the number -3 in a spreadsheet, where
 * `'-3` would be text.
 */
export async function renderCsv(report: ExportReport): Promise<RenderedExport> {
  const clusterTitles = importableClusterTitles(report.cards);
  const header = [
    ...CARD_CSV_COLUMNS,
    ...EXPORT_FIGURE_COLUMNS,
    ...report.criteria.map((c) => `${RATING_COLUMN_PREFIX}${lineBreaks(c.title)}`),
  ];
  const rows = report.cards.map((card) => {
    const isCluster = card.type === 'cluster';
    const cluster = isCluster ? '' : (clusterTitles.get(card.clusterId ?? '') ?? card.clusterTitle);
    return [
      card.type,
      textCell(isCluster ? (clusterTitles.get(card.id) ?? card.title) : card.title),
      textCell(card.content),
      textCell(cluster),
      // The importer refuses a color on an idea; ideas have none to lose.
      isCluster ? (card.color ?? '') : '',
      String(card.aside),
      card.shortId,
      card.score,
      card.voteCount,
      card.commentCount,
      card.itemCount,
      ...report.criteria.map((criterion) => card.ratingAverages[criterion.id] ?? ''),
    ];
  });
  // Records end in CRLF (RFC 4180); a cell holding any line break is quoted, which csv-stringify
  // only does for the record delimiter itself once one is given, unless told.
  const csv = stringify([header, ...rows], { record_delimiter: 'windows', quote_record_delimiter: true });
  return { data: Buffer.from(`\uFEFF${csv}`, 'utf8'), mimetype: 'text/csv; charset=utf-8', extension: 'csv' };
}

/**
 * Line breaks are written as `\n`, which is how the importer reads every line break (it turns
 * `\r\n` and `\r` into `\n` before parsing); written so, a cell that begins with a carriage
 * return needs no `'`, which the importer, reading `'\n…`, could not take back off.
 */
const lineBreaks = (value: string) => value.replace(/\r\n?/g, '\n');
const textCell = (value: string) => neutralizeCell(lineBreaks(value));

/** The title the importer will give a cluster written under `title`. */
const importedTitle = (title: string) => lineBreaks(title).trim();

/**
 * The title each cluster is written under. The importer names clusters by title and refuses a
 * second cluster row with a title it has already read, so a repeated title is written with the
 * first free ` (2)`, ` (3)`… suffix: the file imports, and that cluster comes back so named.
 */
function importableClusterTitles(cards: readonly ReportCard[]): Map<string, string> {
  const clusters = cards.filter((card) => card.type === 'cluster');
  const taken = new Set(clusters.map((cluster) => importedTitle(cluster.title)));
  const written = new Set<string>();
  const titles = new Map<string, string>();
  for (const cluster of clusters) {
    let title = cluster.title;
    if (written.has(importedTitle(title))) {
      let n = 2;
      while (taken.has(importedTitle(numbered(cluster.title, n)))) n += 1;
      title = numbered(cluster.title, n);
      taken.add(importedTitle(title));
    }
    written.add(importedTitle(title));
    titles.set(cluster.id, title);
  }
  return titles;
}

/** `title (n)`, the title shortened by whole characters when the suffix would pass the limit. */
function numbered(title: string, n: number): string {
  const suffix = ` (${n})`;
  if (title.length + suffix.length <= CARD_TITLE_MAX) return `${title}${suffix}`;
  const characters = Array.from(title);
  let length = title.length;
  while (length + suffix.length > CARD_TITLE_MAX) length -= characters.pop()!.length;
  return `${characters.join('').trimEnd()}${suffix}`;
}
