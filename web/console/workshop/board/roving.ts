/*
 * The board's keyboard travel with few tab stops. A card's controls (its grip, its title, an
 * idea's "Move to…" and "Merge with…") are out of the tab order but one: the control last focused
 * on the board (the first card's grip to start with), so Tab enters the board once and leaves it
 * at the next cluster's own controls. From a card's control, while no card is held:
 * - Up and Down go to the previous or next card's grip (a cluster, then its ideas, in order);
 * - Left and Right go through the card's own controls, in the reading direction (from the right in
 *   an Arabic console, docs/i18n.md#right-to-left);
 * - Page Up and Page Down go to the previous or next cluster; Home and End to the first and last card.
 * A held card takes the arrow keys itself (board/keyboard.ts).
 */

/** The attribute that marks a card's controls in this roving order. */
export const NAV = 'data-nav';

const cardsIn = (root: HTMLElement) => Array.from(root.querySelectorAll<HTMLElement>('[data-card-id]'));

/** A card's own controls (a cluster's are in its head, not its ideas'). */
export function controlsOf(card: HTMLElement): HTMLElement[] {
  const own = card.dataset.kind === 'cluster' ? card.querySelector(':scope > .cluster-head') : card;
  return own ? Array.from(own.querySelectorAll<HTMLElement>(`[${NAV}]`)) : [];
}

/** Focuses `card`'s grip (or its first control), bringing it into view. */
export function focusCard(card: HTMLElement | null | undefined): boolean {
  const control = card && controlsOf(card)[0];
  if (!control) return false;
  control.focus();
  return true;
}

/** Makes `control` the board's one tab stop. */
export function takeTabStop(root: HTMLElement, control: HTMLElement): void {
  for (const other of root.querySelectorAll<HTMLElement>(`[${NAV}][tabindex="0"]`))
    if (other !== control) other.tabIndex = -1;
  control.tabIndex = 0;
}

/** After a redraw: the board keeps exactly one tab stop among its cards (the first grip when its own went away). */
export function keepTabStop(root: HTMLElement | null): void {
  if (!root || root.querySelector(`[${NAV}][tabindex="0"]`)) return;
  const first = root.querySelector<HTMLElement>(`[${NAV}]`);
  if (first) first.tabIndex = 0;
}

/** Handles a key pressed on one of a card's controls; true when it moved the focus. */
export function travel(root: HTMLElement, event: KeyboardEvent): boolean {
  const control = (event.target as Element).closest<HTMLElement>(`[${NAV}]`);
  const card = control?.closest<HTMLElement>('[data-card-id]');
  if (!control || !card || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return false;
  const cards = () => cardsIn(root);
  const clusters = () => cards().filter((element) => element.dataset.kind === 'cluster');
  const clusterOf = card.closest<HTMLElement>('[data-kind="cluster"]');
  let to: HTMLElement | null | undefined;
  switch (event.key) {
    case 'ArrowDown':
    case 'ArrowUp': {
      const all = cards();
      to = all[all.indexOf(card) + (event.key === 'ArrowDown' ? 1 : -1)];
      break;
    }
    case 'ArrowRight':
    case 'ArrowLeft': {
      const own = controlsOf(card);
      const onward = getComputedStyle(root).direction === 'rtl' ? 'ArrowLeft' : 'ArrowRight';
      const next = own[own.indexOf(control) + (event.key === onward ? 1 : -1)];
      if (next) next.focus();
      event.preventDefault();
      return Boolean(next);
    }
    case 'PageDown':
    case 'PageUp': {
      const all = clusters();
      const at = all.indexOf(clusterOf!);
      // Page Up from an idea goes to its own cluster first.
      to = event.key === 'PageUp' && card !== clusterOf ? clusterOf : all[at + (event.key === 'PageDown' ? 1 : -1)];
      break;
    }
    case 'Home':
      to = cards()[0];
      break;
    case 'End':
      to = cards().at(-1);
      break;
    default:
      return false;
  }
  event.preventDefault();
  return focusCard(to);
}
