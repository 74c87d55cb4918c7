import type { ExportReport, ReportCard, ReportCriterion } from '../report';
import { clusterGroups } from './report-views';
import { tableOf, type Cell, type Column, type Table } from './xlsx-table';

const date = (iso: string) => new Date(iso);
/** A card's number: the API's `short_id`, as a number so that it sorts as one. */
const shortId = (card: ReportCard | undefined) => (card ? Number(card.shortId) : null);
const CREATED: Column<{ createdAt: string }> = {
  header: 'Created (UTC)',
  kind: 'date',
  value: (row) => date(row.createdAt),
};

/** The resource sheets, in the order they follow the summary. */
export function reportSheets(report: ExportReport): Table[] {
  const cardsById = new Map(report.cards.map((card) => [card.id, card]));
  const nameOf = (list: ReadonlyArray<{ id: string; title: string }>) => {
    const titles = new Map(list.map((entry) => [entry.id, entry.title]));
    return (id: string) => titles.get(id) ?? null;
  };
  const criterionTitle = nameOf(report.criteria);
  const sectionTitle = nameOf(report.sections);
  // Votes, ratings, items and comments each name their card by number and title.
  const onCard = <Row extends { cardId: string }>(): Column<Row>[] => [
    { header: 'Card', kind: 'integer', value: (row) => shortId(cardsById.get(row.cardId)) },
    { header: 'Card title', kind: 'text', value: (row) => cardsById.get(row.cardId)?.title ?? null },
  ];
  const user: Column<{ user: string | null }> = { header: 'User', kind: 'text', value: (row) => row.user };

  return [
    tableOf('Cards', cardColumns(report.criteria), report.cards),
    tableOf(
      'Votes',
      [...onCard(), user, { header: 'Value', kind: 'integer', value: (row) => row.value }, CREATED],
      report.votes,
    ),
    tableOf(
      'Ratings',
      [
        ...onCard(),
        { header: 'Criterion', kind: 'text', value: (row) => criterionTitle(row.criterionId) },
        user,
        { header: 'Value', kind: 'integer', value: (row) => row.value },
        CREATED,
      ],
      report.ratings,
    ),
    tableOf(
      'Items',
      [
        ...onCard(),
        { header: 'Section', kind: 'text', value: (row) => sectionTitle(row.sectionId) },
        user,
        { header: 'Content', kind: 'text', value: (row) => row.content },
        CREATED,
      ],
      report.items,
    ),
    tableOf(
      'Comments',
      [...onCard(), user, { header: 'Content', kind: 'text', value: (row) => row.content }, CREATED],
      report.comments,
    ),
    tableOf(
      'Steps',
      [
        { header: 'Step', kind: 'integer', value: (step) => step.number },
        { header: 'Name', kind: 'text', value: (step) => step.name },
        { header: 'Instructions', kind: 'text', value: (step) => step.instructions },
        { header: 'Current', kind: 'boolean', value: (step) => step.id === report.workshop.currentStepId },
      ],
      report.steps,
    ),
  ];
}

const averageHeader = (criterion: ReportCriterion) => `${criterion.title} (average)`;

function cardColumns(criteria: readonly ReportCriterion[]): Column<ReportCard>[] {
  return [
    { header: 'Short id', kind: 'integer', value: shortId },
    { header: 'Type', kind: 'text', value: (card) => card.type },
    { header: 'Title', kind: 'text', value: (card) => card.title },
    { header: 'Content', kind: 'text', value: (card) => card.content },
    { header: 'Cluster', kind: 'text', value: (card) => (card.type === 'idea' ? card.clusterTitle : null) },
    { header: 'Color', kind: 'text', value: (card) => card.color },
    { header: 'Aside', kind: 'boolean', value: (card) => card.aside },
    { header: 'Author', kind: 'text', value: (card) => card.author },
    CREATED,
    { header: 'Score', kind: 'integer', value: (card) => card.score },
    { header: 'Votes', kind: 'integer', value: (card) => card.voteCount },
    { header: 'Positive points', kind: 'integer', value: (card) => card.positivePoints },
    { header: 'Negative points', kind: 'integer', value: (card) => card.negativePoints },
    ...criteria.map((criterion): Column<ReportCard> => ({
      header: averageHeader(criterion),
      kind: 'decimal',
      value: (card) => card.ratingAverages[criterion.id] ?? null,
    })),
    { header: 'Comments', kind: 'integer', value: (card) => card.commentCount },
    { header: 'Items', kind: 'integer', value: (card) => card.itemCount },
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
  const columns: Column<Group>[] = [
    { header: 'Short id', kind: 'integer', value: (group) => (group.cluster ? shortId(group.cluster) : null) },
    { header: 'Cluster', kind: 'text', value: (group) => group.cluster?.title ?? 'Total' },
    { header: 'Ideas', kind: 'integer', value: (group) => group.ideas.length },
    { header: 'Votes', kind: 'integer', value: (group) => sum(group.cards, (card) => card.voteCount) },
    { header: 'Score', kind: 'integer', value: (group) => sum(group.cards, (card) => card.score) },
    ...report.criteria.map((criterion): Column<Group> => ({
      header: averageHeader(criterion),
      kind: 'decimal',
      value: (group) => meanRating(group.ideas, criterion),
    })),
    { header: 'Comments', kind: 'integer', value: (group) => sum(group.cards, (card) => card.commentCount) },
  ];
  const whole: Group = {
    cluster: null,
    cards: report.cards,
    ideas: report.cards.filter((card) => card.type === 'idea'),
  };
  const { workshop } = report;
  return {
    facts: [
      ['Workshop', workshop.title],
      ['Generated (UTC)', date(report.generatedAt)],
      ['Facilitators', workshop.facilitators.join(', ')],
      ['Participants', workshop.participantCount],
    ],
    table: tableOf('Summary', columns, groups),
    total: columns.map((column) => column.value(whole)),
  };
}

function meanRating(ideas: readonly ReportCard[], criterion: ReportCriterion): number | null {
  const averages = ideas.map((idea) => idea.ratingAverages[criterion.id]).filter((value) => value !== undefined);
  return averages.length === 0 ? null : averages.reduce((a, b) => a + b, 0) / averages.length;
}
