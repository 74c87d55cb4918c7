import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { ErrorCode } from '../../src/http/errors';
import type { UserOutput } from '../../src/modules/users/schemas';
import type { ApiError, TestServer } from './server';
import { eq, sql } from 'drizzle-orm';
import { newId } from '../../src/db/columns';
import { cards, steps, workshopMembers, workshops } from '../../src/db/schema/index';
import { DEFAULT_PREFS, type StepPrefs } from '../../src/modules/access/rules';
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
  const res = await t.request<{ token: string; user: UserOutput }>('POST', '/v1/auth/signup', { body: { email, password: 'correct horse battery', name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { token: res.body.token, id: res.body.user.id, email, name };
}

/** Expects the contract's error shape with the given status and code. */
export function expectError(res: { status: number; body: unknown }, status: number, code: ErrorCode): void {
  const body = res.body as Partial<ApiError> | undefined;
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(body?.error?.code, JSON.stringify(res.body)).toBe(code);
  expect(typeof body?.error?.message).toBe('string');
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

/** A workshop of `facilitator` with `participants` joined as participants. */
export function seedWorkshopWith(
  t: TestServer,
  facilitator: TestUser,
  participants: TestUser[],
  values: Partial<typeof workshops.$inferInsert> = {},
) {
  const workshop = seedWorkshop(t, facilitator, values);
  for (const participant of participants) seedMember(t, workshop.id, participant);
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

// Activity factories: log rows, notifications and uploaded-file rows written directly. Seeded log
// rows may hold partial payloads (the log lists what it stores); `seq` is numbered as `record` does.
import { files as fileRows, notifications as notificationRows } from '../../src/db/schema/index';
import { write, type ChangeInput } from '../../src/modules/events/recorder';

/** Records a change through the real recorder: logged and broadcast as a service's write would be. */
export function recordEvent(t: TestServer, input: ChangeInput) {
  return write(t.deps, (_tx, changes) => changes.record(input));
}

export function seedEvent(t: TestServer, workshopId: string, action: string, userId: string | null, change: Record<string, unknown> = {}) {
  const { sqlite } = t.deps.database;
  sqlite.transaction(() => {
    const seq = sqlite.prepare('UPDATE workshops SET last_event_seq = last_event_seq + 1 WHERE id = ? RETURNING last_event_seq').pluck().get(workshopId);
    sqlite
      .prepare('INSERT INTO events (id, workshop_id, seq, action, user_id, change, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(newId(), workshopId, seq, action, userId, JSON.stringify(change), new Date().toISOString());
  }).immediate();
}

export function seedNotification(
  t: TestServer,
  user: TestUser,
  values: { type?: string; data?: Record<string, unknown>; read?: boolean; createdAt?: string } = {},
) {
  const createdAt = values.createdAt ?? new Date().toISOString();
  return t.deps.database.db
    .insert(notificationRows)
    .values({ userId: user.id, type: values.type ?? 'message', data: values.data ?? {}, read: values.read ?? false, createdAt, updatedAt: createdAt })
    .returning()
    .get();
}

/** A `files` row as an upload leaves it (no bytes on disk). */
export function seedFile(t: TestServer, user: TestUser, values: { name?: string; mimetype?: string; container?: string } = {}) {
  return t.deps.database.db
    .insert(fileRows)
    .values({
      container: values.container ?? 'uploads',
      key: randomBytes(16).toString('hex'),
      name: values.name ?? 'picture.png',
      mimetype: values.mimetype ?? 'image/png',
      size: 1234,
      userId: user.id,
    })
    .returning()
    .get();
}

// Card feedback factories: criteria and sections written directly, and a peek at the event log.
import { criteria as criterionRows, events as eventRows, sections as sectionRows } from '../../src/db/schema/index';

export function seedCriterion(t: TestServer, workshopId: string, values: { title?: string; scale?: number } = {}) {
  const { db } = t.deps.database;
  const position = db.select({ n: sql<number>`count(*)` }).from(criterionRows).where(eq(criterionRows.workshopId, workshopId)).get()!.n;
  return db
    .insert(criterionRows)
    .values({ workshopId, title: values.title ?? `Criterion ${position + 1}`, scale: values.scale ?? 1, position })
    .returning()
    .get();
}

export function seedSection(t: TestServer, workshopId: string, title?: string) {
  const { db } = t.deps.database;
  const position = db.select({ n: sql<number>`count(*)` }).from(sectionRows).where(eq(sectionRows.workshopId, workshopId)).get()!.n;
  return db.insert(sectionRows).values({ workshopId, title: title ?? `Section ${position + 1}`, position }).returning().get();
}

/** The workshop's logged events, oldest first. */
export function eventLog(t: TestServer, workshopId: string) {
  return t.deps.database.db.select().from(eventRows).where(eq(eventRows.workshopId, workshopId)).orderBy(eventRows.seq).all();
}

/** A real PNG of the given size, made with sharp, for upload and avatar tests. */
export async function pngImage(width: number, height: number, background = '#3366cc'): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  return sharp({ create: { width, height, channels: 4, background } }).png().toBuffer();
}

/** Sends `data` as the multipart part `field` (a file with the given name and type). */
export function multipart(field: string, data: Uint8Array | string, options: { name?: string; type?: string } = {}): FormData {
  const form = new FormData();
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data);
  form.append(field, new Blob([bytes], options.type ? { type: options.type } : {}), options.name ?? 'file.bin');
  return form;
}

/** The four people most suites need (see `useCast`): a facilitator, two participants and a stranger. */
export interface Cast {
  t: TestServer;
  facilitator: TestUser;
  participant: TestUser;
  other: TestUser;
  stranger: TestUser;
}

/**
 * A workshop of the cast (the stranger left out) with one cluster by the facilitator, and the
 * path of that card's `feedback` collection (`votes`, `items`, …).
 */
export function seedCardScene(cast: Cast, feedback: string, values: Partial<typeof workshops.$inferInsert> = {}) {
  const { t, facilitator, participant, other } = cast;
  const workshop = seedWorkshopWith(t, facilitator, [participant, other], values);
  const card = seedCard(t, workshop.id, facilitator, { type: 'cluster' });
  return { workshop, card, path: `/v1/workshops/${workshop.id}/cards/${card.id}/${feedback}` };
}

/** The `error` member of an error response, typed (check the status first with `expectError`). */
export function errorOf(res: { body: unknown }): ApiError['error'] {
  return (res.body as ApiError).error;
}
