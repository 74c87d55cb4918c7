import type Database from 'better-sqlite3';
import { and, eq, isNull } from 'drizzle-orm';
import type { Config } from '../../config';
import type { Db, DbOrTx } from '../../db/client';
import { nowIso } from '../../db/columns';
import { identityEpoch } from '../../db/identity-epoch';
import { authTokens, oneTimeTokens, organizationMembers, users } from '../../db/schema/index';
import { AppError } from '../../http/errors';
import type { UserRow } from '../../http/env';
import type { DomainEventBus } from '../events/bus';
import { queueMail } from '../mail/outbox';
import { renderMail } from '../mail/templates';
import { toUser } from '../users/schemas';
import { DUMMY_PASSWORD_HASH, hashPassword, hashToken, newToken, verifyPassword } from './crypto';

export interface AuthDeps {
  config: Config;
  database: { db: Db; sqlite: Database.Database };
  bus: DomainEventBus;
}

const CONFIRMATION_TTL_MS = 7 * 24 * 3600 * 1000;
/** Sliding expiry is written at most this often per token, not on every request. */
const SLIDE_EVERY_MS = 3600 * 1000;

export async function signup(deps: AuthDeps, input: { email: string; password: string; name: string }) {
  const passwordHash = await hashPassword(input.password);
  const { db } = deps.database;
  return db.transaction((tx) => {
    const taken = tx.select({ id: users.id }).from(users).where(eq(users.email, input.email)).get();
    if (taken) throw new AppError('email_taken', 'An account with this e-mail already exists.');
    const user = tx.insert(users).values({ email: input.email, name: input.name, passwordHash }).returning().get();
    // Organizations may have added this address before it had an account.
    tx.update(organizationMembers)
      .set({ userId: user.id })
      .where(and(eq(organizationMembers.email, input.email), isNull(organizationMembers.userId)))
      .run();
    sendConfirmation(tx, deps.config, user);
    const token = issueToken(tx, deps.config, user.id);
    return { token, user: toUser(user, deps.config) };
  }, { behavior: 'immediate' });
}

export async function login(deps: AuthDeps, input: { email: string; password: string }) {
  const { db } = deps.database;
  const user = db.select().from(users).where(eq(users.email, input.email)).get();
  const ok = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
  if (!user || !ok) throw new AppError('invalid_credentials', 'E-mail or password is wrong.');
  const token = db.transaction((tx) => issueToken(tx, deps.config, user.id));
  return { token, user: toUser(user, deps.config) };
}

export function logout(deps: AuthDeps, user: UserRow, tokenHash: string): void {
  deps.database.db.delete(authTokens).where(eq(authTokens.tokenHash, tokenHash)).run();
  // Sockets and sync connections opened with this token end too: it stops working at once.
  deps.bus.emit('session-revoked', { userId: user.id, tokenHash });
}

export function confirmEmail(deps: AuthDeps, token: string): void {
  const { db } = deps.database;
  db.transaction((tx) => {
    const row = tx.select().from(oneTimeTokens).where(eq(oneTimeTokens.tokenHash, hashToken(token))).get();
    if (!row || row.purpose !== 'confirm_email' || row.usedAt || row.expiresAt < nowIso()) {
      throw new AppError('invalid_request', 'This confirmation link is invalid or has expired.', {
        details: [{ path: 'token', message: 'Unknown, used or expired token.' }],
      });
    }
    const now = nowIso();
    tx.update(oneTimeTokens).set({ usedAt: now }).where(eq(oneTimeTokens.id, row.id)).run();
    tx.update(users).set({ confirmedAt: now, updatedAt: now }).where(and(eq(users.id, row.userId), isNull(users.confirmedAt))).run();
  }, { behavior: 'immediate' });
}

/** Mails a fresh confirmation link; earlier links stay valid until they expire. */
export function sendConfirmation(tx: DbOrTx, config: Config, user: UserRow): void {
  const token = newToken();
  tx.insert(oneTimeTokens).values({
    userId: user.id,
    purpose: 'confirm_email',
    tokenHash: hashToken(token),
    expiresAt: new Date(Date.now() + CONFIRMATION_TTL_MS).toISOString(),
  }).run();
  const link = `${config.publicUrl}/confirm?token=${token}`;
  queueMail(tx, {
    to: user.email,
    subject: 'Confirm your e-mail address',
    ...renderMail({
      greeting: `Hello ${user.name},`,
      paragraphs: ['Please confirm your e-mail address.'],
      action: { label: 'Confirm my address', url: link },
      footer: `You get this mail because this address signed up at ${config.publicUrl}. The link works for 7 days.`,
    }),
  });
}

