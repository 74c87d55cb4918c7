/**
 * What every human-readable export (pdf, docx, xlsx, csv) shows, read from one consistent snapshot
 * of the database. Plain data only (strings, numbers, arrays, records): it is built and rendered in
 * the export worker, and tests build it by hand to exercise a format on its own.
 */
export interface ExportReport {
  /** ISO instant the snapshot was read. */
  generatedAt: string;
  workshop: ReportWorkshop;
  /** The agenda, in order. */
  steps: ReportStep[];
  /** In the workshop's order. */
  criteria: ReportCriterion[];
  /** In the workshop's order. */
  sections: ReportSection[];
  /**
   * Clusters in board order, each followed by its ideas in their order; ideas without a cluster
   * never exist (docs/api.md#cards), so every idea's `clusterId` names a cluster listed before it.
   */
  cards: ReportCard[];
  /** Oldest first. */
  votes: ReportVote[];
  ratings: ReportRating[];
  items: ReportItem[];
  comments: ReportComment[];
  /** The workshop's canvas with its zones, or null when it has none. */
  canvas: ReportCanvas | null;
}

export interface ReportWorkshop {
  id: string;
  title: string;
  description: string;
  createdAt: string;
  state: 'running' | 'archived';
  /**
   * The workshop's language (docs/i18n.md#which-language): every word of the report that is not
   * people's own, its dates and numbers, and its direction (right to left for Arabic).
   */
  language: string;
  /** Display names, in the order they became facilitators. */
  facilitators: string[];
  participantCount: number;
  currentStepId: string | null;
}

export interface ReportStep {
  id: string;
  /** 1-based place in the agenda. */
  number: number;
  name: string;
  instructions: string;
}

export interface ReportCriterion {
  id: string;
  title: string;
  /**
   * The values a rating on this criterion may take, ascending (the API's `current_scale`, e.g.
   * [0, 1, 3, 9]); `min` and `max` are its ends, and a scale's middle is (min + max) / 2.
   */
  values: number[];
  min: number;
  max: number;
}

export interface ReportSection {
  id: string;
  title: string;
}

export interface ReportCard {
  id: string;
  /** The card's number in the workshop, as the API's `short_id`. */
  shortId: string;
  type: 'idea' | 'cluster';
  title: string;
  content: string;
  color: string | null;
  aside: boolean;
  /** The cluster of an idea; null for clusters. */
  clusterId: string | null;
  /** Title of `clusterId`'s card ('' for clusters): what the CSV's `cluster` column holds. */
  clusterTitle: string;
  /** Position among its siblings, from 0. */
  position: number;
  /** Canvas coordinates, null when the card was never placed. */
  x: number | null;
  y: number | null;
  /**
   * The author's name; null when it was written anonymously and an export may not name them
   * (docs/api.md#private-writing-and-anonymous-authors).
   */
  author: string | null;
  createdAt: string;
  /** Sum of vote values. */
  score: number;
  voteCount: number;
  /** Sum of positive vote values. */
  positivePoints: number;
  /** Sum of the magnitudes of negative vote values. */
  negativePoints: number;
  /** Criterion id → average rating, absent when nobody rated the card on it. */
  ratingAverages: Record<string, number>;
  ratingCount: number;
  commentCount: number;
  itemCount: number;
}

export interface ReportVote {
  cardId: string;
  user: string;
  value: number;
  createdAt: string;
}

export interface ReportRating {
  cardId: string;
  criterionId: string;
  user: string;
  value: number;
  createdAt: string;
}

export interface ReportItem {
  cardId: string;
  sectionId: string;
  /** The author's name; null when it was written anonymously and an export may not name them. */
  user: string | null;
  content: string;
  createdAt: string;
}

export interface ReportComment {
  cardId: string;
  /** The author's name; null when it was written anonymously and an export may not name them. */
  user: string | null;
  content: string;
  createdAt: string;
}

export interface ReportCanvas {
  name: string;
  /** The canvas's extent in grid units, which zones' x/y/cols/rows are measured in. */
  cols: number;
  rows: number;
  zones: ReportZone[];
}

export interface ReportZone {
  id: string;
  name: string;
  x: number;
  y: number;
  cols: number;
  rows: number;
  /** The cluster this zone stands for, if any. */
  clusterId: string | null;
}

/** A rendered export: its bytes and what to call and serve them as. */
export interface RenderedExport {
  data: Uint8Array;
  mimetype: string;
  /** File extension without the dot. */
  extension: string;
}
