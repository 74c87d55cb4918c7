import { nowIso } from '../../db/columns';
import { lockUser } from '../../db/user-lock';
import { AppError, forbidden } from '../../http/errors';
import type { ResolvedSession } from '../../http/session-auth';
import { t } from '../../i18n/messages';
import { mailLanguage } from '../mail/language';
import { queueMail } from '../mail/outbox';
import { renderMail } from '../mail/templates';
import { linkPendingSeats } from '../organizations/repo';
import { findUser } from '../users/repo';
import { toUser } from '../users/schemas';
import { endUnusedLinks, setPasswordHash, useLink } from './account-repo';
import { announceEndedWaysIn, endOtherWaysIn } from './address-proof';
import { hashPassword, hashToken, newToken } from './crypto';
import { confirmAddress, insertOneTimeToken, oneTimeTokenByHash, userByEmail } from './repo';
import type { AuthDeps } from './deps';
import { issueToken } from './tokens';
import { msg } from '../../i18n/messages';

/** A reset link works for 30 minutes (docs/api.md#an-accounts-life). */
const RESET_TTL_MS = 30 * 60 * 1000;

/**
 * A guest has no address to reset a password by: a reset sent with a guest's token is refused. Any
 * other token, or one that does not work, changes nothing (the routes need none).
 */
export function refuseGuest(session: ResolvedSession | null): void {
  if (session?.user.guest) throw forbidden(msg('error.auth.guest_no_password'));
}

/**
 * POST /v1/auth/password_reset: mails the account with this address a link to set a new password;
 * the links mailed before stop working. An address no account has (or a guest) gets nothing, and
 * the caller the same 204, so the answer tells nobody who has an account.
 */
export async function requestPasswordReset(deps: AuthDeps, email: string): Promise<void> {
  await deps.database.transaction(async (tx) => {
    const found = await userByEmail(tx, email);
    if (!found || found.guest) return;
    // Two requests at once, on any instances: one link is the latest, the other ends.
    await lockUser(tx, found.id);
    const now = nowIso();
    await endUnusedLinks(tx, found.id, 'reset_password', now);
    const token = newToken();
    await insertOneTimeToken(tx, {
      userId: found.id,
      purpose: 'reset_password',
      tokenHash: hashToken(token),
      expiresAt: new Date(Date.parse(now) + RESET_TTL_MS).toISOString(),
    });
    const lang = mailLanguage(found.locale);
    await queueMail(tx, {
      to: email,
      subject: t(lang, 'mail.password_reset.subject'),
      ...renderMail(lang, {
        greeting: t(lang, 'mail.greeting.named', { name: found.name }),
        paragraphs: [
          found.passwordHash === null
            ? t(lang, 'mail.password_reset.body_set')
            : t(lang, 'mail.password_reset.body_reset'),
          t(lang, 'mail.password_reset.signs_out'),
        ],
        action: { label: t(lang, 'mail.password_reset.action'), url: `${deps.config.publicUrl}/reset?token=${token}` },
        footer: t(lang, 'mail.password_reset.footer', { site: deps.config.publicUrl }),
      }),
    });
  });
}

function invalidLink(): AppError {
  return new AppError('invalid_request', msg('error.auth.reset_invalid'), {
    details: [{ path: 'token', message: msg('error.auth.token_unknown') }],
  });
}

/**
 * POST /v1/auth/password_reset/confirm: the link proves the mailbox, so this is a proof of the
 * address (docs/api.md#an-address-is-proven-once): every other way into the account ends, an
 * unconfirmed address becomes confirmed with the organization seats waiting for it, and the new
 * password and a new session are the only ways in left. The link dies with its use.
 */
export async function resetPassword(deps: AuthDeps, input: { token: string; password: string }, userAgent?: string) {
  const { token, password } = input;
  const passwordHash = await hashPassword(password, deps.config.passwordHashCost);
  const reset = await deps.database.transaction(async (tx) => {
    const link = await oneTimeTokenByHash(tx, hashToken(token));
    if (!link || link.purpose !== 'reset_password' || link.usedAt || link.expiresAt < nowIso()) throw invalidLink();
    await lockUser(tx, link.userId);
    const now = nowIso();
    if (!(await useLink(tx, link.id, now))) throw invalidLink();
    const email = await confirmAddress(tx, link.userId, now);
    const seats = email ? await linkPendingSeats(tx, link.userId, email) : 0;
    const ended = await endOtherWaysIn(tx, link.userId, null);
    await setPasswordHash(tx, link.userId, passwordHash, now);
    const user = await findUser(tx, link.userId);
    if (!user) throw invalidLink();
    const session = await issueToken(tx, deps.config, user, { userAgent });
    return { session: { token: session, user: toUser(user, deps.config) }, seats, ended };
  });
  announceEndedWaysIn(deps.bus, reset.ended);
  if (reset.seats > 0) deps.bus.emit('access-changed', { userId: reset.ended.userId });
  return reset.session;
}
