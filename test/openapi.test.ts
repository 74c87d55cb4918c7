import { describe, expect, it } from 'vitest';
import { useServer } from './helpers/cast';
import type { OpenApiDocument } from './helpers/openapi';

const t = useServer();

/** Every route of the spec sections this service implements, as OpenAPI paths. */
const EXPECTED: Array<[string, string]> = [
  ['post', '/v1/auth/signup'],
  ['post', '/v1/auth/login'],
  ['post', '/v1/auth/logout'],
  ['post', '/v1/auth/confirm'],
  ['post', '/v1/auth/password_reset'],
  ['post', '/v1/auth/password_reset/confirm'],
  ['get', '/v1/user/me/workshops'],
  ['post', '/v1/workshops/join'],
  ['post', '/v1/workshops'],
  ['post', '/v1/organizations/{organization_id}/workshops'],
  ['get', '/v1/workshops/{id}'],
  ['put', '/v1/workshops/{id}'],
  ['delete', '/v1/workshops/{id}'],
  ['get', '/v1/workshops/{workshop_id}/user_roles'],
  ['put', '/v1/workshops/{workshop_id}/user_roles/{id}'],
  ['get', '/v1/workshops/{workshop_id}/access_code'],
  ['delete', '/v1/workshops/{id}/votes'],
  ['delete', '/v1/workshops/{id}/ratings'],
  ['delete', '/v1/workshops/{id}/items'],
  ['delete', '/v1/workshops/{id}/comments'],
  ['delete', '/v1/workshops/{id}/attachments'],
  ['post', '/v1/workshops/{id}/messages'],
  ['get', '/v1/workshops/{workshop_id}/steps'],
  ['post', '/v1/workshops/{workshop_id}/steps'],
  ['get', '/v1/workshops/{workshop_id}/steps/{id}'],
  ['put', '/v1/workshops/{workshop_id}/steps/{id}'],
  ['delete', '/v1/workshops/{workshop_id}/steps/{id}'],
  ['get', '/v1/workshops/{workshop_id}/steps/{step_id}/illustration'],
  ['post', '/v1/workshops/{workshop_id}/steps/{step_id}/illustration'],
  ['put', '/v1/workshops/{workshop_id}/steps/{step_id}/illustration'],
  ['delete', '/v1/workshops/{workshop_id}/steps/{step_id}/illustration'],
  ['get', '/v1/workshops/{workshop_id}/cards'],
  ['put', '/v1/workshops/{workshop_id}/cards'],
  ['post', '/v1/workshops/{workshop_id}/cards'],
  ['get', '/v1/workshops/{workshop_id}/cards/{id}'],
  ['put', '/v1/workshops/{workshop_id}/cards/{id}'],
  ['post', '/v1/workshops/{workshop_id}/cards/merge'],
  ['delete', '/v1/workshops/{workshop_id}/cards/{id}'],
  ['get', '/v1/workshops/{workshop_id}/cards/{card_id}/votes'],
  ['post', '/v1/workshops/{workshop_id}/cards/{card_id}/votes'],
  ['get', '/v1/workshops/{workshop_id}/cards/{card_id}/votes/{id}'],
  ['put', '/v1/workshops/{workshop_id}/cards/{card_id}/votes/{id}'],
  ['delete', '/v1/workshops/{workshop_id}/cards/{card_id}/votes/{id}'],
  ['get', '/v1/workshops/{workshop_id}/cards/{card_id}/ratings'],
  ['post', '/v1/workshops/{workshop_id}/cards/{card_id}/ratings'],
  ['get', '/v1/workshops/{workshop_id}/cards/{card_id}/ratings/{id}'],
  ['put', '/v1/workshops/{workshop_id}/cards/{card_id}/ratings/{id}'],
  ['delete', '/v1/workshops/{workshop_id}/cards/{card_id}/ratings/{id}'],
  ['get', '/v1/workshops/{workshop_id}/cards/{card_id}/items'],
  ['post', '/v1/workshops/{workshop_id}/cards/{card_id}/items'],
  ['get', '/v1/workshops/{workshop_id}/cards/{card_id}/items/{id}'],
  ['put', '/v1/workshops/{workshop_id}/cards/{card_id}/items/{id}'],
  ['delete', '/v1/workshops/{workshop_id}/cards/{card_id}/items/{id}'],
  ['get', '/v1/workshops/{workshop_id}/cards/{card_id}/comments'],
  ['post', '/v1/workshops/{workshop_id}/cards/{card_id}/comments'],
  ['get', '/v1/workshops/{workshop_id}/cards/{card_id}/comments/{id}'],
  ['delete', '/v1/workshops/{workshop_id}/cards/{card_id}/comments/{id}'],
  ['get', '/v1/workshops/{workshop_id}/cards/{card_id}/attachments'],
  ['post', '/v1/workshops/{workshop_id}/cards/{card_id}/attachments'],
  ['get', '/v1/workshops/{workshop_id}/cards/{card_id}/attachments/{id}'],
  ['delete', '/v1/workshops/{workshop_id}/cards/{card_id}/attachments/{id}'],
  ['get', '/v1/workshops/{workshop_id}/criteria'],
  ['post', '/v1/workshops/{workshop_id}/criteria'],
  ['get', '/v1/workshops/{workshop_id}/criteria/{id}'],
  ['put', '/v1/workshops/{workshop_id}/criteria/{id}'],
  ['delete', '/v1/workshops/{workshop_id}/criteria/{id}'],
  ['get', '/v1/workshops/{workshop_id}/sections'],
  ['post', '/v1/workshops/{workshop_id}/sections'],
  ['get', '/v1/workshops/{workshop_id}/sections/{id}'],
  ['put', '/v1/workshops/{workshop_id}/sections/{id}'],
  ['delete', '/v1/workshops/{workshop_id}/sections/{id}'],
  ['get', '/v1/templates'],
  ['get', '/v1/templates/{id}'],
  ['get', '/v1/user/me/organizations'],
  ['post', '/v1/organizations'],
  ['get', '/v1/organizations/{id}'],
  ['put', '/v1/organizations/{id}'],
  ['put', '/v1/organizations/{id}/avatar'],
  ['get', '/v1/organizations/{id}/members'],
  ['post', '/v1/organizations/{id}/members'],
  ['delete', '/v1/organizations/{id}/members/{member_id}'],
  ['get', '/v1/user/me'],
  ['put', '/v1/user/me'],
  ['put', '/v1/user/me/avatar'],
  ['post', '/v1/user/me/confirmation'],
  ['put', '/v1/user/me/password'],
  ['put', '/v1/user/me/email'],
  ['get', '/v1/user/me/sessions'],
  ['delete', '/v1/user/me/sessions'],
  ['delete', '/v1/user/me/sessions/{id}'],
  ['get', '/v1/user/me/deletion'],
  ['delete', '/v1/user/me'],
  ['get', '/v1/user/me/export'],
  ['get', '/v1/user/me/notifications'],
  ['put', '/v1/user/me/notifications/{id}'],
  ['put', '/v1/user/me/notifications/read'],
  ['get', '/v1/workshops/{workshop_id}/events'],
  ['post', '/v1/uploads'],
  ['get', '/v1/workshops/{workshop_id}/canvas'],
  ['post', '/v1/workshops/{workshop_id}/canvas'],
  ['delete', '/v1/workshops/{workshop_id}/canvas'],
  ['get', '/v1/workshops/canvas/zones/{id}'],
  ['put', '/v1/workshops/{workshop_id}/canvas/zones/{id}'],
  ['get', '/v1/canvas'],
  ['get', '/v1/canvas/{id}'],
];

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 and documents every route with a success response', async () => {
    const res = await t.request<OpenApiDocument>('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const document = res.body;
    expect(document.openapi).toBe('3.1.0');
    const missing: string[] = [];
    for (const [method, path] of EXPECTED) {
      const operation = document.paths?.[path]?.[method];
      if (!operation) {
        missing.push(`${method.toUpperCase()} ${path}`);
        continue;
      }
      const success = Object.keys(operation.responses ?? {}).filter((status) => status.startsWith('2'));
      expect(success.length, `${method} ${path} has a 2xx response`).toBeGreaterThan(0);
      // Errors are documented where the route can give them: a body can be malformed, too large or
      // of another type; a token can be missing; a path can name nothing.
      const documented = Object.keys(operation.responses ?? {});
      if (operation.requestBody)
        expect(documented, `${method} ${path}`).toEqual(expect.arrayContaining(['400', '413', '415']));
      if (operation.security?.length !== 0) expect(documented, `${method} ${path}`).toContain('401');
      if (path.includes('{')) expect(documented, `${method} ${path}`).toContain('404');
      if (method === 'get' && !operation.parameters?.some((p: { in: string }) => p.in === 'query')) {
        expect(documented, `${method} ${path} has no input to refuse`).not.toContain('400');
      }
    }
    expect(missing).toEqual([]);
  });

  it('has no two paths that differ only in their parameter names', async () => {
    const document = (await t.request<OpenApiDocument>('GET', '/v1/openapi.json')).body;
    const shapes = new Map<string, string[]>();
    for (const path of Object.keys(document.paths ?? {})) {
      const shape = path.replace(/\{[^}]+\}/g, '{}');
      shapes.set(shape, [...(shapes.get(shape) ?? []), path]);
    }
    expect([...shapes.values()].filter((paths) => paths.length > 1)).toEqual([]);
  });

  it('documents the paging headers and Retry-After where they are sent', async () => {
    const document = (await t.request<OpenApiDocument>('GET', '/v1/openapi.json')).body;
    const events = document.paths?.['/v1/workshops/{workshop_id}/events']?.get;
    expect(Object.keys(events?.responses?.['200']?.headers ?? {})).toEqual(['X-Total-Count', 'Link']);
    const login = document.paths?.['/v1/auth/login']?.post;
    expect(Object.keys(login?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '401', '413', '415', '429']),
    );
    expect(Object.keys(login?.responses?.['429']?.headers ?? {})).toEqual(['Retry-After']);
    const file = document.paths?.['/files/{container}/{key}']?.get;
    expect(Object.keys(file?.responses?.['200']?.content ?? {})).toEqual([
      'image/png',
      'image/jpeg',
      'image/gif',
      'image/webp',
      'application/octet-stream',
      '*/*',
    ]);
  });

  it('gives every error response the contract error schema, and query integers as integers', async () => {
    const document = (await t.request<OpenApiDocument>('GET', '/v1/openapi.json')).body;
    // A schema the generator could not resolve shows up as a bare `{vendor: "valibot"}`.
    expect(JSON.stringify(document)).not.toContain('"vendor"');
    expect(document.components!.schemas.Error.properties.error.required).toEqual(['code', 'message']);
    const notFound = document.paths['/v1/workshops/{id}']!.get.responses['404'];
    expect(notFound.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    const parameters = document.paths['/v1/workshops/{workshop_id}/events']!.get.parameters as Array<{
      name: string;
      schema: { type: string; default?: unknown };
    }>;
    expect(parameters.find((p) => p.name === 'per_page')?.schema).toMatchObject({ type: 'integer', default: 30 });
    expect(parameters.find((p) => p.name === 'page')?.schema).toMatchObject({ type: 'integer', default: 1 });
  });

  it('describes request bodies and response bodies from the validation schemas', async () => {
    const document = (await t.request<OpenApiDocument>('GET', '/v1/openapi.json')).body;
    const signup = document.paths['/v1/auth/signup']!.post;
    const schema = signup.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(expect.arrayContaining(['email', 'password', 'name']));
    expect(signup.responses['201'].content['application/json'].schema).toBeDefined();
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          // 204 has no content, nor has a 202 that only says the request was taken (an address change).
          if (status === '204' || status === '202' || !status.startsWith('2')) continue;
          expect(response.content, `${method} ${path} ${status} has a body schema`).toBeDefined();
        }
      }
    }
  });

  it('renders /docs without any outside script', async () => {
    const page = await t.request('GET', '/docs');
    expect(page.status).toBe(200);
    const sources = [...String(page.body).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(source.startsWith('/')).toBe(true);
      const asset = await fetch(`${t.url}${source}`);
      expect(asset.status, source).toBe(200);
      await asset.arrayBuffer();
    }
  });
});
