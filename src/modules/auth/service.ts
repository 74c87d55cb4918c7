import type { Config } from '../../config';
import type { Db } from '../../db/database';
import { nowIso } from '../../db/columns';
import { isUniqueViolation } from '../../db/errors';
import { AppError, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import type { ResolvedSession } from '../../http/session-auth';
import { t } from '../../i18n/messages';
import { mailLanguage } from '../mail/language';
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
  insertOneTimeToken,
  oneTimeTokenByHash,
  passwordHashOf,
  upgradeGuestRow,
  userByEmail,
} from './repo';
import { announceEndedWaysIn, endOtherWaysIn } from './address-proof';
import { moveAddress } from './account';
import type { AuthDeps } from './deps';
import { dummyPasswordHash, hashPassword, hashToken, newToken, verifyPassword } from './crypto';
import { issueToken } from './tokens';
import type { SignupInput } from './schemas';
import { DEFAULT_TIME_ZONE, localeFromHeader } from '../../domain/languages';
import { useLink } from './account-repo';
import { msg } from '../../i18n/messages';

const CONFIRMATION_TTL_MS = 7 * 24 * 3600 * 1000;

/** What a signup's request says besides its body. */
export interface SignupRequest {
  /** The guest whose token came with it, who becomes the account. */
  guest?: UserRow | undefined;
  userAgent?: string | undefined;
  acceptLanguage?: string | undefined;
}

/**
 * POST /v1/auth/signup. Sent with a guest's token, the guest becomes the account (docs/api.md#guests):
 * same id, so everything they wrote stays theirs. The locale is the body's, else the guest's, else
 * the request's `Accept-Language` among the service's languages, else English; the time zone the
 * body's, else the guest's, else UTC (docs/api.md#languages-and-time-zones).
 */
export async function signup(deps: AuthDeps, input: SignupInput, request: SignupRequest = {}) {
  const { guest, userAgent } = request;
  const passwordHash = await hashPassword(input.password, deps.config.passwordHashCost);
  const account: AccountInput = {
    email: input.email,
    name: input.name,
    passwordHash,
    locale: input.locale ?? guest?.locale ?? localeFromHeader(request.acceptLanguage),
    timeZone: input.time_zone ?? guest?.timeZone ?? DEFAULT_TIME_ZONE,
  };
  let opened: Awaited<ReturnType<typeof createAccount>>;
  try {
    opened = await (guest ? upgradeGuest(deps, guest.id, account, userAgent) : createAccount(deps, account, userAgent));
  } catch (err) {
    // Two signups with one address at once (PostgreSQL, any instances): both find it free, and the
    // unique index refuses the second insert. Mapped once the transaction has ended: PostgreSQL
    // refuses every statement of a transaction after a failed one.
    if (isUniqueViolation(err)) throw emailTaken();
    throw err;
  }
  // A guest's name and flag changed where people see them live.
  if (guest) deps.bus.emit('profile-changed', { userId: guest.id });
  return opened;
}

type AccountInput = { email: string; name: string; passwordHash: string; locale: string; timeZone: string };

function createAccount(deps: AuthDeps, input: AccountInput, userAgent?: string) {
  return deps.database.transaction(async (tx) => {
    await refuseTakenEmail(tx, input.email);
    const user = await insertAccount(tx, input);
    return openAccount(tx, deps.config, user, input.email, userAgent);
  });
}

/** The guest's row becomes an account: address, password, name, locale and time zone set, `guest` false. */
function upgradeGuest(deps: AuthDeps, guestId: string, input: AccountInput, userAgent?: string) {
  return deps.database.transaction(async (tx) => {
    await refuseTakenEmail(tx, input.email);
    const user = await upgradeGuestRow(tx, guestId, input);
    // Signed up a moment ago with this token, in another request.
    if (!user) throw new AppError('conflict', msg('error.auth.guest_signed_up'));
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
  return new AppError('email_taken', msg('error.auth.email_taken'));
}

export async function login(deps: AuthDeps, input: { email: string; password: string }, userAgent?: string) {
  const { db } = deps.database;
  const user = await userByEmail(db, input.email);
  const ok = await verifyPassword(
    input.password,
    user?.passwordHash ?? dummyPasswordHash(deps.config.passwordHashCost),
  );
  const wrong = () => new AppError('invalid_credentials', msg('error.auth.wrong_credentials'));
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

function invalidConfirmation() {
  return new AppError('invalid_request', msg('error.auth.confirmation_invalid'), {
    details: [{ path: 'token', message: msg('error.auth.token_unknown') }],
  });
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
    if (!row || !proves || row.usedAt || row.expiresAt < nowIso()) throw invalidConfirmation();
    if (session && session.user.id !== row.userId) {
      throw new AppError('forbidden', msg('error.auth.confirmation_for_other'));
    }
    // Taken before the seats are linked, as an organization adding this address takes it before
    // reading whether the address is confirmed: one of the two then sees what the other wrote.
    await lockUser(tx, row.userId);
    const now = nowIso();
    // Used up under the user's lock, only if still unused: a password change, a reset or another
    // proof that ended it (or the same link sent twice at once) while this waited wins.
    if (!(await useLink(tx, row.id, now))) throw invalidConfirmation();
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
  user: Pick<UserRow, 'id' | 'name' | 'locale'> & { email: string },
): Promise<void> {
  const token = newToken();
  await insertOneTimeToken(tx, {
    userId: user.id,
    purpose: 'confirm_email',
    tokenHash: hashToken(token),
    expiresAt: new Date(Date.now() + CONFIRMATION_TTL_MS).toISOString(),
  });
  const link = `${config.publicUrl}/confirm?token=${token}`;
  const lang = mailLanguage(user.locale);
  await queueMail(tx, {
    to: user.email,
    subject: t(lang, 'mail.confirm.subject'),
    ...renderMail(lang, {
      greeting: t(lang, 'mail.greeting.named', { name: user.name }),
      paragraphs: [t(lang, 'mail.confirm.body')],
      action: { label: t(lang, 'mail.confirm.action'), url: link },
      footer: t(lang, 'mail.confirm.footer', { site: config.publicUrl }),
    }),
  });
}

/** POST /v1/user/me/confirmation: a fresh link; a confirmed address has nothing to confirm (409). */
export async function resendConfirmation(deps: Pick<AuthDeps, 'config' | 'database'>, userId: string): Promise<void> {
  await deps.database.transaction(async (tx) => {
    const user = await findUser(tx, userId);
    if (!user) throw notFound('user');
    if (user.confirmedAt) throw new AppError('conflict', msg('error.auth.already_confirmed'));
    // Guests are turned away before this (`guestScope`): they have no address until they sign up.
    if (user.email === null) throw new AppError('forbidden', msg('error.auth.guest_no_email'));
    await sendConfirmation(tx, deps.config, { ...user, email: user.email });
  });
}
