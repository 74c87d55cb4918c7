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
  claim(box: Box): boolean {
    const { within } = this;
    if (box.x < within.x || box.y < within.y || box.x + box.width > within.x + within.width || box.y + box.height > within.y + within.height) return false;
    const overlaps = this.taken.some(
      (other) => box.x < other.x + other.width && other.x < box.x + box.width && box.y < other.y + other.height && other.y < box.y + box.height,
    );
    if (!overlaps) this.taken.push(box);
    return !overlaps;
  }

  /** The first of `boxes` that is free, claimed; undefined when none is. */
  claimFirst(boxes: readonly Box[]): Box | undefined {
    return boxes.find((box) => this.claim(box));
  }
}
