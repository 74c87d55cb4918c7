import { nowIso } from '../../db/columns';
import type { Db } from '../../db/database';
import { isUniqueViolation } from '../../db/errors';
import { lockUser } from '../../db/user-lock';
import { AppError, forbidden, invalid } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { t } from '../../i18n/messages';
import { mailLanguage } from '../mail/language';
import { queueMail } from '../mail/outbox';
import { renderMail } from '../mail/templates';
import { userIdByEmail } from '../users/repo';
import { endUnusedLinks, setPasswordHash, setProvenEmail } from './account-repo';
import { announceEndedWaysIn } from './address-proof';
import { hashPassword, hashToken, newToken, verifyPassword } from './crypto';
import { deleteSessionsExcept, insertOneTimeToken, passwordHashOf } from './repo';
import type { AuthDeps } from './deps';
import { msg } from '../../i18n/messages';

/*
 * A signed-in person changing their password or their address (docs/api.md#an-accounts-life).
 * Both ask for the password again; a wrong one counts as a failed login (`passwordCheckThrottles`).
 */

/** A link to a new address works for 24 hours. */
const ADDRESS_CHANGE_TTL_MS = 24 * 3600 * 1000;

export const wrongPassword = () => new AppError('invalid_credentials', msg('error.auth.wrong_password'));

/**
 * The password hash the account has, once `password` was checked against it: 403 for an account
 * without one (opened through a provider, or whose password a proof of the address ended).
 */
async function checkedPasswordHash(deps: AuthDeps, userId: string, password: string): Promise<string> {
  const stored = await passwordHashOf(deps.database.db, userId);
  if (!stored) {
    throw forbidden(msg('error.auth.no_password'));
  }
  if (!(await verifyPassword(password, stored))) throw wrongPassword();
  return stored;
}

/**
 * Under the user's lock, the password checked must still be the account's: a reset or a proof of the
 * address may have changed it while it was checked (as at login).
 */
export async function stillTheSamePassword(tx: Db, userId: string, checked: string): Promise<void> {
  await lockUser(tx, userId);
  if ((await passwordHashOf(tx, userId)) !== checked) throw wrongPassword();
}

/**
 * PUT /v1/user/me/password: the new password replaces the old, and every other session of the
 * account ends, on every instance and live connection; the caller's own stays. Reset links mailed
 * before stop working, and so does an address change asked for before: whoever knew the old
 * password must not move the account to their mailbox once its owner has changed it.
 */
export async function changePassword(
  deps: AuthDeps,
  user: Pick<UserRow, 'id'>,
  currentSession: string,
  input: { current_password: string; password: string },
): Promise<void> {
  const checked = await checkedPasswordHash(deps, user.id, input.current_password);
  const passwordHash = await hashPassword(input.password, deps.config.passwordHashCost);
  const sessions = await deps.database.transaction(async (tx) => {
    await stillTheSamePassword(tx, user.id, checked);
    const now = nowIso();
    await setPasswordHash(tx, user.id, passwordHash, now);
    for (const purpose of ['reset_password', 'change_email'] as const) await endUnusedLinks(tx, user.id, purpose, now);
    return deleteSessionsExcept(tx, user.id, currentSession);
  });
  announceEndedWaysIn(deps.bus, { userId: user.id, sessions });
}

function emailTaken() {
  return new AppError('email_taken', msg('error.auth.email_taken'));
}

/**
 * PUT /v1/user/me/email: mails the new address a link (`POST /v1/auth/confirm` takes it) and the
 * old one a notice. Nothing changes until the link is used (`moveAddress`); a later request's link
 * replaces this one's.
 */
export async function requestAddressChange(
  deps: AuthDeps,
  user: Pick<UserRow, 'id' | 'name' | 'email' | 'locale'>,
  input: { email: string; password: string },
): Promise<void> {
  if (input.email === user.email) throw invalid('email', msg('error.auth.same_email'));
  const checked = await checkedPasswordHash(deps, user.id, input.password);
  await deps.database.transaction(async (tx) => {
    await stillTheSamePassword(tx, user.id, checked);
    if (await userIdByEmail(tx, input.email)) throw emailTaken();
    const now = nowIso();
    await endUnusedLinks(tx, user.id, 'change_email', now);
    const token = newToken();
    await insertOneTimeToken(tx, {
      userId: user.id,
      purpose: 'change_email',
      email: input.email,
      tokenHash: hashToken(token),
      expiresAt: new Date(Date.parse(now) + ADDRESS_CHANGE_TTL_MS).toISOString(),
    });
    const site = deps.config.publicUrl;
    // Both mails are the account's, in its locale: the new address belongs to it once confirmed.
    const lang = mailLanguage(user.locale);
    const greeting = t(lang, 'mail.greeting.named', { name: user.name });
    await queueMail(tx, {
      to: input.email,
      subject: t(lang, 'mail.address_change.subject'),
      ...renderMail(lang, {
        greeting,
        paragraphs: [t(lang, 'mail.address_change.body')],
        action: { label: t(lang, 'mail.address_change.action'), url: `${site}/confirm?token=${token}` },
        footer: t(lang, 'mail.address_change.footer', { site }),
      }),
    });
    if (user.email) {
      await queueMail(tx, {
        to: user.email,
        subject: t(lang, 'mail.address_notice.subject'),
        ...renderMail(lang, {
          greeting,
          paragraphs: [
            t(lang, 'mail.address_notice.body', { email: input.email }),
            t(lang, 'mail.address_notice.advice'),
          ],
          footer: t(lang, 'mail.address_notice.footer', { site }),
        }),
      });
    }
  });
}

/**
 * The link of an address change was used (`confirmEmail`): the account's address becomes the new
 * one, proven now; 409 `email_taken` when another account took it meanwhile. Links mailed to the
 * old address stop working. Answers the new address.
 */
export async function moveAddress(tx: Db, userId: string, email: string | null, at: string): Promise<string> {
  if (!email) throw new AppError('invalid_request', msg('error.auth.link_without_address'));
  const holder = await userIdByEmail(tx, email);
  if (holder && holder !== userId) throw emailTaken();
  try {
    await setProvenEmail(tx, userId, email, at);
  } catch (err) {
    if (isUniqueViolation(err)) throw emailTaken();
    throw err;
  }
  // Links mailed to the old address stop working (an address change's own: endOtherWaysIn).
  for (const purpose of ['confirm_email', 'reset_password'] as const) await endUnusedLinks(tx, userId, purpose, at);
  return email;
}
