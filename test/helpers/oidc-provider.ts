import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/*
 * A real OpenID provider for the tests (`oidc-provider`, in this process, on 127.0.0.1): its
 * development login and consent forms take any login name, and the claims it gives for a name are
 * the ones a test set in `accounts` (the name is the subject).
 */

/** What the provider says of a person: their address, whether it checked it, their name, language and time zone. */
export interface ProviderAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  locale?: string;
  zoneinfo?: string;
}

export interface TestProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Login name (the subject) → claims; a name not here gets just its subject. */
  readonly accounts: Map<string, ProviderAccount>;
  /** Registers the app's callback, known once the app listens; the provider answers from then on. */
  register(redirectUri: string): Promise<void>;
}

/** Starts the provider in `beforeAll` (before the app that names it), stops it in `afterAll`. */
export function useProvider(): TestProvider {
  const accounts = new Map<string, ProviderAccount>();
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end();
  });
  let issuer = '';
  const clientId = 'workshops';
  const clientSecret = 'a-test-client-secret-of-some-length';

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  return {
    get issuer() {
      return issuer;
    },
    clientId,
    clientSecret,
    accounts,
    async register(redirectUri) {
      // Imported here: the package warns about Node 20 as it loads, which only these files need to hear.
      const { default: Provider } = await import('oidc-provider');
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'locale', 'zoneinfo'] },
        findAccount: async (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, ...accounts.get(id) }) }),
        features: { devInteractions: { enabled: true } },
        pkce: { required: () => true },
        cookies: { keys: ['test-cookie-key'] },
      });
      handler = provider.callback();
    },
  };
}
