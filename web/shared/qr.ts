import { create } from 'qrcode/lib/core/qrcode.js';

const SVG = 'http://www.w3.org/2000/svg';
/** The blank border a reader needs around the symbol, in modules (the standard's minimum). */
const QUIET_ZONE = 4;

/**
 * The QR code of `text` as an SVG element: one path of dark modules on a white square, drawn as
 * elements (no markup parsed, no `data:` image, so the page's policy stays as it is).
 */
export function qrElement(text: string, label: string): SVGSVGElement {
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  const { size } = modules;
  const extent = size + 2 * QUIET_ZONE;
  // Runs of dark modules on each row, one `h` segment each: a few hundred segments, not thousands.
  let d = '';
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      if (!modules.get(row, col)) continue;
      let run = 1;
      while (col + run < size && modules.get(row, col + run)) run++;
      d += `M${col + QUIET_ZONE} ${row + QUIET_ZONE}h${run}v1h-${run}z`;
      col += run - 1;
    }
  }
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${extent} ${extent}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('shape-rendering', 'crispEdges');
  const background = document.createElementNS(SVG, 'rect');
  background.setAttribute('width', String(extent));
  background.setAttribute('height', String(extent));
  background.setAttribute('fill', '#fff');
  const dark = document.createElementNS(SVG, 'path');
  dark.setAttribute('d', d);
  dark.setAttribute('fill', '#000');
  svg.append(background, dark);
  return svg;
}
