import * as v from 'valibot';
import { said } from '../../i18n/valibot';

/** GET /v1/auth/oidc: whether the console offers "Sign in with <name>". */
export const OidcStatusOutput = v.object({
  enabled: v.boolean(),
  /** `OIDC_NAME`, or the issuer's host; null when single sign-on is not configured. */
  name: v.nullable(v.string()),
});
export type OidcStatusOutput = v.InferOutput<typeof OidcStatusOutput>;

export const StartQuery = v.object({
  /** Where the console goes once signed in: a path on this site. */
  return_to: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(2000),
      v.description(
        'Where the console goes once signed in: a path on this site, such as `/workshops/abc?tab=board` ' +
          '(`/` by default). It is normalized (`.` and `..` resolved); a URL, or a path that would begin with ' +
          '`//` or `/\\` once normalized or decoded, or that holds a backslash or a control character, is ' +
          'refused with 400 `invalid_request`.',
      ),
    ),
  ),
  /**
   * A one-time value the console's tab made and kept, handed back beside the token so the tab takes
   * only the end of a sign-in it started (docs/integrations.md#single-sign-on).
   */
  client_state: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[\w-]{22,128}$/, said('error.validation.oidc_state')),
      v.description(
        'A one-time value made by the browser tab that starts the sign-in (22 to 128 characters of base64url), ' +
          'handed back as `client_state` beside the token or the problem in the fragment, so that the tab takes ' +
          'only the end of a sign-in it started itself.',
      ),
    ),
  ),
});

/**
 * What the callback tells the console went wrong, as `#sign_in_error=<problem>`
 * (docs/integrations.md#single-sign-on): `state`, an unknown, reused or tampered sign-in, or one
 * started in another browser; `expired`, more than 10 minutes at the provider; `denied`, the person
 * or the provider said no; `failed`, the provider's answer did not check out; `no_email`, the
 * provider gave no address for a first sign-in; `account_exists`, an account has the address but
 * may not be linked.
 */
export const SIGN_IN_PROBLEMS = ['state', 'expired', 'denied', 'failed', 'no_email', 'account_exists'] as const;
export type SignInProblem = (typeof SIGN_IN_PROBLEMS)[number];
