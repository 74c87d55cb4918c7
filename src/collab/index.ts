import { CollabEngine, type CollabDeps, type CollabOptions } from './engine';
import type { CollabService } from './types';

export type {
  CardCopy,
  CollabService,
  LayoutCopy,
  PlacementChange,
  SessionCheck,
  TransactionHooks,
  ZoneCopy,
} from './types';
export type { CardPlacement, ZoneState } from '../domain/canvas';
export type { CollabExtension } from './hooks';
export { CollabEngine, type CollabOptions } from './engine';

/** The Yjs documents of every workshop, served at `/v1/sync/:workshop_id`; Redis fan-out when configured. */
export function createCollab(deps: CollabDeps, options: Partial<CollabOptions> = {}): CollabService {
  return new CollabEngine(deps, options);
}
