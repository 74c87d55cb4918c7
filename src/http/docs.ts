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
    <style>
      /* Swagger UI's colours darkened where its text falls below 4.5:1 contrast. */
      .swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1d5fa8 !important; }
      .swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1a7346 !important; }
      .swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8f5200 !important; }
      .swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b71c1c !important; }
      .swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0f6b63 !important; }
      .swagger-ui .opblock.opblock-head .opblock-summary-method { background: #6b21a8 !important; }
      .swagger-ui .info .title small pre { background: #4a5160; }
      .swagger-ui .info .title small.version-stamp { background: #3b6e00; }
      .swagger-ui .info .title small.version-stamp pre { background: #3b6e00; }
      .swagger-ui .info a, .swagger-ui .info .url, .swagger-ui a.nostyle { color: #1d5fa8; }
      .swagger-ui .btn.authorize { color: #1a7346; border-color: #1a7346; }
      .swagger-ui .btn.authorize svg { fill: #1a7346; }
      .swagger-ui .json-schema-2020-12-expand-deep-button,
      .swagger-ui .parameter__in,
      .swagger-ui .parameter__extension,
      .swagger-ui .parameter__deprecated,
      .swagger-ui .response-col_links,
      .swagger-ui .response-control-media-type__accept-message,
      .swagger-ui .prop-format { color: #4a5160; }
      .swagger-ui .btn.try-out__btn { color: #1d1f21; border-color: #1d1f21; }
      .swagger-ui .btn.execute { background: #1d5fa8; border-color: #1d5fa8; }
    </style>
  </head>
  <body>
    <div id="docs"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
    <script>
      window.ui = SwaggerUIBundle({
        url: '/v1/openapi.json',
        dom_id: '#docs',
        // Deep links put a link inside each operation's button (a nested control): left out.
        deepLinking: false,
        persistAuthorization: true,
        presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
        layout: 'BaseLayout',
        onComplete: label,
      });
      // Swagger UI leaves some controls without a name (the servers' select, a parameter's input):
      // each gets the text of what it sets, as it appears.
      function label() {
        const servers = document.getElementById('servers');
        if (servers && !servers.hasAttribute('aria-label')) servers.setAttribute('aria-label', 'Server');
        for (const control of document.querySelectorAll('#docs input, #docs select, #docs textarea')) {
          if (control.labels?.length || control.hasAttribute('aria-label')) continue;
          const name =
            control.closest('tr')?.querySelector('.parameter__name')?.textContent?.split('*')[0] ||
            control.getAttribute('placeholder') ||
            control.getAttribute('title');
          if (name) control.setAttribute('aria-label', name.trim());
        }
      }
      new MutationObserver(label).observe(document.getElementById('docs'), { childList: true, subtree: true });
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
