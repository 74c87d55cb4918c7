import { Hono } from 'hono';
import type { AppDeps } from '../../deps';
import { contentDisposition } from '../../http/content-disposition';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { exportAccount } from './service';

/**
 * A person's data export (docs/api.md#your-data-export), beside the account's other routes:
 * guests (`guestScope`) and API tokens (`tokenScope`) are refused before.
 */
export function accountExportRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().get(
    '/user/me/export',
    doc({
      tag: 'Current user',
      summary: 'Download everything the service holds about you, as a ZIP written while it is made',
      description:
        '`account.json` (profile, organizations and roles, workshops, sessions, API tokens without secrets, ' +
        'notifications), one native file per personal workshop under `workshops/`, and `contributions.json` ' +
        '(what you wrote, voted and rated in the other workshops). docs/api.md#your-data-export describes every member.',
      produces: ['application/zip'],
      errors: {
        403: 'forbidden: a guest; insufficient_scope: an API token',
        429: 'rate_limited: more data exports in 10 minutes than DATA_EXPORTS_PER_10_MINUTES allows',
      },
    }),
    async (c) => {
      const archive = await exportAccount(deps, c.get('user'), c.get('tokenHash'));
      return c.body(archive.body, 200, {
        'Content-Type': 'application/zip',
        'Content-Disposition': contentDisposition('attachment', archive.filename),
        // Personal data: never kept by a cache on the way.
        'Cache-Control': 'no-store',
      });
    },
  );
}
