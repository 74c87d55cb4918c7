import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';
import type { Config } from '../config';
import { AppError } from './errors';
import type { AppEnv } from './env';
import { buildOpenApiDocument } from './openapi';

/** Swagger UI ships as static files; they are served from the installed package, never from a CDN. */
const SWAGGER_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Workshop facilitation API</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" />
  </head>
  <body>
    <div id="docs"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
    <script>
      window.ui = SwaggerUIBundle({
        url: '/v1/openapi.json',
        dom_id: '#docs',
        deepLinking: true,
        persistAuthorization: true,
        presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
        layout: 'StandaloneLayout',
      });
    </script>
  </body>
</html>`;

/**
 * `/v1/openapi.json` (generated from the route validators once, on first request) and `/docs`.
 * The app is passed lazily because the document describes the app this router is part of.
 */
export function docsRoutes(config: Pick<Config, 'publicUrl'>, getApp: () => Hono<AppEnv>) {
  let document: Promise<unknown> | undefined;
  return new Hono<AppEnv>()
    .get('/v1/openapi.json', async (c) => {
      document ??= buildOpenApiDocument(getApp(), config.publicUrl);
      return c.json(await document);
    })
    .get('/docs', (c) => c.html(DOCS_PAGE))
    .get('/docs/assets/:file', async (c) => {
      const file = c.req.param('file');
      const type = ASSETS[file];
      if (!type) throw new AppError('not_found', 'No such documentation asset.');
      const body = await readFile(join(SWAGGER_DIR, file));
      return c.body(body, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
    });
}
