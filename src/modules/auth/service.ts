import type { Config } from '../../config';
import type { Database, Db } from '../../db/database';
import { nowIso } from '../../db/columns';
import { isUniqueViolation } from '../../db/errors';
import { identityEpoch } from '../../db/identity-epoch';
import { AppError, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import type { ResolvedSession, SessionAuth } from '../../http/session-auth';
import type { DomainEventBus } from '../../domain/bus';
import { queueMail } from '../mail/outbox';
import { renderMail } from '../mail/templates';
import { linkPendingSeats } from '../organizations/repo';
import { lockUser } from '../../db/user-lock';
import { findUser, userIdByEmail } from '../users/repo';
import { toUser } from '../users/schemas';
import {
  confirmAddress,
  deleteAuthToken,
  insertAccount,
  insertAuthToken,
  insertOneTimeToken,
  markTokenUsed,
  oneTimeTokenByHash,
  passwordHashOf,
  slideToken,
  tokenExpiry,
  tokenWithUser,
  upgradeGuestRow,
  userByEmail,
  type SignInMethod,
} from './repo';
import { announceEndedWaysIn, endOtherWaysIn } from './address-proof';
import { moveAddress } from './account';
import { DUMMY_PASSWORD_HASH, hashPassword, hashToken, newToken, verifyPassword } from './crypto';

export interface AuthDeps {
  config: Config;
  database: Database;
  bus: DomainEventBus;
}

const CONFIRMATION_TTL_MS = 7 * 24 * 3600 * 1000;
/** A guest's token lasts 7 days after its last use (docs/api.md#guests); an account's, `TOKEN_TTL_MS`. */
export const GUEST_TOKEN_TTL_MS = 7 * 24 * 3600 * 1000;
/** Sliding expiry is written at most this often per token, not on every request. */
const SLIDE_EVERY_MS = 3600 * 1000;

/**
 * POST /v1/auth/signup. Sent with a guest's token, the guest becomes the account (docs/api.md#guests):
 * same id, so everything they wrote stays theirs.
 */
export async function signup(
  deps: AuthDeps,
  input: { email: string; password: string; name: string },
  guest?: UserRow,
  userAgent?: string,
) {
  const passwordHash = await hashPassword(input.password);
  let account: Awaited<ReturnType<typeof createAccount>>;
  try {
    account = await (guest
      ? upgradeGuest(deps, guest.id, input, passwordHash, userAgent)
      : createAccount(deps, input, passwordHash, userAgent));
  } catch (err) {
    // Two signups with one address at once (PostgreSQL, any instances): both find it free, and the
    // unique index refuses the second insert. Mapped once the transaction has ended: PostgreSQL
    // refuses every statement of a transaction after a failed one.
    if (isUniqueViolation(err)) throw emailTaken();
    throw err;
  }
  // A guest's name and flag changed where people see them live.
  if (guest) deps.bus.emit('profile-changed', { userId: guest.id });
  return account;
}

type AccountInput = { email: string; name: string };

function createAccount(deps: AuthDeps, input: AccountInput, passwordHash: string, userAgent?: string) {
  return deps.database.transaction(async (tx) => {
    await refuseTakenEmail(tx, input.email);
    const user = await insertAccount(tx, { email: input.email, name: input.name, passwordHash });
    return openAccount(tx, deps.config, user, input.email, userAgent);
  });
}

/** The guest's row becomes an account: address, password and name set, `guest` false. */
function upgradeGuest(deps: AuthDeps, guestId: string, input: AccountInput, passwordHash: string, userAgent?: string) {
  return deps.database.transaction(async (tx) => {
    await refuseTakenEmail(tx, input.email);
    const user = await upgradeGuestRow(tx, guestId, { email: input.email, name: input.name, passwordHash });
    // Signed up a moment ago with this token, in another request.
    if (!user) throw new AppError('conflict', 'This guest has already signed up; log in instead.');
    return openAccount(tx, deps.config, user, input.email, userAgent);
  });
}

async function refuseTakenEmail(tx: Db, email: string): Promise<void> {
  if (await userIdByEmail(tx, email)) throw emailTaken();
}

/**
 * What every new account gets: a confirmation mail and a token. Not the organization seats added
 * by its address: anyone may sign up with any address, so those wait until it is confirmed
 * (`confirmEmail`).
 */
async function openAccount(tx: Db, config: Config, user: UserRow, email: string, userAgent?: string) {
  await sendConfirmation(tx, config, { ...user, email });
  const token = await issueToken(tx, config, user, { userAgent });
  return { token, user: toUser(user, config) };
}

function emailTaken() {
  return new AppError('email_taken', 'An account with this e-mail already exists.');
}

export async function login(deps: AuthDeps, input: { email: string; password: string }, userAgent?: string) {
  const { db } = deps.database;
  const user = await userByEmail(db, input.email);
  const ok = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
  const wrong = () => new AppError('invalid_credentials', 'E-mail or password is wrong.');
  if (!user || !ok) throw wrong();
  const token = await deps.database.transaction(async (tx) => {
    // A proof of the address may have dropped the password while it was checked
    // (docs/api.md#an-address-is-proven-once): under the user's lock, which the proof holds, the
    // password checked must still be the account's.
    await lockUser(tx, user.id);
    if ((await passwordHashOf(tx, user.id)) !== user.passwordHash) throw wrong();
    return issueToken(tx, deps.config, user, { userAgent });
  });
  return { token, user: toUser(user, deps.config) };
}

export async function logout(deps: AuthDeps, user: UserRow, tokenHash: string): Promise<void> {
  await deps.database.transaction((tx) => deleteAuthToken(tx, tokenHash));
  // Sockets and sync connections opened with this token end too: it stops working at once.
  deps.bus.emit('session-revoked', { userId: user.id, tokenHash });
}

/**
 * POST /v1/auth/confirm, with the link of a confirmation or of an address change
 * (docs/api.md#an-accounts-life): the address is its owner's, so the organization seats added by it are now
 * theirs, and every other way into the account made before ends (`endOtherWaysIn`,
 * docs/api.md#an-address-is-proven-once). `session` is the one the request was sent with, if any:
 * the account's own keeps it and its password; another account's is refused, so a link opened in a
 * browser signed in as someone else does not end that other account's password unasked. Their
 * token sees the seats at once, on every instance: the seats' rows move the identity epoch, which
 * every cache of access checks.
 */
export async function confirmEmail(deps: AuthDeps, token: string, session: ResolvedSession | null): Promise<void> {
  const confirmed = await deps.database.transaction(async (tx) => {
    const row = await oneTimeTokenByHash(tx, hashToken(token));
    const proves = row?.purpose === 'confirm_email' || row?.purpose === 'change_email';
    if (!row || !proves || row.usedAt || row.expiresAt < nowIso()) {
      throw new AppError('invalid_request', 'This confirmation link is invalid or has expired.', {
        details: [{ path: 'token', message: 'Unknown, used or expired token.' }],
      });
    }
    if (session && session.user.id !== row.userId) {
      throw new AppError(
        'forbidden',
        "This link confirms another account's address: sign in to that account, or send the link without a token.",
      );
    }
    // Taken before the seats are linked, as an organization adding this address takes it before
    // reading whether the address is confirmed: one of the two then sees what the other wrote.
    await lockUser(tx, row.userId);
    const now = nowIso();
    await markTokenUsed(tx, row.id, now);
    // An address change's link proves the new address, which becomes the account's.
    const email =
      row.purpose === 'change_email'
        ? await moveAddress(tx, row.userId, row.email, now)
        : await confirmAddress(tx, row.userId, now);
    const seats = email ? await linkPendingSeats(tx, row.userId, email) : 0;
    const ended = await endOtherWaysIn(tx, row.userId, session?.tokenHash ?? null);
    return { userId: row.userId, seats, ended };
  });
  announceEndedWaysIn(deps.bus, confirmed.ended);
  // An organization admin facilitates its workshops: sockets already in one take that role.
  if (confirmed.seats > 0) deps.bus.emit('access-changed', { userId: confirmed.userId });
}

/** Mails a fresh confirmation link; earlier links stay valid until they expire. */
export async function sendConfirmation(
  tx: Db,
  config: Config,
  user: Pick<UserRow, 'id' | 'name'> & { email: string },
): Promise<void> {
  const token = newToken();
  await insertOneTimeToken(tx, {
    userId: user.id,
    purpose: 'confirm_email',
    tokenHash: hashToken(token),
    expiresAt: new Date(Date.now() + CONFIRMATION_TTL_MS).toISOString(),
  });
  const link = `${config.publicUrl}/confirm?token=${token}`;
  await queueMail(tx, {
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

/** POST /v1/user/me/confirmation: a fresh link; a confirmed address has nothing to confirm (409). */
export async function resendConfirmation(deps: Pick<AuthDeps, 'config' | 'database'>, userId: string): Promise<void> {
  await deps.database.transaction(async (tx) => {
    const user = await findUser(tx, userId);
    if (!user) throw notFound('User');
    if (user.confirmedAt) throw new AppError('conflict', 'This e-mail address is already confirmed.');
    // Guests are turned away before this (`guestScope`): they have no address until they sign up.
    if (user.email === null)
      throw new AppError('forbidden', 'A guest has no e-mail address to confirm; sign up first.');
    await sendConfirmation(tx, deps.config, { ...user, email: user.email });
  });
}

/** How long a token lasts after its last use: 7 days for a guest's. */
function tokenTtlMs(config: Pick<Config, 'tokenTtlMs'>, user: Pick<UserRow, 'guest'>): number {
  return user.guest ? Math.min(GUEST_TOKEN_TTL_MS, config.tokenTtlMs) : config.tokenTtlMs;
}

/**
 * Where a new session comes from: `method` says how the person proved who they are (organizations
 * requiring single sign-on refuse `password` sessions), `identityId` which provider identity an
 * `oidc` one came by, and `userAgent` the `User-Agent` of the request that opened it (the list of
 * sessions shows it).
 */
export interface SessionOrigin {
  method?: SignInMethod;
  identityId?: string | null;
  userAgent?: string | null;
}

/** Kept of a `User-Agent`: enough to tell a browser from another. */
const USER_AGENT_MAX = 400;

/** A new bearer token for the user, inside the caller's transaction. */
export async function issueToken(
  tx: Db,
  config: Config,
  user: Pick<UserRow, 'id' | 'guest'>,
  origin: SessionOrigin = {},
): Promise<string> {
  const token = newToken();
  const now = new Date();
  await insertAuthToken(tx, {
    userId: user.id,
    tokenHash: hashToken(token),
    lastUsedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + tokenTtlMs(config, user)).toISOString(),
    method: origin.method ?? 'password',
    identityId: origin.identityId ?? null,
    userAgent: origin.userAgent?.slice(0, USER_AGENT_MAX) || null,
  });
  return token;
}

/** The token of an `Authorization: Bearer <token>` header; null for anything else. */
function bearerToken(header: string | null | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1]! : null;
}

/** The app's one `SessionAuth` (`http/session-auth.ts`), over the store's tokens and users. */
export function sessionAuth(deps: Pick<AuthDeps, 'config' | 'database'>): SessionAuth {
  const authenticate = tokenAuthenticator(deps);
  return {
    bearerToken,
    authenticate,
    async sessionOf(authorization) {
      const token = bearerToken(authorization);
      return token ? authenticate(token) : null;
    },
    async isAlive(tokenHash) {
      const expiresAt = await tokenExpiry(deps.database.db, tokenHash);
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
  method: SignInMethod;
}

/**
 * Resolves a bearer token to its user, sliding its expiry. Runs on every request, so resolved
 * tokens are kept in memory and checked against `auth_state.epoch` (one indexed read): triggers
 * move the epoch when any token is deleted or any user changes, on any connection or instance
 * sharing the database, so a logout takes effect at once everywhere and a renamed user is read again.
 * A token is looked up again when its expiry is due to slide (at most hourly).
 */
function tokenAuthenticator(deps: Pick<AuthDeps, 'config' | 'database'>) {
  const { database } = deps;
  const currentEpoch = identityEpoch(database.db);
  const resolved = new Map<string, ResolvedToken>();

  return async (token: string): Promise<ResolvedSession | null> => {
    const tokenHash = hashToken(token);
    const now = Date.now();
    const epoch = await currentEpoch();
    const hit = resolved.get(tokenHash);
    if (hit) {
      resolved.delete(tokenHash);
      if (hit.epoch === epoch && hit.expiresAt > now && now - hit.lastUsedAt <= SLIDE_EVERY_MS) {
        resolved.set(tokenHash, hit);
        return { user: hit.user, tokenHash, epoch, method: hit.method };
      }
    }
    const row = await tokenWithUser(database.db, tokenHash);
    if (!row) return null;
    let expiresAt = Date.parse(row.expiresAt);
    let lastUsedAt = Date.parse(row.lastUsedAt);
    if (expiresAt <= now) return null;
    if (now - lastUsedAt > SLIDE_EVERY_MS) {
      expiresAt = now + tokenTtlMs(deps.config, row.user);
      lastUsedAt = now;
      const slid = {
        id: row.tokenId,
        lastUsedAt: new Date(lastUsedAt).toISOString(),
        expiresAt: new Date(expiresAt).toISOString(),
      };
      await database.transaction((tx) => slideToken(tx, slid));
    }
    const { user, method } = row;
    resolved.set(tokenHash, { user, tokenHash, expiresAt, lastUsedAt, epoch, method });
    if (resolved.size > TOKEN_CACHE_ENTRIES) resolved.delete(resolved.keys().next().value!);
    return { user, tokenHash, epoch, method };
  };
}
