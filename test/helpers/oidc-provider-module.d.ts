// oidc-provider ships no types: the part of its API the tests use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Account {
    accountId: string;
    claims(use: string, scope: string): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  interface ProviderConfiguration {
    clients: Array<Record<string, unknown>>;
    claims?: Record<string, string[]>;
    findAccount(ctx: unknown, id: string): Promise<Account | undefined>;
    features?: Record<string, { enabled: boolean }>;
    pkce?: { required(): boolean };
    cookies?: { keys: string[] };
    ttl?: Record<string, number>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: ProviderConfiguration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    proxy: boolean;
  }
}
