import type { LayoutCopy } from '../../collab/types';
import { copiedZone, copiedZones, writeZoneCopy } from './repo';

/** The zones side of the documents' SQL copy (`LayoutCopy`). */
export function zoneCopy(): Pick<LayoutCopy, 'zones' | 'zone' | 'writeZone'> {
  return { zones: copiedZones, zone: copiedZone, writeZone: writeZoneCopy };
}
