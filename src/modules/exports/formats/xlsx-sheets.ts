import { t } from '../../../i18n/messages';
import type { ExportReport, ReportCard, ReportCriterion } from '../report';
import { clusterGroups } from './report-views';
import { tableOf, type Cell, type Column, type Table } from './xlsx-table';

const date = (iso: string) => new Date(iso);
/** A card's number: the API's `short_id`, as a number so that it sorts as one. */
const shortId = (card: ReportCard | undefined) => (card ? Number(card.shortId) : null);
const created = (lang: string): Column<{ createdAt: string }> => ({
  header: t(lang, 'export.column.created'),
  kind: 'date',
  value: (row) => date(row.createdAt),
});

/** The resource sheets, in the order they follow the summary. */
export function reportSheets(report: ExportReport): Table[] {
  const lang = report.workshop.language;
  const CREATED = created(lang);
  const cardsById = new Map(report.cards.map((card) => [card.id, card]));
  const nameOf = (list: ReadonlyArray<{ id: string; title: string }>) => {
    const titles = new Map(list.map((entry) => [entry.id, entry.title]));
    return (id: string) => titles.get(id) ?? null;
  };
  const criterionTitle = nameOf(report.criteria);
  const sectionTitle = nameOf(report.sections);
  // Votes, ratings, items and comments each name their card by number and title.
  const onCard = <Row extends { cardId: string }>(): Column<Row>[] => [
    { header: t(lang, 'export.column.card'), kind: 'integer', value: (row) => shortId(cardsById.get(row.cardId)) },
    {
      header: t(lang, 'export.column.card_title'),
      kind: 'text',
      value: (row) => cardsById.get(row.cardId)?.title ?? null,
    },
  ];
  const user: Column<{ user: string | null }> = {
    header: t(lang, 'export.column.user'),
    kind: 'text',
    value: (row) => row.user,
  };
  const value: Column<{ value: number }> = {
    header: t(lang, 'export.column.value'),
    kind: 'integer',
    value: (row) => row.value,
  };
  const content: Column<{ content: string }> = {
    header: t(lang, 'export.column.content'),
    kind: 'text',
    value: (row) => row.content,
  };

  return [
    tableOf(t(lang, 'export.sheet.cards'), cardColumns(lang, report.criteria), report.cards),
    tableOf(t(lang, 'export.sheet.votes'), [...onCard(), user, value, CREATED], report.votes),
    tableOf(
      t(lang, 'export.sheet.ratings'),
      [
        ...onCard(),
        { header: t(lang, 'export.column.criterion'), kind: 'text', value: (row) => criterionTitle(row.criterionId) },
        user,
        value,
        CREATED,
      ],
      report.ratings,
    ),
    tableOf(
      t(lang, 'export.sheet.items'),
      [
        ...onCard(),
        { header: t(lang, 'export.column.section'), kind: 'text', value: (row) => sectionTitle(row.sectionId) },
        user,
        content,
        CREATED,
      ],
      report.items,
    ),
    tableOf(t(lang, 'export.sheet.comments'), [...onCard(), user, content, CREATED], report.comments),
    tableOf(
      t(lang, 'export.sheet.steps'),
      [
        { header: t(lang, 'export.column.step'), kind: 'integer', value: (step) => step.number },
        { header: t(lang, 'export.column.name'), kind: 'text', value: (step) => step.name },
        { header: t(lang, 'export.column.instructions'), kind: 'text', value: (step) => step.instructions },
        {
          header: t(lang, 'export.column.current'),
          kind: 'boolean',
          value: (step) => step.id === report.workshop.currentStepId,
        },
      ],
      report.steps,
    ),
  ];
}

const averageHeader = (lang: string, criterion: ReportCriterion) =>
  t(lang, 'export.column.average', { criterion: criterion.title });

