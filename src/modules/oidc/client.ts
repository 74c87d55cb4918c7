import * as client from 'openid-client';
import type { OidcSettings } from '../../config';
import { AppError } from '../../http/errors';
import { msg } from '../../i18n/messages';

/** The provider as this app instance knows it: its settings, and its discovered metadata once asked for. */
export interface OidcProvider {
  settings: OidcSettings;
  /** The provider's configuration, discovered on first use and kept; a failed discovery is tried again next time. */
  configuration(): Promise<client.Configuration>;
}

/**
 * Plain http is allowed only for a provider on this machine (tests, development): `OIDC_ISSUER`
 * refuses any other http URL at start (docs/integrations.md#single-sign-on).
 */
function onThisMachine(issuer: URL): boolean {
  return issuer.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname);
}

/**
 * One per app (its routes hold it), never a module global: two apps in one process (tests) each
 * talk to their own provider. `client_secret_basic` is the client authentication every provider
 * must support when it names none.
 */
export function oidcProvider(settings: OidcSettings): OidcProvider {
  let discovered: Promise<client.Configuration> | undefined;
  const discover = async () => {
    const issuer = new URL(settings.issuer);
    try {
      return await client.discovery(
        issuer,
        settings.clientId,
        undefined,
        client.ClientSecretBasic(settings.clientSecret),
        onThisMachine(issuer) ? { execute: [client.allowInsecureRequests] } : undefined,
      );
    } catch (err) {
      console.warn(`[oidc] discovery of ${settings.issuer} failed: ${(err as Error).message}`);
      throw new AppError('service_unavailable', msg('error.oidc.provider_unreachable'), {
        headers: { 'Retry-After': '5' },
      });
    }
  };
  return {
    settings,
    configuration() {
      discovered ??= discover().catch((err: unknown) => {
        discovered = undefined;
        throw err;
      });
      return discovered;
    },
  };
}
