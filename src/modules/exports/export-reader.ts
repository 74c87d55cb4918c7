import type { AuthorVisibility } from '../../domain/permissions';
import { readerWhoWroteNothing, seesAuthor, type Reader } from '../access/visibility';

/**
 * Who reads an export (docs/api.md#private-writing-and-anonymous-authors): a facilitator who wrote
 * none of it. The file is downloaded through a link that needs no token and can be passed on, so
 * even the facilitator who asked for it does not find their own name on what was written
 * anonymously: at `hidden_from_participants` an export names the author, at `hidden` none does.
 */
const EXPORT_READER: Reader = readerWhoWroteNothing('facilitator');

/** Whether an export may name the author of this card, comment or item. */
export function exportNamesAuthor(row: { userId: string | null; authorVisibility: AuthorVisibility }): boolean {
  return seesAuthor(EXPORT_READER, row.userId, row.authorVisibility);
}
