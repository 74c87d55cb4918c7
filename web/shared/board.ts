import type { Card, View } from 'workshop-sdk';
import type { Placement, Zone } from 'workshop-sdk/canvas';
import type { WorkshopState } from 'workshop-sdk/live';
import { zoneOfCluster } from './zones';

/*
 * What the screen shows, worked out from the live state and the canvas document, apart from the
 * DOM: which view applies, which cards pass it, in what order, and which zone holds which cluster.
 */

/** A top-level card (a cluster, or an idea outside any) with the ideas under it. */
export interface Stack {
  head: Card | null;
  ideas: Card[];
}

export interface ZoneArea {
  id: string;
  zone: Zone;
  stacks: Stack[];
}

export interface Board {
  /** The card the view puts in front of everyone, when it is among the cards shown. */
  focus: Card | null;
  /** Zones drawn on a grid of `cols` × `rows` canvas units, each with the clusters it holds. */
  zones: ZoneArea[];
  cols: number;
  rows: number;
  /** The stacks no zone holds, laid out as a plain grid. */
  loose: Stack[];
}

/**
 * The view this screen follows: a facilitator's screen shows the workshop's view (what they set is
 * what the room sees); a participant's follows it while `force_sync` is on, and shows the current
 * step's own view otherwise.
 */
export function screenView(state: WorkshopState, facilitating: boolean): { view: View; following: boolean } {
  if (facilitating || state.forceSync || !state.step)
    return { view: state.view, following: !facilitating && state.forceSync };
  return { view: state.step.view, following: false };
}

/** Scores show while the current step displays votes (or no step is current); hidden votes stay off the wall, whoever signed in. */
export function scoresVisible(state: WorkshopState): boolean {
  return !state.step || state.step.prefs.allow_display_votes;
}

/** A vote is on when a step is current and lets participants vote on ideas or clusters. */
export function votingOpen(state: WorkshopState): boolean {
  return state.step !== null && (state.step.prefs.allow_vote_on_ideas || state.step.prefs.allow_vote_on_clusters);
}

export interface BoardInput {
  cards: Card[];
  view: View;
  scoresShown: boolean;
  placements: Record<string, Placement>;
  zones: Record<string, Zone>;
  /** The canvas's background size in grid units, when the workshop has a canvas. */
  background: { cols: number; rows: number } | null;
}

export function boardOf(input: BoardInput): Board {
  const { view } = input;
  const shown = input.cards.filter((card) => passesStatus(card, view.card_status));
  const shownIds = new Set(shown.map((card) => card.id));
  const focus = view.card !== null && shownIds.has(view.card) ? shown.find((card) => card.id === view.card)! : null;
  const rank = ranking(view, input.scoresShown);

  if (view.show_clusters === 'none') {
    const ideas = shown.filter((card) => card.type === 'idea').sort(rank);
    return { focus, zones: [], cols: 0, rows: 0, loose: ideas.length > 0 ? [{ head: null, ideas }] : [] };
  }

  const stacks = shown
    .filter((card) => card.parent === null)
    .filter((card) => view.show_clusters !== 'multi' || view.show_cluster_ids.includes(card.id))
    .map((head) => ({ head, ideas: shown.filter((card) => card.parent === head.id).sort(rank) }));

  const areas: ZoneArea[] = Object.entries(input.zones)
    .sort(([, a], [, b]) => a.y - b.y || a.x - b.x)
    .map(([id, zone]) => ({ id, zone, stacks: [] }));
  const loose: Stack[] = [];
  for (const stack of stacks) {
    const zoneId = zoneOfCluster(input.zones, stack.head!.id, input.placements[stack.head!.id]);
    const area = areas.find(({ id }) => id === zoneId);
    (area ? area.stacks : loose).push(stack);
  }
  for (const area of areas) area.stacks.sort((a, b) => rank(a.head!, b.head!));
  loose.sort((a, b) => rank(a.head!, b.head!));

  const cols = Math.max(input.background?.cols ?? 0, ...areas.map(({ zone }) => zone.x + zone.cols));
  const rows = Math.max(input.background?.rows ?? 0, ...areas.map(({ zone }) => zone.y + zone.rows));
  return { focus, zones: areas, cols, rows, loose };
}

function passesStatus(card: Card, status: View['card_status']): boolean {
  if (status === 'all') return true;
  return status === 'aside' ? card.aside : !card.aside;
}

/**
 * The order the view asks for. Scores order only while they are shown (an order would give hidden
 * votes away); a criterion average is not part of the card list, so that sort keeps positions.
 */
function ranking(view: View, scoresShown: boolean): (a: Card, b: Card) => number {
  const byPosition = (a: Card, b: Card) => a.position - b.position;
  let compare = byPosition;
  if (view.sort === 'score' && scoresShown) compare = (a, b) => b.summary.score - a.summary.score || byPosition(a, b);
  // Shuffled once per card, not at every render: the wall must not reshuffle on each vote.
  if (view.sort === 'random') compare = (a, b) => shuffleKey(a.id) - shuffleKey(b.id) || byPosition(a, b);
  return view.sort_reverse ? (a, b) => compare(b, a) : compare;
}

function shuffleKey(id: string): number {
  let hash = 2166136261;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 16777619);
  return hash >>> 0;
}
