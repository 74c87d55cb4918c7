import { fromPackageRoot } from '../../lib/package-root';
import { deepFreeze, loadJsonCatalog } from '../../lib/json-catalog';
import {
  PredefinedCanvasFile,
  toPredefinedCanvas,
  type PredefinedCanvas,
  type PredefinedCanvasOutput,
} from './schemas';

export interface CanvasCatalog {
  /** The predefined canvases as validated from their files, by slug. */
  readonly canvases: ReadonlyMap<string, PredefinedCanvas>;
  /** Their API output, in slug order, built once. */
  readonly outputs: readonly PredefinedCanvasOutput[];
}

const CATALOG_DIR = fromPackageRoot('src', 'modules', 'canvas', 'catalog');

export function loadCanvasCatalog(dir = CATALOG_DIR): CanvasCatalog {
  const canvases = loadJsonCatalog(dir, PredefinedCanvasFile, 'predefined canvas') as ReadonlyMap<
    string,
    PredefinedCanvas
  >;
  return { canvases, outputs: deepFreeze([...canvases.values()].map(toPredefinedCanvas)) };
}

/** The built-in predefined canvases, read once when the module loads. */
export const CANVASES: CanvasCatalog = loadCanvasCatalog();