function cardColumns(lang: string, criteria: readonly ReportCriterion[]): Column<ReportCard>[] {
  const column = (header: string, kind: Column<ReportCard>['kind'], value: Column<ReportCard>['value']) => ({
    header,
    kind,
    value,
  });
  return [
    column(t(lang, 'export.column.short_id'), 'integer', shortId),
    column(t(lang, 'export.column.type'), 'text', (card) => t(lang, 'export.value.card_type', { type: card.type })),
    column(t(lang, 'export.column.title'), 'text', (card) => card.title),
    column(t(lang, 'export.column.content'), 'text', (card) => card.content),
    column(t(lang, 'export.column.cluster'), 'text', (card) => (card.type === 'idea' ? card.clusterTitle : null)),
    column(t(lang, 'export.column.color'), 'text', (card) => card.color),
    column(t(lang, 'export.column.aside'), 'boolean', (card) => card.aside),
    column(t(lang, 'export.column.author'), 'text', (card) => card.author),
    created(lang),
    column(t(lang, 'export.column.score'), 'integer', (card) => card.score),
    column(t(lang, 'export.column.votes'), 'integer', (card) => card.voteCount),
    column(t(lang, 'export.column.positive_points'), 'integer', (card) => card.positivePoints),
    column(t(lang, 'export.column.negative_points'), 'integer', (card) => card.negativePoints),
    ...criteria.map((criterion) =>
      column(averageHeader(lang, criterion), 'decimal', (card) => card.ratingAverages[criterion.id] ?? null),
    ),
    column(t(lang, 'export.column.comments'), 'integer', (card) => card.commentCount),
    column(t(lang, 'export.column.items'), 'integer', (card) => card.itemCount),
  ];
}

/** A cluster with its ideas, or the whole workshop for the total row. */
interface Group {
  cluster: ReportCard | null;
  /** The cluster's card (when there is one) and its ideas. */
  cards: ReportCard[];
  ideas: ReportCard[];
}

/** What the summary sheet shows: the workshop's facts above a table of clusters and its total. */
export interface Summary {
  facts: Array<[string, Cell]>;
  table: Table;
  total: Cell[];
}

/**
 * One row per cluster. Votes, score and comments count the cluster's own card with its ideas, so
 * the total row holds every vote, point and comment of the workshop; a criterion's average is the
 * mean of the averages of the ideas rated on it (each idea weighs the same), blank when none was.
 */
export function summaryOf(report: ExportReport): Summary {
  const groups = clusterGroups(report).map(({ cluster, ideas }): Group => ({
    cluster,
    cards: [cluster, ...ideas],
    ideas,
  }));
  const sum = (cards: readonly ReportCard[], figure: (card: ReportCard) => number) =>
    cards.reduce((total, card) => total + figure(card), 0);
  const lang = report.workshop.language;
  const total = t(lang, 'export.value.total');
  const columns: Column<Group>[] = [
    {
      header: t(lang, 'export.column.short_id'),
      kind: 'integer',
      value: (group) => (group.cluster ? shortId(group.cluster) : null),
    },
    { header: t(lang, 'export.column.cluster'), kind: 'text', value: (group) => group.cluster?.title ?? total },
    { header: t(lang, 'export.column.ideas'), kind: 'integer', value: (group) => group.ideas.length },
    {
      header: t(lang, 'export.column.votes'),
      kind: 'integer',
      value: (group) => sum(group.cards, (card) => card.voteCount),
    },
    {
      header: t(lang, 'export.column.score'),
      kind: 'integer',
      value: (group) => sum(group.cards, (card) => card.score),
    },
    ...report.criteria.map((criterion): Column<Group> => ({
      header: averageHeader(lang, criterion),
      kind: 'decimal',
      value: (group) => meanRating(group.ideas, criterion),
    })),
    {
      header: t(lang, 'export.column.comments'),
      kind: 'integer',
      value: (group) => sum(group.cards, (card) => card.commentCount),
    },
  ];
  const whole: Group = {
    cluster: null,
    cards: report.cards,
    ideas: report.cards.filter((card) => card.type === 'idea'),
  };
  const { workshop } = report;
  return {
    facts: [
      [t(lang, 'export.fact.workshop'), workshop.title],
      [t(lang, 'export.fact.generated'), date(report.generatedAt)],
      [t(lang, 'export.fact.facilitators'), workshop.facilitators.join(', ')],
      [t(lang, 'export.fact.participants'), workshop.participantCount],
    ],
    table: tableOf(t(lang, 'export.sheet.summary'), columns, groups),
    total: columns.map((column) => column.value(whole)),
  };
}

function meanRating(ideas: readonly ReportCard[], criterion: ReportCriterion): number | null {
  const averages = ideas.map((idea) => idea.ratingAverages[criterion.id]).filter((value) => value !== undefined);
  return averages.length === 0 ? null : averages.reduce((a, b) => a + b, 0) / averages.length;
}
