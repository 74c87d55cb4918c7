import type { CardColor } from '../../../../domain/cards';

/** The board's cluster colours in print-friendly shades. */
const SHADES: Record<CardColor, string> = {
  blue: '#5b8def',
  green: '#6fcf97',
  red: '#eb5757',
  orange: '#f2994a',
  purple: '#9b51e0',
  yellow: '#f2c94c',
  turquoise: '#4fc3c9',
  rose: '#f48fb1',
  gray: '#9e9e9e',
  brown: '#a1887f',
  beige: '#e6d3a3',
};

export const ACCENT = SHADES.blue;

/** The fill for a card's colour; the accent for none, or one the board no longer knows. */
export function fillOf(color: string | null): string {
  return (color !== null && Object.hasOwn(SHADES, color) ? SHADES[color as CardColor] : undefined) ?? ACCENT;
}
