import type * as pg from './schema-pg/index';
import type * as sqlite from './schema/index';

/*
 * The two schemas describe the same rows: query code is typed on the SQLite tables and runs on
 * the PostgreSQL ones (`database.ts`), so a column added to one and not the other, or typed
 * differently, must not compile. One check per table, on what it reads and what it takes.
 */

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Check<T extends true> = T;

type Tables = keyof typeof sqlite & keyof typeof pg;
type SameRow<K extends Tables> = Same<(typeof sqlite)[K]['$inferSelect'], (typeof pg)[K]['$inferSelect']>;
type SameInsert<K extends Tables> = Same<(typeof sqlite)[K]['$inferInsert'], (typeof pg)[K]['$inferInsert']>;
type SameTables = Same<keyof typeof sqlite, keyof typeof pg>;

export type SchemaChecks = [
  Check<SameTables>,
  Check<SameRow<'users'>>, Check<SameInsert<'users'>>,
  Check<SameRow<'authTokens'>>, Check<SameInsert<'authTokens'>>,
  Check<SameRow<'oneTimeTokens'>>, Check<SameInsert<'oneTimeTokens'>>,
  Check<SameRow<'outbox'>>, Check<SameInsert<'outbox'>>,
  Check<SameRow<'authState'>>, Check<SameInsert<'authState'>>,
  Check<SameRow<'digestRuns'>>, Check<SameInsert<'digestRuns'>>,
  Check<SameRow<'organizations'>>, Check<SameInsert<'organizations'>>,
  Check<SameRow<'organizationMembers'>>, Check<SameInsert<'organizationMembers'>>,
  Check<SameRow<'workshops'>>, Check<SameInsert<'workshops'>>,
  Check<SameRow<'workshopMembers'>>, Check<SameInsert<'workshopMembers'>>,
  Check<SameRow<'steps'>>, Check<SameInsert<'steps'>>,
  Check<SameRow<'stepIllustrations'>>, Check<SameInsert<'stepIllustrations'>>,
  Check<SameRow<'criteria'>>, Check<SameInsert<'criteria'>>,
  Check<SameRow<'sections'>>, Check<SameInsert<'sections'>>,
  Check<SameRow<'invitations'>>, Check<SameInsert<'invitations'>>,
  Check<SameRow<'workshopTimers'>>, Check<SameInsert<'workshopTimers'>>,
  Check<SameRow<'cards'>>, Check<SameInsert<'cards'>>,
  Check<SameRow<'votes'>>, Check<SameInsert<'votes'>>,
  Check<SameRow<'voteTallies'>>, Check<SameInsert<'voteTallies'>>,
  Check<SameRow<'voteTotals'>>, Check<SameInsert<'voteTotals'>>,
  Check<SameRow<'ratings'>>, Check<SameInsert<'ratings'>>,
  Check<SameRow<'items'>>, Check<SameInsert<'items'>>,
  Check<SameRow<'comments'>>, Check<SameInsert<'comments'>>,
  Check<SameRow<'attachments'>>, Check<SameInsert<'attachments'>>,
  Check<SameRow<'events'>>, Check<SameInsert<'events'>>,
  Check<SameRow<'notifications'>>, Check<SameInsert<'notifications'>>,
  Check<SameRow<'files'>>, Check<SameInsert<'files'>>,
  Check<SameRow<'workshopExports'>>, Check<SameInsert<'workshopExports'>>,
  Check<SameRow<'yjsDocuments'>>, Check<SameInsert<'yjsDocuments'>>,
  Check<SameRow<'yjsUpdates'>>, Check<SameInsert<'yjsUpdates'>>,
  Check<SameRow<'canvases'>>, Check<SameInsert<'canvases'>>,
  Check<SameRow<'zones'>>, Check<SameInsert<'zones'>>,
  Check<SameRow<'rateLimits'>>, Check<SameInsert<'rateLimits'>>,
];
