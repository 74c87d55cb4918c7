import { Hono } from 'hono';
import type { AppEnv, UserRow } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import type { Limiters } from '../../lib/limiters';
import { idempotencyKeys } from '../idempotency/middleware';
import { authenticate, sessionIfSent } from './middleware';
import {
  ConfirmInput,
  LoginInput,
  PasswordResetConfirmInput,
  PasswordResetInput,
  SessionOutput,
  SignupInput,
} from './schemas';
import { refuseGuest, requestPasswordReset, resetPassword } from './password-reset';
import type { SessionAuth } from '../../http/session-auth';
import type { AuthDeps } from './deps';
import { confirmEmail, login, logout, resendConfirmation, signup } from './service';
import {
  confirmationResendThrottle,
  confirmThrottle,
  loginThrottles,
  passwordResetThrottles,
  resetLinkThrottle,
  signupThrottle,
} from './throttle';

/**
 * The guest a signup's token names, who becomes the account (docs/api.md#guests). Any other token, or
 * none, makes a new account, as signup always did.
 */
async function guestOf(auth: SessionAuth, authorization: string | undefined): Promise<UserRow | undefined> {
  const session = await auth.sessionOf(authorization);
  return session?.user.guest ? session.user : undefined;
}

export function authRoutes(deps: AuthDeps & { attempts: Limiters; auth: SessionAuth }) {
  const [loginsPerAddress, loginsPerAccount] = loginThrottles(deps);
  const [resetsPerAddress, resetsPerMailbox] = passwordResetThrottles(deps);
  // Their keys are looked at after their limits (`idempotencyKeys`).
  const keyed = idempotencyKeys(deps);
  return new Hono<AppEnv>()
    .post(
      '/signup',
      doc({
        tag: 'Auth',
        summary: "Create an account; sent with a guest's token, the guest becomes that account",
        status: 201,
        response: SessionOutput,
        auth: false,
        errors: { 409: 'email_taken: an account with this e-mail exists', 429: 'Too many signups from this address' },
      }),
      signupThrottle(deps),
      keyed,
      jsonBody(SignupInput),
      async (c) => {
        return c.json(
          await signup(deps, c.req.valid('json'), {
            guest: await guestOf(deps.auth, c.req.header('authorization')),
            userAgent: c.req.header('user-agent'),
            acceptLanguage: c.req.header('accept-language'),
          }),
          201,
        );
      },
    )
    .post(
      '/login',
      doc({
        tag: 'Auth',
        summary: 'Log in',
        response: SessionOutput,
        auth: false,
        errors: {
          401: 'invalid_credentials: wrong e-mail or password',
          429: 'Too many failed logins for this account or address',
        },
      }),
      loginsPerAddress,
      loginsPerAccount,
      keyed,
      jsonBody(LoginInput),
      async (c) => {
        return c.json(await login(deps, c.req.valid('json'), c.req.header('user-agent')), 200);
      },
    )
    .post(
      '/logout',
      doc({ tag: 'Auth', summary: 'Revoke the current token', status: 204 }),
      authenticate(deps),
      async (c) => {
        await logout(deps, c.get('user'), c.get('tokenHash'));
        return c.body(null, 204);
      },
    )
    .post(
      '/confirm',
      doc({
        tag: 'Auth',
        summary:
          "Confirm an e-mail address (a new account's, or the new one of an address change) with the mailed token",
        description:
          "Proving the address ends every other way into the account made before: its other sessions, personal API tokens and provider identities linked while the address was unproven. Sent with the account's own session token, that session and the password stay; sent without a token, the password ends too (docs/api.md#an-address-is-proven-once).",
        status: 204,
        auth: false,
        errors: {
          401: 'unauthenticated: a bearer token was sent, and it does not work',
          403: "forbidden: the token sent is another account's; insufficient_scope: it is an API token",
          409: "email_taken: an address change's new address was taken by another account meanwhile",
          429: 'Too many wrong confirmation links from this address',
        },
      }),
      confirmThrottle(deps),
      keyed,
      jsonBody(ConfirmInput),
      async (c) => {
        const session = await sessionIfSent(deps, c.req.header('authorization'));
        await confirmEmail(deps, c.req.valid('json').token, session);
        return c.body(null, 204);
      },
    )
    .post(
      '/password_reset',
      doc({
        tag: 'Auth',
        summary: 'Mail a link to choose a new password (or a first one) to the account with this address',
        description:
          'Answers 204 whatever the address, so nobody learns who has an account; an address no account has gets no ' +
          'mail. The link (`/reset?token=…`) works for 30 minutes, and only the latest one (docs/api.md#an-accounts-life).',
        status: 204,
        auth: false,
        errors: {
          403: 'forbidden: sent with a guest token',
          429: 'Too many resets asked for this address, or from this client',
        },
      }),
      resetsPerAddress,
      resetsPerMailbox,
      keyed,
      jsonBody(PasswordResetInput),
      async (c) => {
        refuseGuest(await deps.auth.sessionOf(c.req.header('authorization')));
        await requestPasswordReset(deps, c.req.valid('json').email);
        return c.body(null, 204);
      },
    )
    .post(
      '/password_reset/confirm',
      doc({
        tag: 'Auth',
        summary: "Set a new password with the mailed link's token, and sign in",
        description:
          'The link proves the address: every other session, the personal API tokens and the provider identities ' +
          'linked while the address was unproven end, and an unconfirmed address is confirmed ' +
          '(docs/api.md#an-address-is-proven-once).',
        response: SessionOutput,
        auth: false,
        errors: {
          400: 'invalid_request: the link is unknown, used or expired, or the password too short',
          403: 'forbidden: sent with a guest token',
          429: 'Too many wrong reset links from this address',
        },
      }),
      resetLinkThrottle(deps),
      keyed,
      jsonBody(PasswordResetConfirmInput),
      async (c) => {
        refuseGuest(await deps.auth.sessionOf(c.req.header('authorization')));
        return c.json(await resetPassword(deps, c.req.valid('json'), c.req.header('user-agent')), 200);
      },
    );
}

/**
 * Sending the confirmation mail again, for the signed-in user: mounted with the authenticated
 * routes, beside the current user's own (`app.ts`).
 */
export function confirmationResendRoutes(deps: AuthDeps & { attempts: Limiters }) {
  return new Hono<AppEnv>().post(
    '/user/me/confirmation',
    doc({
      tag: 'Current user',
      summary: 'Send the confirmation mail again',
      status: 204,
      errors: { 409: 'conflict: the address is already confirmed', 429: 'Three resends in ten minutes already' },
    }),
    confirmationResendThrottle(deps),
    async (c) => {
      await resendConfirmation(deps, c.get('user').id);
      return c.body(null, 204);
    },
  );
}
