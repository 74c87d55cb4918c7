import type { View, ViewInput } from '../../domain/view';
import { invalid } from '../../http/errors';
import { msg } from '../../i18n/messages';

/**
 * A view sorted by criterion average must say which criterion. Checked on the merged view of a
 * request that set view members, so a sort and its criterion may come in the same request.
 */
export function assertSortable(view: View, patch: ViewInput | undefined, path = 'view'): void {
  if (patch && view.sort === 'criterium_average' && !view.sort_criterium_id) {
    throw invalid(`${path}.sort_criterium_id`, msg('error.workshops.sort_needs_criterion'));
  }
}
