import { Hono } from 'hono';
import type { AppDeps } from '../deps';
import type { AppEnv } from './env';
import { buildOpenApiDocument } from './openapi';

/**
 * `/v1/openapi.json` (generated from the route validators, once, on first request) and `/docs`.
 * The app is passed lazily because the document describes the app this router is part of.
 */
export function docsRoutes(deps: AppDeps, getApp: () => Hono<any>) {
  let document: Promise<unknown> | undefined;
  return new Hono<AppEnv>()
    .get('/v1/openapi.json', async (c) => {
      document ??= buildOpenApiDocument(getApp(), deps.config.publicUrl);
      return c.json(await document);
    })
    .get('/docs', (c) => c.redirect('/v1/openapi.json'));
}
