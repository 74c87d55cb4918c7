import type { ExportReport, ReportCard, ReportCriterion } from '../report';

export interface ClusterGroup {
  cluster: ReportCard;
  ideas: ReportCard[];
}

/** Clusters in board order, each with its ideas in their order. */
export function clusterGroups(report: ExportReport): ClusterGroup[] {
  const groups = new Map<string, ClusterGroup>();
  for (const card of report.cards) {
    if (card.type === 'cluster') groups.set(card.id, { cluster: card, ideas: [] });
    else if (card.clusterId !== null) groups.get(card.clusterId)?.ideas.push(card);
  }
  return [...groups.values()];
}

/** Every point a cluster's votes gave: those on the cluster's own card and on its ideas. */
export function clusterScore({ cluster, ideas }: ClusterGroup): number {
  return ideas.reduce((sum, idea) => sum + idea.score, cluster.score);
}

export function groupBy<T>(values: readonly T[], keyOf: (value: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const value of values) {
    const key = keyOf(value);
    const group = groups.get(key);
    if (group) group.push(value);
    else groups.set(key, [value]);
  }
  return groups;
}

export interface RankedIdea {
  /** Shared by ideas with the same score ("1, 2, 2, 4"). */
  rank: number;
  idea: ReportCard;
}

/** How many ideas a report ranks. */
const TOP_IDEAS = 10;

/**
 * The best-scored ideas that received votes (ten at most), best first; ties keep the one with more
 * votes, then board order, first.
 */
export function topIdeas(report: ExportReport): RankedIdea[] {
  const voted = report.cards
    .map((card, order) => ({ card, order }))
    .filter(({ card }) => card.type === 'idea' && card.voteCount > 0)
    .sort((a, b) => b.card.score - a.card.score || b.card.voteCount - a.card.voteCount || a.order - b.order)
    .slice(0, TOP_IDEAS);
  let rank = 0;
  return voted.map(({ card }, index) => {
    if (index === 0 || voted[index - 1]!.card.score !== card.score) rank = index + 1;
    return { rank, idea: card };
  });
}

/** The middle of a criterion's scale, where the 2×2 splits low from high. */
export function middleOf(criterion: ReportCriterion): number {
  return (criterion.min + criterion.max) / 2;
}

export interface Quadrant {
  /** Whether the ideas sit in the high half of the first and of the second criterion. */
  highFirst: boolean;
  highSecond: boolean;
  ideas: ReportCard[];
}

export interface Placement {
  /** High/high, high/low, low/high, low/low. */
  quadrants: Quadrant[];
  /** Ideas without an average on one of the two criteria. */
  unrated: ReportCard[];
}

/** Places every idea rated on both criteria in a quadrant; an average on the middle counts as high. */
export function placeOnTwoByTwo(report: ExportReport, first: ReportCriterion, second: ReportCriterion): Placement {
  const quadrants: Quadrant[] = [
    { highFirst: true, highSecond: true, ideas: [] },
    { highFirst: true, highSecond: false, ideas: [] },
    { highFirst: false, highSecond: true, ideas: [] },
    { highFirst: false, highSecond: false, ideas: [] },
  ];
  const unrated: ReportCard[] = [];
  for (const card of report.cards) {
    if (card.type !== 'idea') continue;
    const a = card.ratingAverages[first.id];
    const b = card.ratingAverages[second.id];
    if (a === undefined || b === undefined) {
      unrated.push(card);
      continue;
    }
    const highFirst = a >= middleOf(first);
    const highSecond = b >= middleOf(second);
    quadrants.find((q) => q.highFirst === highFirst && q.highSecond === highSecond)!.ideas.push(card);
  }
  return { quadrants, unrated };
}

/** How a card is named where it is referred to: its number and title. */
export function cardLabel(card: ReportCard): string {
  return `#${card.shortId} ${card.title}`;
}
