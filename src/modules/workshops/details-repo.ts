import { asc, eq, sql } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';
import { jsonSqlOf } from '../../db/json-sql';
import { named, preparedPerDb } from '../../db/prepared';
import { inList } from '../../db/sql';
import type { CardAuthors } from '../access/visibility';

/* Queries of what a workshop's answer shows beside its own row (`output.ts`). */

// GET /v1/workshops/:id is a hot path: the owner, sections, criteria and ratings come from one
// prepared statement, in which the database builds the JSON (as text, in each dialect's words).
const details = preparedPerDb((db: Db) => {
  const { workshops } = tablesOf(db);
  // 'all', or the id of the only user whose ratings are included.
  const ratingsOf = sql.placeholder('ratingsOf');
  // '1' for ratings on every card; else only on cards by the authors listed in `cardAuthors` (a private step).
  const allCards = sql.placeholder('allCards');
  const { object, list, asText } = jsonSqlOf(db);
  const ownerOf = (table: string, alias: string) =>
    sql`(select ${asText(sql`${object}('id', ${sql.raw(alias)}.id, 'name', ${sql.raw(alias)}.name, 'avatar_url', ${sql.raw(alias)}.avatar_url, 'plan_name', ${sql.raw(alias)}.plan_name)`)} from ${sql.raw(table)} ${sql.raw(alias)} where ${sql.raw(alias)}.id = workshops.owner_id)`;
  // Drizzle leaves columns of a single-table select unqualified, which subqueries would capture.
  return named(
    db
      .select({
        owner: sql<
          string | null
        >`case when workshops.owner_type = 'organization' then ${ownerOf('organizations', 'o')} else ${ownerOf('users', 'u')} end`,
        sections: sql<string>`${list(sql`${object}('id', s.id, 'title', s.title)`, 's.position, s.id', sql`sections s where s.workshop_id = workshops.id`)}`,
        criteria: sql<string>`${list(sql`${object}('id', c.id, 'title', c.title, 'scale', c.scale)`, 'c.position, c.id', sql`criteria c where c.workshop_id = workshops.id`)}`,
        ratings: sql<string>`${list(
          // A deleted account's rating counts, naming nobody (docs/api.md#an-accounts-life).
          sql`${object}('id', r.id, 'value', r.value, 'user_id', (select du.id from users du where du.id = r.user_id and du.deleted_at is null), 'criterium_id', r.criterium_id, 'card_id', r.card_id)`,
          'r.created_at, r.id',
          sql`ratings r where r.workshop_id = workshops.id and (cast(${ratingsOf} as text) = 'all' or r.user_id = cast(${ratingsOf} as text))
            and (cast(${allCards} as text) = '1' or exists (select 1 from cards k where k.id = r.card_id and ${inList(db, sql`k.user_id`, sql.placeholder('cardAuthors'))}))`,
        )}`,
        stepPrefs: sql<
          string | null
        >`(select ${asText(sql.raw('st.prefs'))} from steps st where st.id = workshops.current_step_id)`,
        // SQLite's 0 or 1, PostgreSQL's boolean (`sqlBoolean`).
        hasCanvas: sql<unknown>`exists (select 1 from canvases cv where cv.workshop_id = workshops.id)`,
      })
      .from(workshops)
      .where(eq(workshops.id, sql.placeholder('workshopId'))),
    'workshops_details',
  );
});

const sectionQueries = preparedPerDb((db: Db) => {
  const { sections } = tablesOf(db);
  return {
    sections: named(
      db
        .select()
        .from(sections)
        .where(eq(sections.workshopId, sql.placeholder('workshopId')))
        .orderBy(asc(sections.position), asc(sections.id)),
      'workshops_sections',
    ),
  };
});

/**
 * The JSON text of the workshop's owner, sections, criteria, ratings and current step's prefs, and
 * whether it has a canvas (undefined for a missing workshop). `ratingsOf`: 'all', '' for none, or
 * the id of the only user whose ratings are included; only ratings on cards by `cardAuthors` are.
 */
export async function detailsRow(db: Db, workshopId: string, ratingsOf: string, cardAuthors: CardAuthors) {
  const [found] = await details(db).execute({
    workshopId,
    ratingsOf,
    allCards: cardAuthors === 'all' ? '1' : '0',
    cardAuthors: JSON.stringify(cardAuthors === 'all' ? [] : [...cardAuthors]),
  });
  return found;
}

/** The workshop's sections, by position. */
export function sectionRowsInOrder(db: Db, workshopId: string): Promise<Array<Schema['sections']['$inferSelect']>> {
  return sectionQueries(db).sections.execute({ workshopId });
}
