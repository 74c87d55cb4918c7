import type * as client from 'openid-client';
import { canonicalTimeZone, negotiateLanguage, type Language } from '../../domain/languages';

/*
 * What a sign-in through the provider knows of the person (docs/integrations.md#single-sign-on):
 * the ID token's and userinfo's claims as `service.ts` reads them, and the browser's request.
 */

/** What the browser's request to the callback says besides the provider's answer. */
export interface SignInRequest {
  userAgent?: string | undefined;
  acceptLanguage?: string | undefined;
}

/** The claims a sign-in uses, checked: an address only if it looks like one, a name trimmed. */
export interface ProviderClaims {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  /** The standard claims `locale` (among the service's languages) and `zoneinfo` (a known IANA zone). */
  locale: Language | undefined;
  timeZone: string | undefined;
}

export function claimsOf(claims: client.IDToken & Record<string, unknown>): ProviderClaims {
  const email = typeof claims.email === 'string' && claims.email.includes('@') ? claims.email.toLowerCase() : null;
  const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 200) : null;
  // Some providers write `fr_CA` for BCP 47's `fr-CA`.
  const locale = typeof claims.locale === 'string' ? negotiateLanguage(claims.locale.replace(/_/g, '-')) : undefined;
  const timeZone = typeof claims.zoneinfo === 'string' ? canonicalTimeZone(claims.zoneinfo) : undefined;
  return {
    issuer: claims.iss,
    subject: claims.sub,
    email,
    emailVerified: claims.email_verified === true,
    name,
    locale,
    timeZone,
  };
}
