import type { LayoutCopy } from '../../collab/types';
import { copiedCard, copiedCards, copiedStack, isClusterOfWorkshop, writeCardPlacement } from './placement-repo';

/**
 * The cards side of the documents' SQL copy (`LayoutCopy`): which cards exist, in which stack, by
 * whom, and their placement columns. The documents write `position`, `x` and `y` of existing
 * cards only through `writeCard`, inside the transaction that stores the document update.
 */
export function placementCopy(): Pick<LayoutCopy, 'cards' | 'card' | 'stack' | 'isCluster' | 'writeCard'> {
  return {
    cards: copiedCards,
    card: copiedCard,
    stack: copiedStack,
    isCluster: isClusterOfWorkshop,
    writeCard: writeCardPlacement,
  };
}
