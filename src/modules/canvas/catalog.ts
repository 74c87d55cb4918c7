import { fromPackageRoot } from '../../lib/package-root';
import { deepFreeze, loadJsonCatalog } from '../../lib/json-catalog';
import { namedTextIn } from '../../i18n/named-text';
import {
  PredefinedCanvasFile,
  toPredefinedCanvas,
  type PredefinedCanvas,
  type PredefinedCanvasOutput,
} from './schemas';

export interface CanvasCatalog {
  /** The predefined canvases as validated from their files (their words are message ids), by slug. */
  readonly canvases: ReadonlyMap<string, PredefinedCanvas>;
  /** Their API output in `lang`, in slug order, made on first use in each language. */
  outputs(lang: string): readonly PredefinedCanvasOutput[];
}

const CATALOG_DIR = fromPackageRoot('src', 'modules', 'canvas', 'catalog');

/** A predefined canvas with its name and zone names in `lang` (docs/i18n.md#template-and-canvas-text). */
function canvasIn(canvas: PredefinedCanvas, lang: string): PredefinedCanvas {
  const say = (id: string) => namedTextIn(lang, id);
  return { ...canvas, name: say(canvas.name), zones: canvas.zones.map((zone) => ({ ...zone, name: say(zone.name) })) };
}

export function loadCanvasCatalog(dir = CATALOG_DIR): CanvasCatalog {
  const canvases = loadJsonCatalog(dir, PredefinedCanvasFile, 'predefined canvas') as ReadonlyMap<
    string,
    PredefinedCanvas
  >;
  const inLanguage = new Map<string, readonly PredefinedCanvasOutput[]>();
  return {
    canvases,
    outputs(lang) {
      let found = inLanguage.get(lang);
      if (!found) {
        found = deepFreeze([...canvases.values()].map((canvas) => toPredefinedCanvas(canvasIn(canvas, lang))));
        inLanguage.set(lang, found);
      }
      return found;
    },
  };
}

/** The built-in predefined canvases, read once when the module loads. */
export const CANVASES: CanvasCatalog = loadCanvasCatalog();
