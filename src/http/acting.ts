import type { Context } from 'hono';
import type { AppEnv } from './env';

/**
 * The deps a route's services write with. A request made with an API token hands them the token,
 * so that every event its writes log names the token that acted (docs/api.md#events); any
 * other request gets `deps` as they are.
 */
export function actingDeps<D extends object>(deps: D, c: Context<AppEnv>): D & { apiTokenId?: string } {
  const token = c.get('apiToken');
  return token ? { ...deps, apiTokenId: token.id } : deps;
}
