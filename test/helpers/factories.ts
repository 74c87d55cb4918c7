import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { ErrorCode } from '../../src/http/errors';
import type { UserOutput } from '../../src/modules/users/schemas';
import type { ApiError, TestServer } from './server';
import { count, eq, sql } from 'drizzle-orm';
import { newId } from '../../src/db/columns';
import type { Schema } from '../../src/db/database';
import { DEFAULT_PREFS, type StepPrefs } from '../../src/domain/permissions';
import { DEFAULT_VIEW } from '../../src/domain/view';

export interface TestUser {
  token: string;
  id: string;
  email: string;
  name: string;
}

/** Signs a new user up through the API. */
export async function createUser(t: TestServer, name = 'User'): Promise<TestUser> {
  const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${randomBytes(4).toString('hex')}@example.test`;
  const res = await t.request<{ token: string; user: UserOutput }>('POST', '/v1/auth/signup', {
    body: { email, password: 'correct horse battery', name },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { token: res.body.token, id: res.body.user.id, email, name };
}

/**
 * The one-time token of the link (`/<page>?token=…`) in the last mail with this subject sent to
 * `email` (the outbox keeps every mail).
 */
export async function mailedToken(
  t: Pick<TestServer, 'rows'>,
  email: string,
  subject: string,
  page = 'confirm',
): Promise<string> {
  const mails = await t.rows<{ text: string }>(
    sql`select text from outbox where "to" = ${email} and subject = ${subject} order by rowid`,
  );
  const token = new RegExp(`/${page}\\?token=(\\S+)`).exec(mails.at(-1)?.text ?? '')?.[1];
  expect(token, `no mail "${subject}" to ${email}`).toBeDefined();
  return token!;
}

/** The one-time token of the last confirmation mail sent to `email`. */
export function confirmationToken(t: Pick<TestServer, 'rows'>, email: string): Promise<string> {
  return mailedToken(t, email, 'Confirm your e-mail address');
}

/**
 * Confirms a user's address the way they would: with the link of the last confirmation mail sent
 * to it, sent with `session` (the account's own token, as the console sends it for a signed-in
 * person), which keeps that session and the password. Without it the proof ends the account's
 * sessions and password (docs/api.md#an-address-is-proven-once). Organization seats added by
 * address follow a confirmed address only.
 */
export async function confirmAddress(
  t: Pick<TestServer, 'rows' | 'request'>,
  email: string,
  session?: string,
): Promise<void> {
  const token = await confirmationToken(t, email);
  const res = await t.request('POST', '/v1/auth/confirm', { token: session, body: { token } });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
}

/** `createUser` whose address is confirmed, as an organization member added by address must be. */
export async function createConfirmedUser(t: TestServer, name = 'User'): Promise<TestUser> {
  const user = await createUser(t, name);
  await confirmAddress(t, user.email, user.token);
  return user;
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

export async function seedWorkshop(
  t: TestServer,
  owner: TestUser,
  values: Partial<Schema['workshops']['$inferInsert']> = {},
) {
  const accessCode = String(100_000_000 + Math.floor(Math.random() * 899_999_999));
  return t.write(async (tx, { workshops, workshopMembers }) => {
    const [workshop] = await tx
      .insert(workshops)
      .values({
        ownerType: 'user',
        ownerId: owner.id,
        createdBy: owner.id,
        title: 'Seeded workshop',
        view: DEFAULT_VIEW,
        accessCode,
        ...values,
      })
      .returning();
    await tx.insert(workshopMembers).values({ workshopId: workshop!.id, userId: owner.id, role: 'facilitator' });
    return workshop!;
  });
}

/** A workshop of `facilitator` with `participants` joined as participants. */
export async function seedWorkshopWith(
  t: TestServer,
  facilitator: TestUser,
  participants: TestUser[],
  values: Partial<Schema['workshops']['$inferInsert']> = {},
) {
  const workshop = await seedWorkshop(t, facilitator, values);
  for (const participant of participants) await seedMember(t, workshop.id, participant);
  return workshop;
}

export async function seedMember(
  t: TestServer,
  workshopId: string,
  user: TestUser,
  role: 'facilitator' | 'participant' = 'participant',
) {
  await t.write(async (tx, { workshopMembers }) => {
    await tx.insert(workshopMembers).values({ workshopId, userId: user.id, role });
  });
}

/** Inserts a step with the given prefs and makes it the workshop's current step. */
export async function seedCurrentStep(t: TestServer, workshopId: string, prefs: Partial<StepPrefs>) {
  return t.write(async (tx, { steps, workshops }) => {
    const position = (await tx.select({ n: count() }).from(steps).where(eq(steps.workshopId, workshopId)))[0]!.n;
    const [step] = await tx
      .insert(steps)
      .values({
        workshopId,
        position,
        name: `Step ${position + 1}`,
        prefs: { ...DEFAULT_PREFS, ...prefs },
        view: DEFAULT_VIEW,
      })
      .returning();
    await tx.update(workshops).set({ currentStepId: step!.id }).where(eq(workshops.id, workshopId));
    return step!;
  });
}

export async function seedCard(
  t: TestServer,
  workshopId: string,
  author: TestUser,
  values: {
    type?: 'idea' | 'cluster';
    title?: string;
    content?: string;
    parentId?: string | null;
    aside?: boolean;
  } = {},
) {
  return t.write(async (tx, { cards, workshops }) => {
    const [numbered] = await tx
      .update(workshops)
      .set({ lastCardNumber: sql`${workshops.lastCardNumber} + 1` })
      .where(eq(workshops.id, workshopId))
      .returning({ number: workshops.lastCardNumber });
    const number = numbered!.number;
    const parentId = values.parentId ?? null;
    const [counted] = await tx
      .select({ n: count() })
      .from(cards)
      .where(sql`${cards.workshopId} = ${workshopId} and ${cards.parentId} is not distinct from ${parentId}`);
    const siblings = counted!.n;
    const [card] = await tx
      .insert(cards)
      .values({
        id: newId(),
        workshopId,
        number,
        type: values.type ?? (parentId ? 'idea' : 'cluster'),
        title: values.title ?? `Card ${number}`,
        content: values.content ?? '',
        parentId,
        aside: values.aside ?? false,
        position: siblings,
        userId: author.id,
      })
      .returning();
    return card!;
  });
}

// Activity factories: log rows, notifications and uploaded-file rows written directly. Seeded log
// rows may hold partial payloads (the log lists what it stores); `seq` is numbered as `record` does.
import { write } from '../../src/db/write';
import type { ChangeInput } from '../../src/domain/events';

/** Records a change through the real recorder: logged and broadcast as a service's write would be. */
export function recordEvent(t: TestServer, input: ChangeInput) {
  return write(t.deps, async (_tx, changes) => changes.record(input));
}

export async function seedEvent(
  t: TestServer,
  workshopId: string,
  action: string,
  userId: string | null,
  change: Record<string, unknown> = {},
) {
  await t.write(async (tx, { events, workshops }) => {
    const [numbered] = await tx
      .update(workshops)
      .set({ lastEventSeq: sql`${workshops.lastEventSeq} + 1` })
      .where(eq(workshops.id, workshopId))
      .returning({ seq: workshops.lastEventSeq });
    await tx.insert(events).values({
      id: newId(),
      workshopId,
      seq: numbered!.seq,
      action,
      userId,
      change,
      createdAt: new Date().toISOString(),
    });
  });
}

export async function seedNotification(
  t: TestServer,
  user: TestUser,
  values: { type?: string; data?: Record<string, unknown>; read?: boolean; createdAt?: string } = {},
) {
  const createdAt = values.createdAt ?? new Date().toISOString();
  return t.write(async (tx, { notifications }) => {
    const [notification] = await tx
      .insert(notifications)
      .values({
        userId: user.id,
        type: values.type ?? 'message',
        data: values.data ?? {},
        read: values.read ?? false,
        createdAt,
        updatedAt: createdAt,
      })
      .returning();
    return notification!;
  });
}

/** A `files` row as an upload leaves it (no bytes on disk). */
export async function seedFile(
  t: TestServer,
  user: TestUser,
  values: { name?: string; mimetype?: string; container?: string } = {},
) {
  return t.write(async (tx, { files }) => {
    const [file] = await tx
      .insert(files)
      .values({
        container: values.container ?? 'uploads',
        key: randomBytes(16).toString('hex'),
        name: values.name ?? 'picture.png',
        mimetype: values.mimetype ?? 'image/png',
        size: 1234,
        userId: user.id,
      })
      .returning();
    return file!;
  });
}

// Card feedback factories: criteria and sections written directly, and a peek at the event log.

export async function seedCriterion(
  t: TestServer,
  workshopId: string,
  values: { title?: string; scale?: number } = {},
) {
  return t.write(async (tx, { criteria }) => {
    const position = (await tx.select({ n: count() }).from(criteria).where(eq(criteria.workshopId, workshopId)))[0]!.n;
    const [criterion] = await tx
      .insert(criteria)
      .values({ workshopId, title: values.title ?? `Criterion ${position + 1}`, scale: values.scale ?? 1, position })
      .returning();
    return criterion!;
  });
}

export async function seedSection(t: TestServer, workshopId: string, title?: string) {
  return t.write(async (tx, { sections }) => {
    const position = (await tx.select({ n: count() }).from(sections).where(eq(sections.workshopId, workshopId)))[0]!.n;
    const [section] = await tx
      .insert(sections)
      .values({ workshopId, title: title ?? `Section ${position + 1}`, position })
      .returning();
    return section!;
  });
}

/**
 * Runs `make` for each of `items` (or for 0 … count-1), one after another: rows seeded in turn
 * are numbered and positioned in that order, as the synchronous factories used to make them.
 */
export function inTurn<T>(count: number, make: (index: number) => Promise<T>): Promise<T[]>;
export function inTurn<I, T>(items: readonly I[], make: (item: I, index: number) => Promise<T>): Promise<T[]>;
export async function inTurn<T>(
  items: number | readonly unknown[],
  make: (item: never, index: number) => Promise<T>,
): Promise<T[]> {
  const list = typeof items === 'number' ? Array.from({ length: items }, (_, index) => index) : items;
  const made: T[] = [];
  for (const [index, item] of list.entries()) made.push(await make(item as never, index));
  return made;
}

/** The workshop's logged events, oldest first. */
export async function eventLog(t: TestServer, workshopId: string) {
  const { events } = t.tables;
  return t.db.select().from(events).where(eq(events.workshopId, workshopId)).orderBy(events.seq);
}

/** A real PNG of the given size, made with sharp, for upload and avatar tests. */
export async function pngImage(width: number, height: number, background = '#3366cc'): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  return sharp({ create: { width, height, channels: 4, background } })
    .png()
    .toBuffer();
}

/** Sends `data` as the multipart part `field` (a file with the given name and type). */
export function multipart(
  field: string,
  data: Uint8Array | string,
  options: { name?: string; type?: string } = {},
): FormData {
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
export async function seedCardScene(
  cast: Cast,
  feedback: string,
  values: Partial<Schema['workshops']['$inferInsert']> = {},
) {
  const { t, facilitator, participant, other } = cast;
  const workshop = await seedWorkshopWith(t, facilitator, [participant, other], values);
  const card = await seedCard(t, workshop.id, facilitator, { type: 'cluster' });
  return { workshop, card, path: `/v1/workshops/${workshop.id}/cards/${card.id}/${feedback}` };
}

/** The `error` member of an error response, typed (check the status first with `expectError`). */
export function errorOf(res: { body: unknown }): ApiError['error'] {
  return (res.body as ApiError).error;
}
