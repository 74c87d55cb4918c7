import * as client from 'openid-client';
import type { Config } from '../../config';
import type { Database, Db } from '../../db/database';
import { nowIso } from '../../db/columns';
import { isUniqueViolation } from '../../db/errors';
import { lockUser } from '../../db/user-lock';
import { write } from '../../db/write';
import type { DomainEventBus } from '../../domain/bus';
import { AppError, invalid } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { hashToken } from '../auth/crypto';
import { userByEmail } from '../auth/repo';
import { sendConfirmation } from '../auth/service';
import { issueToken } from '../auth/tokens';
import { linkPendingSeats } from '../organizations/repo';
import { findUser } from '../users/repo';
import type { OidcProvider } from './client';
import {
  deleteExpiredOidcLogins,
  identityOf,
  insertIdentity,
  insertOidcLogin,
  insertProviderAccount,
  setIdentityEmail,
  takeOidcLogin,
} from './repo';
import type { SignInProblem } from './schemas';
import { DEFAULT_TIME_ZONE, localeFromHeader } from '../../domain/languages';
import { claimsOf, type ProviderClaims, type SignInRequest } from './claims';
import { msg } from '../../i18n/messages';

export interface OidcDeps {
  config: Config;
  database: Database;
  bus: DomainEventBus;
}

/** How long a person has at the provider before the sign-in is forgotten. */
const LOGIN_TTL_MS = 10 * 60 * 1000;
const CALLBACK_PATH = '/v1/auth/oidc/callback';

/** The address the provider sends people back to: the one to register with it. */
export const callbackUrl = (config: Pick<Config, 'publicUrl'>) => `${config.publicUrl}${CALLBACK_PATH}`;

/**
 * `return_to` as a plain path of the console, normalized, or `/` when there is none
 * (docs/integrations.md#single-sign-on). It is resolved against this site as a browser would
 * (`.` and `..` segments, `%2e` included) and must stay on it: neither the path as sent, nor
 * resolved, nor decoded may begin with `//` or `/\` (which a browser, or a router that decodes,
 * reads as another host) or hold a backslash or a control character. `/..//evil.example` resolves to
 * `//evil.example` and is refused like it. What is refused answers 400, so a sign-in can never be
 * turned into a redirect elsewhere; the resolved path is what is kept. A fragment is dropped, since
 * the token travels in one.
 */
export function sameSitePath(returnTo: string | undefined): string {
  if (returnTo === undefined || returnTo === '') return '/';
  const refused = () => invalid('return_to', msg('error.oidc.return_to'));
  if (!returnTo.startsWith('/') || !plainPath(returnTo)) throw refused();
  const base = 'http://this.invalid';
  const url = new URL(returnTo, base);
  let decoded: string;
  try {
    decoded = decodeURIComponent(url.pathname);
  } catch {
    throw refused();
  }
  if (url.origin !== base || !plainPath(url.pathname) || !plainPath(decoded)) throw refused();
  return url.pathname + url.search;
}

