import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { TestServer } from './server';
import { eq, sql } from 'drizzle-orm';
import { newId } from '../../src/db/columns';
import { cards, steps, workshopMembers, workshops } from '../../src/db/schema/index';
import { DEFAULT_PREFS, type StepPrefs } from '../../src/modules/steps/prefs';
import { DEFAULT_VIEW } from '../../src/modules/workshops/view';

export interface TestUser {
  token: string;
  id: string;
  email: string;
  name: string;
}

/** Signs a new user up through the API. */
export async function createUser(t: TestServer, name = 'User'): Promise<TestUser> {
  const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${randomBytes(4).toString('hex')}@example.test`;
  const res = await t.request('POST', '/v1/auth/signup', { body: { email, password: 'correct horse battery', name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { token: res.body.token, id: res.body.user.id, email, name };
}

/** Expects the contract's error shape with the given status and code. */
export function expectError(res: { status: number; body: any }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body?.error?.code, JSON.stringify(res.body)).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
}

/*
 * Seeding factories: write rows straight to the test server's database, for tests that need a
 * workshop, a member or a card as a starting point without going through those routes.
 * Tests of the routes themselves go through the API.
 */

export function seedWorkshop(t: TestServer, owner: TestUser, values: Partial<typeof workshops.$inferInsert> = {}) {
  const { db } = t.deps.database;
  const accessCode = String(100_000_000 + Math.floor(Math.random() * 899_999_999));
  const workshop = db
    .insert(workshops)
    .values({ ownerType: 'user', ownerId: owner.id, createdBy: owner.id, title: 'Seeded workshop', view: DEFAULT_VIEW, accessCode, ...values })
    .returning()
    .get();
  db.insert(workshopMembers).values({ workshopId: workshop.id, userId: owner.id, role: 'facilitator' }).run();
  return workshop;
}

export function seedMember(t: TestServer, workshopId: string, user: TestUser, role: 'facilitator' | 'participant' = 'participant') {
  t.deps.database.db.insert(workshopMembers).values({ workshopId, userId: user.id, role }).run();
}

/** Inserts a step with the given prefs and makes it the workshop's current step. */
export function seedCurrentStep(t: TestServer, workshopId: string, prefs: Partial<StepPrefs>) {
  const { db } = t.deps.database;
  const position = db.select({ n: sql<number>`count(*)` }).from(steps).where(eq(steps.workshopId, workshopId)).get()!.n;
  const step = db
    .insert(steps)
    .values({ workshopId, position, name: `Step ${position + 1}`, prefs: { ...DEFAULT_PREFS, ...prefs }, view: DEFAULT_VIEW })
    .returning()
    .get();
  db.update(workshops).set({ currentStepId: step.id }).where(eq(workshops.id, workshopId)).run();
  return step;
}

export function seedCard(
  t: TestServer,
  workshopId: string,
  author: TestUser,
  values: { type?: 'idea' | 'cluster'; title?: string; parentId?: string | null; aside?: boolean } = {},
) {
  const { db } = t.deps.database;
  return db.transaction((tx) => {
    const { number } = tx
      .update(workshops)
      .set({ lastCardNumber: sql`${workshops.lastCardNumber} + 1` })
      .where(eq(workshops.id, workshopId))
      .returning({ number: workshops.lastCardNumber })
      .get()!;
    const parentId = values.parentId ?? null;
    const siblings = tx
      .select({ n: sql<number>`count(*)` })
      .from(cards)
      .where(sql`${cards.workshopId} = ${workshopId} and ${cards.parentId} is ${parentId}`)
      .get()!.n;
    return tx
      .insert(cards)
      .values({
        id: newId(),
        workshopId,
        number,
        type: values.type ?? (parentId ? 'idea' : 'cluster'),
        title: values.title ?? `Card ${number}`,
        parentId,
        aside: values.aside ?? false,
        position: siblings,
        userId: author.id,
      })
      .returning()
      .get();
  });
}
