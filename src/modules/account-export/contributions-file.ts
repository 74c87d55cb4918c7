import type { Database } from '../../db/database';
import { contributionsIn, type Contributions, type ExportedWorkshopRow } from './repo';
import { StreamedArray } from '../../lib/streamed-json';
import type { ContributedWorkshop, ContributionsFile } from './schemas';

/*
 * The workshops of `contributions.json` (docs/api.md#your-data-export): what the person wrote,
 * voted and rated in workshops that are not theirs, read one workshop at a time.
 */

/**
 * The members of `contributions.json`, in the order of `ContributionsFile`: the workshops the user
 * may read here (`readable`), a workshop at a time; those of the organizations single sign-on keeps
 * this session out of only named (`withheld`). `owners` names the organizations.
 */
export function contributionsMembers(
  database: Database,
  userId: string,
  exportedAt: string,
  workshops: {
    readable: readonly ExportedWorkshopRow[];
    withheld: readonly string[];
    owners: ReadonlyMap<string, string>;
  },
): Record<keyof ContributionsFile, unknown> {
  const { readable, withheld, owners } = workshops;
  return {
    format: 'account-contributions',
    version: 1,
    exported_at: exportedAt,
    user_id: userId,
    workshops: new StreamedArray(() => contributionsOf(database, userId, readable, owners)),
    withheld_organizations: withheld.map((id) => ({ id, name: owners.get(id) ?? '' })),
  };
}

/** What the user wrote in each workshop, a workshop at a time. */
async function* contributionsOf(
  database: Database,
  userId: string,
  workshops: readonly ExportedWorkshopRow[],
  owners: ReadonlyMap<string, string>,
): AsyncGenerator<ContributedWorkshop> {
  for (const workshop of workshops) {
    const rows = await database.snapshot((db) => contributionsIn(db, workshop.id, userId));
    yield contributedWorkshop(workshop, owners, rows);
  }
}

function contributedWorkshop(
  workshop: ExportedWorkshopRow,
  owners: ReadonlyMap<string, string>,
  rows: Contributions,
): ContributedWorkshop {
  return {
    workshop: {
      id: workshop.id,
      title: workshop.title,
      created_at: workshop.createdAt,
      organization:
        workshop.ownerType === 'organization'
          ? { id: workshop.ownerId, name: owners.get(workshop.ownerId) ?? '' }
          : null,
    },
    role: rows.role,
    cards: rows.cards.map((card) => ({
      id: card.id,
      short_id: card.number,
      type: card.type,
      title: card.title,
      content: card.content,
      color: card.color,
      aside: card.aside,
      parent_id: card.parentId,
      author_visibility: card.authorVisibility,
      created_at: card.createdAt,
      updated_at: card.updatedAt,
    })),
    comments: rows.comments.map((comment) => ({
      id: comment.id,
      card_id: comment.cardId,
      content: comment.content,
      author_visibility: comment.authorVisibility,
      created_at: comment.createdAt,
    })),
    votes: rows.votes.map((vote) => ({
      id: vote.id,
      card_id: vote.cardId,
      value: vote.value,
      created_at: vote.createdAt,
    })),
    ratings: rows.ratings.map(({ rating, criterion }) => ({
      id: rating.id,
      card_id: rating.cardId,
      criterium_id: rating.criteriumId,
      criterion,
      value: rating.value,
      created_at: rating.createdAt,
    })),
    items: rows.items.map(({ item, section }) => ({
      id: item.id,
      card_id: item.cardId,
      section_id: item.sectionId,
      section,
      content: item.content,
      author_visibility: item.authorVisibility,
      created_at: item.createdAt,
    })),
    attachments: rows.attachments.map((attachment) => ({
      id: attachment.id,
      card_id: attachment.cardId,
      name: attachment.name,
      mimetype: attachment.mimetype,
      size: attachment.size,
      author_visibility: attachment.authorVisibility,
      created_at: attachment.createdAt,
    })),
  };
}