/** Neither begins like another host (`//`, `/\`) nor holds a backslash or a control character. */
function plainPath(path: string): boolean {
  if (path.startsWith('//')) return false;
  return ![...path].some((ch) => ch === '\\' || ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
}

/**
 * GET /v1/auth/oidc/start: a sign-in kept by its `state`, and the provider's address to send the
 * person to. `clientState`, the console tab's one-time value, is kept with it to be handed back.
 */
export async function startSignIn(
  deps: OidcDeps,
  provider: OidcProvider,
  { returnTo, clientState }: { returnTo: string; clientState: string | null },
): Promise<{ url: string; state: string }> {
  const configuration = await provider.configuration();
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const now = Date.now();
  await write(deps, async (tx) => {
    await deleteExpiredOidcLogins(tx, new Date(now).toISOString());
    await insertOidcLogin(tx, {
      stateHash: hashToken(state),
      codeVerifier,
      nonce,
      returnTo,
      clientState,
      expiresAt: new Date(now + LOGIN_TTL_MS).toISOString(),
    });
  });
  const url = client.buildAuthorizationUrl(configuration, {
    redirect_uri: callbackUrl(deps.config),
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url: url.href, state };
}

/**
 * Where the callback sends the browser: the console with a token, or with what went wrong, and the
 * tab's one-time value from the start (null when the start had none, or the sign-in is unknown).
 */
export type SignInOutcome = { returnTo: string; clientState: string | null } & (
  { token: string } | { problem: SignInProblem }
);

class Refused extends Error {
  constructor(readonly problem: SignInProblem) {
    super(problem);
  }
}

/**
 * GET /v1/auth/oidc/callback. The sign-in its `state` names is taken (used once, on any instance)
 * and must have been started by this browser (`stateCookie`); the provider's code is exchanged
 * with the PKCE verifier, and the ID token's `state` and `nonce` checked. Never throws for what the
 * provider or the browser sent: the person is told in the console.
 */
export async function finishSignIn(
  deps: OidcDeps,
  provider: OidcProvider,
  query: URLSearchParams,
  stateCookie: string | undefined,
  request: SignInRequest = {},
): Promise<SignInOutcome> {
  const state = query.get('state');
  const login = state ? await write(deps, (tx) => takeOidcLogin(tx, hashToken(state))) : undefined;
  if (!state || !login || stateCookie !== state) {
    // Nothing of an unknown sign-in, nor of one another browser started, goes back to this one.
    return { returnTo: login?.returnTo ?? '/', clientState: null, problem: 'state' };
  }
  const back = { returnTo: login.returnTo, clientState: login.clientState };
  if (login.expiresAt < nowIso()) return { ...back, problem: 'expired' };
  if (query.has('error')) return { ...back, problem: query.get('error') === 'access_denied' ? 'denied' : 'failed' };

  let claims: ProviderClaims;
  try {
    const configuration = await provider.configuration();
    const tokens = await client.authorizationCodeGrant(
      configuration,
      new URL(`${callbackUrl(deps.config)}?${query.toString()}`),
      { pkceCodeVerifier: login.codeVerifier, expectedState: state, expectedNonce: login.nonce, idTokenExpected: true },
    );
    const idToken = tokens.claims()!;
    // Many providers keep the address out of the ID token and answer it at the userinfo endpoint.
    const more =
      typeof idToken.email === 'string'
        ? {}
        : await client.fetchUserInfo(configuration, tokens.access_token, idToken.sub);
    claims = claimsOf({ ...more, ...idToken });
  } catch (err) {
    // The operator's clue (a wrong secret, clocks apart); the person is told only that it failed.
    console.warn(`[oidc] sign-in failed: ${(err as Error).message}`);
    return { ...back, problem: 'failed' };
  }
  try {
    return { ...back, token: await signInAs(deps, claims, request) };
  } catch (err) {
    if (err instanceof Refused) return { ...back, problem: err.problem };
    // The same person's first sign-in in two tabs at once: the second finds the identity taken.
    if (isUniqueViolation(err)) return { ...back, problem: 'failed' };
    throw err;
  }
}

/**
 * The account of these claims (docs/integrations.md#single-sign-on): the one already linked to
 * (issuer, subject); else the account with the address, linked only when the provider verified
 * the address and the account confirmed it (anyone may sign up with any address, and a provider
 * may hand out addresses it never checked: either would otherwise take over the account); else a
 * new account. Answers an `oidc` session token for it.
 */
async function signInAs(deps: OidcDeps, claims: ProviderClaims, request: SignInRequest): Promise<string> {
  const signedIn = await write(deps, async (tx) => {
    let identity = await identityOf(tx, claims.issuer, claims.subject);
    if (identity) {
      // A proof of the address under way may end this identity (docs/api.md#an-address-is-proven-once):
      // under the user's lock, which the proof holds, the identity is read again.
      await lockUser(tx, identity.userId);
      identity = await identityOf(tx, claims.issuer, claims.subject);
    }
    let user: UserRow | undefined;
    let seats = 0;
    if (identity) {
      user = await findUser(tx, identity.userId);
      if (identity.email !== claims.email) await setIdentityEmail(tx, identity.id, claims.email);
    } else {
      if (!claims.email) throw new Refused('no_email');
      const existing = await userByEmail(tx, claims.email);
      if (existing && !(claims.emailVerified && existing.confirmedAt)) throw new Refused('account_exists');
      if (existing) user = existing;
      else ({ user, seats } = await openProviderAccount(tx, deps.config, claims, claims.email, request));
      identity = await insertIdentity(tx, {
        userId: user.id,
        issuer: claims.issuer,
        subject: claims.subject,
        email: claims.email,
        // Linked to a proven address, it outlives later proofs; else the first proof ends it.
        addressProven: user.confirmedAt !== null,
      });
    }
    if (!user) throw new Refused('failed');
    const token = await issueToken(tx, deps.config, user, {
      method: 'oidc',
      identityId: identity.id,
      userAgent: request.userAgent,
    });
    return { userId: user.id, seats, token };
  });
  // Organization seats waiting for the address are this account's: sockets already open take the role.
  if (signedIn.seats > 0) deps.bus.emit('access-changed', { userId: signedIn.userId });
  return signedIn.token;
}

/**
 * A first sign-in: an account without a password. With a verified address it is confirmed, and
 * the organization seats added by that address are its own at once, as `confirmEmail` does;
 * without, it gets the confirmation mail a signup gets. Its locale is the provider's `locale`
 * claim, else the browser's `Accept-Language`, among the service's languages, else English; its
 * time zone the `zoneinfo` claim, else UTC (docs/api.md#languages-and-time-zones).
 */
async function openProviderAccount(
  tx: Db,
  config: Config,
  claims: ProviderClaims,
  email: string,
  request: SignInRequest,
) {
  const now = nowIso();
  const name = claims.name ?? (email.split('@')[0] || email);
  const user = await insertProviderAccount(tx, {
    email,
    name,
    confirmedAt: claims.emailVerified ? now : null,
    locale: claims.locale ?? localeFromHeader(request.acceptLanguage),
    timeZone: claims.timeZone ?? DEFAULT_TIME_ZONE,
  });
  if (!claims.emailVerified) {
    await sendConfirmation(tx, config, { ...user, email });
    return { user, seats: 0 };
  }
  await lockUser(tx, user.id);
  return { user, seats: await linkPendingSeats(tx, user.id, email) };
}

/** Refuses the routes when no provider is configured, as if they were not there. */
export function requireProvider(provider: OidcProvider | undefined): OidcProvider {
  if (!provider) throw new AppError('not_found', msg('error.oidc.unconfigured'));
  return provider;
}
