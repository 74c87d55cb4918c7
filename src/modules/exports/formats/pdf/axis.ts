/** Round steps (1, 2, 5 × 10ⁿ, whole numbers) covering `low`..`high` in about `count` ticks. */
export function ticksFor(low: number, high: number, count: number): number[] {
  const raw = (high - low) / count;
  if (raw <= 0) return [low];
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].find((factor) => factor * power >= raw)! * power);
  const ticks: number[] = [];
  for (let tick = Math.floor(low / step) * step; tick <= Math.ceil(high / step) * step; tick += step) ticks.push(tick);
  return ticks;
}
