export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Labels of a crowded drawing: each one takes its place only where no earlier one is, so a dense
 * chart shows fewer labels instead of an unreadable pile (the tables below it name everything).
 */
export class LabelSpace {
  private readonly taken: Box[] = [];

  /** `within`: the drawing's area, which labels stay inside. */
  constructor(private readonly within: Box) {}

  /** Takes `box` whatever lies there (the dots the labels should keep off). */
  reserve(box: Box): void {
    this.taken.push(box);
  }

  /** Claims `box` when it lies inside the drawing and overlaps no claimed box; whether it did. */
  private claim(box: Box): boolean {
    const { within } = this;
    if (
      box.x < within.x ||
      box.y < within.y ||
      box.x + box.width > within.x + within.width ||
      box.y + box.height > within.y + within.height
    )
      return false;
    const overlaps = this.taken.some(
      (other) =>
        box.x < other.x + other.width &&
        other.x < box.x + box.width &&
        box.y < other.y + other.height &&
        other.y < box.y + box.height,
    );
    if (!overlaps) this.taken.push(box);
    return !overlaps;
  }

  /**
   * A place for a small label (`width` wide, 8 high) beside the mark at `x`, `y`: right of it,
   * left, above or below, the first that is free; undefined when none is.
   */
  claimBeside(x: number, y: number, width: number): Box | undefined {
    const candidates: Box[] = [
      { x: x + 6, y: y - 4, width, height: 8 },
      { x: x - 6 - width, y: y - 4, width, height: 8 },
      { x: x - width / 2, y: y - 14, width, height: 8 },
      { x: x - width / 2, y: y + 6, width, height: 8 },
    ];
    return candidates.find((box) => this.claim(box));
  }
}