function issueToken(tx: DbOrTx, config: Config, userId: string): string {
  const token = newToken();
  const now = new Date();
  tx.insert(authTokens).values({
    userId,
    tokenHash: hashToken(token),
    lastUsedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + config.tokenTtlMs).toISOString(),
  }).run();
  return token;
}

interface TokenRow {
  token_id: string;
  expires_at: string;
  last_used_at: string;
}

/** The token of an `Authorization: Bearer <token>` header; null for anything else. */
function bearerToken(header: string | null | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1]! : null;
}

/**
 * Who a bearer token is, and whether it still works: one per app (`AppDeps.auth`), shared by REST,
 * Socket.IO and the sync endpoint, so they share one cache of resolved tokens.
 */
export interface SessionAuth {
  /** The token of an `Authorization: Bearer` header; null for anything else. */
  bearerToken(header: string | null | undefined): string | null;
  /** The token's user and hash, sliding its expiry; null for an unknown, expired or revoked token. */
  authenticate(token: string): { user: UserRow; tokenHash: string } | null;
  /** Whether a token (by hash) still works: not logged out, not expired. */
  isAlive(tokenHash: string): boolean;
}

export function sessionAuth(deps: Pick<AuthDeps, 'config' | 'database'>): SessionAuth {
  const expiry = deps.database.sqlite.prepare<[string], string>('SELECT expires_at FROM auth_tokens WHERE token_hash = ?').pluck();
  return {
    bearerToken,
    authenticate: tokenAuthenticator(deps),
    isAlive(tokenHash) {
      const expiresAt = expiry.get(tokenHash);
      return expiresAt !== undefined && Date.parse(expiresAt) > Date.now();
    },
  };
}

/** Resolved tokens kept in memory, at most this many (least recently used dropped first). */
const TOKEN_CACHE_ENTRIES = 10_000;

interface ResolvedToken {
  user: UserRow;
  tokenHash: string;
  expiresAt: number;
  lastUsedAt: number;
  /** `auth_state.epoch` when resolved: a logout or a user change anywhere moves it. */
  epoch: number;
}

/**
 * Resolves a bearer token to its user, sliding its expiry. Runs on every request, so resolved
 * tokens are kept in memory and checked against `auth_state.epoch` (one indexed read): triggers
 * move the epoch when any token is deleted or any user changes, on any connection or instance
 * sharing the file, so a logout takes effect at once everywhere and a renamed user is read again.
 * A token is looked up again when its expiry is due to slide (at most hourly).
 */
function tokenAuthenticator(deps: Pick<AuthDeps, 'config' | 'database'>) {
  const { sqlite } = deps.database;
  const find = sqlite.prepare<[string], TokenRow & Record<string, unknown>>(
    `SELECT t.id AS token_id, t.expires_at, t.last_used_at, u.*
       FROM auth_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?`,
  );
  const slide = sqlite.prepare('UPDATE auth_tokens SET last_used_at = ?, expires_at = ? WHERE id = ?');
  const currentEpoch = identityEpoch(deps.database.db);
  const resolved = new Map<string, ResolvedToken>();

  return (token: string): { user: UserRow; tokenHash: string } | null => {
    const tokenHash = hashToken(token);
    const now = Date.now();
    const epoch = currentEpoch();
    const hit = resolved.get(tokenHash);
    if (hit) {
      resolved.delete(tokenHash);
      if (hit.epoch === epoch && hit.expiresAt > now && now - hit.lastUsedAt <= SLIDE_EVERY_MS) {
        resolved.set(tokenHash, hit);
        return { user: hit.user, tokenHash };
      }
    }
    const row = find.get(tokenHash);
    if (!row) return null;
    let expiresAt = Date.parse(row.expires_at);
    let lastUsedAt = Date.parse(row.last_used_at);
    if (expiresAt <= now) return null;
    if (now - lastUsedAt > SLIDE_EVERY_MS) {
      expiresAt = now + deps.config.tokenTtlMs;
      lastUsedAt = now;
      slide.run(new Date(lastUsedAt).toISOString(), new Date(expiresAt).toISOString(), row.token_id);
    }
    const user = userFromRow(row);
    resolved.set(tokenHash, { user, tokenHash, expiresAt, lastUsedAt, epoch });
    if (resolved.size > TOKEN_CACHE_ENTRIES) resolved.delete(resolved.keys().next().value!);
    return { user, tokenHash };
  };
}

function userFromRow(row: Record<string, unknown>): UserRow {
  return {
    id: row.id as string,
    email: row.email as string,
    name: row.name as string,
    passwordHash: row.password_hash as string,
    avatarUrl: (row.avatar_url as string | null) ?? null,
    planName: row.plan_name as string,
    admin: row.admin === 1,
    confirmedAt: (row.confirmed_at as string | null) ?? null,
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
  };
}
