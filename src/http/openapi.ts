import type { Hono } from 'hono';
import type { AppEnv } from './env';
import { toJsonSchema } from '@valibot/to-json-schema';
import { describeRoute, generateSpecs, resolver } from 'hono-openapi';
import * as v from 'valibot';
import { scopeOf } from '../domain/api-scopes';

export const ErrorSchema = v.object({
  error: v.object({
    code: v.string(),
    message: v.string(),
    details: v.optional(v.array(v.object({ path: v.string(), message: v.string() }))),
  }),
});

/**
 * Every error answer has the one error body (docs/api.md#authentication-and-errors): one schema under `components`, referenced by each
 * error response (a plain JSON Schema, since responses are also added after generation).
 */
const ERROR_COMPONENT = 'Error';
const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_COMPONENT}` } } },
});

/** An error status an operation may answer, with what it means there. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 503;

interface RouteDoc {
  /** Group shown in the docs, usually the resource. */
  tag: string;
  summary: string;
  description?: string;
  /** Success status; defaults to 200. A 302 sends the browser on (`redirect` says where). */
  status?: 200 | 201 | 202 | 204 | 302;
  /** Where a 302 sends the browser, as its `Location` header. */
  redirect?: string;
  /** Schema of the success body; omit for 204. */
  response?: v.GenericSchema;
  /** Media types of a success response that is a file (`image/*` and the like). */
  produces?: string[];
  /**
   * Errors this route gives beyond those every route of its kind gives (see `exactResponses`):
   * status → what it means here.
   */
  errors?: Partial<Record<ErrorStatus, string>>;
  /** Success responses carry the paging headers (`X-Total-Count`, `Link`). */
  paged?: boolean;
  /** False for the routes that take no bearer token. */
  auth?: boolean;
  /** A multipart body: field name → description. */
  multipart?: Record<string, { description: string; required?: boolean; binary?: boolean }>;
}

/** OpenAPI description of a route: summary, success body and the error answers it can give. */
export function doc(spec: RouteDoc) {
  const status = spec.status ?? 200;
  const success = {
    ...(status === 302
      ? {
          description: spec.redirect ?? 'Redirect',
          headers: { Location: { description: spec.redirect ?? 'Where to go', schema: { type: 'string' } } },
        }
      : spec.produces
        ? {
            description: 'The file',
            content: Object.fromEntries(
              spec.produces.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
            ),
          }
        : spec.response
          ? { description: 'Success', content: { 'application/json': { schema: resolver(spec.response) } } }
          : { description: status === 202 ? 'Accepted, no content' : 'Success, no content' }),
    ...(spec.paged ? { headers: PAGE_HEADERS } : {}),
  };
  const requestBody = spec.multipart
    ? {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object' as const,
              properties: Object.fromEntries(
                Object.entries(spec.multipart).map(([name, field]) => [
                  name,
                  field.binary === false
                    ? { type: 'string' as const, description: field.description }
                    : { type: 'string' as const, format: 'binary', description: field.description },
                ]),
              ),
              required: Object.entries(spec.multipart)
                .filter(([, f]) => f.required)
                .map(([n]) => n),
            },
          },
        },
      }
    : undefined;
  return describeRoute({
    tags: [spec.tag],
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    ...(spec.auth === false ? { security: [] } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: {
      [status]: success,
      ...Object.fromEntries(
        Object.entries(spec.errors ?? {}).map(([code, description]) => [code, errorResponse(description)]),
      ),
    },
  });
}

const PAGE_HEADERS = {
  'X-Total-Count': { description: 'How many items all pages hold', schema: { type: 'integer' } },
  Link: { description: 'Links to the `first`, `prev`, `next` and `last` pages (RFC 8288)', schema: { type: 'string' } },
};

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } },
};

/** What each derived error means, when the route says nothing more specific. */
const DERIVED: Record<ErrorStatus, string> = {
  400: 'Invalid request: malformed JSON, a missing member, a wrong type or a value out of range',
  401: 'Missing, unknown, expired or revoked bearer token',
  403: "The caller's role or the current step does not allow this, a guest's token does not reach this route, or an API token lacks the scope (`insufficient_scope`)",
  404: 'Not found, or not visible to the caller',
  409: 'Refused by the current state (an archived workshop, a limit reached)',
  413: 'Body too large (JSON above 1 MiB, uploads above 20 MiB)',
  415: 'The body is not of the media type this route takes',
  422: 'idempotency_key_reused: this Idempotency-Key was sent with another method, path or body',
  429: 'Too many attempts, or too many requests with this API token',
  503: 'The database (or the file storage) is unreachable, or a lock could not be had in time; nothing changed',
};

/** The header every write under `/v1` accepts (docs/api.md#idempotent-writes). */
const IDEMPOTENCY_KEY = {
  in: 'header',
  name: 'Idempotency-Key',
  required: false,
  description:
    'Makes the write safe to send again: the first request with a key runs, and its answer is kept 24 hours and replayed ' +
    '(with `Idempotent-Replayed: true`) to a repeat with the same method, path and body, which changes nothing.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
};
const REPLAYED = {
  'Idempotent-Replayed': {
    description: 'Present (`true`) when this is the kept answer of an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
};

type Operation = {
  security?: unknown[];
  parameters?: Array<{ in: string }>;
  requestBody?: unknown;
  responses: Record<string, { headers?: Record<string, unknown> } & Record<string, unknown>>;
};

/**
 * Completes each operation's error responses from what the route is: a route behind a token can
 * answer 401, and 403 (a guest's token); one with a body 400, 413 and 415; one with query parameters 400; one with path
 * parameters 404; a write inside a workshop or an organization 403 and 409 (roles, step prefs,
 * archived); every write, and every read behind a token (the token is looked up in the database),
 * 503 (the database away or busy); every write under `/v1` takes `Idempotency-Key`, so may answer
 * 400, 409 and 422 for it (docs/api.md#idempotent-writes). Routes name what else they give (`doc({errors})`).
 * 429 and 503 carry `Retry-After`, as does a write's 409.
 */
function exactResponses(document: { paths?: Record<string, Record<string, Operation>> }): void {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const statuses = new Set<ErrorStatus>();
      const write = method !== 'get';
      const keyed = write && path.startsWith('/v1/');
      const authenticated = operation.security === undefined || operation.security.length > 0;
      // A guest's token is refused outside its workshop and its own account (docs/api.md#guests).
      // An API token's own rate limit (docs/integrations.md#rate-limit) answers 429 on any of them.
      if (authenticated) for (const status of [401, 403, 429] as const) statuses.add(status);
      if (operation.requestBody) for (const status of [400, 413, 415] as const) statuses.add(status);
      if (operation.parameters?.some((p) => p.in === 'query')) statuses.add(400);
      if (operation.parameters?.some((p) => p.in === 'path')) statuses.add(404);
      if (write && /^\/v1\/(workshops|organizations)\/\{/.test(path)) {
        statuses.add(403);
        statuses.add(409);
      }
      if (write || authenticated) statuses.add(503);
      if (keyed) {
        operation.parameters = [...(operation.parameters ?? []), IDEMPOTENCY_KEY];
        for (const status of [400, 409, 422] as const) statuses.add(status);
        for (const [status, response] of Object.entries(operation.responses)) {
          if (/^2/.test(status)) response.headers = { ...response.headers, ...REPLAYED };
        }
      }
      // The validator middleware documents a 400 of its own making; every 400 has the one error body.
      if (operation.responses[400]?.description === 'Validation Error') delete operation.responses[400];
      for (const status of statuses) operation.responses[status] ??= errorResponse(DERIVED[status]);
      // A write's 409 may be `idempotency_key_in_use`, which says when to try again.
      for (const status of keyed ? [409, 429, 503] : [429, 503]) {
        const response = operation.responses[status];
        if (response) response.headers = { ...response.headers, ...RETRY_AFTER };
      }
    }
  }
}

/** Builds the OpenAPI 3.1 document of every route mounted on the app. */
export async function buildOpenApiDocument(app: Hono<AppEnv>, publicUrl: string) {
  const document = await generateSpecs(app, {
    documentation: {
      info: {
        title: 'Workshop facilitation API',
        version: '1.0.0',
        description:
          'Workshops, steps, cards and card feedback. Every `/v1` route but signup, login and confirm needs `Authorization: Bearer <token>`.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
        schemas: { [ERROR_COMPONENT]: toJsonSchema(ErrorSchema) as Record<string, unknown> },
      },
      security: [{ bearer: [] }],
    },
    exclude: [
      '/v1/openapi.json',
      '/docs',
      '/health',
      '/ready',
      '/metrics',
      '/confirm',
      '/reset',
      '/signup',
      '/invitations/:token',
    ],
  });
  exactResponses(document as unknown as Parameters<typeof exactResponses>[0]);
  requiredScopes(document as unknown as Parameters<typeof requiredScopes>[0]);
  integerQueryParameters(document as unknown as Parameters<typeof integerQueryParameters>[0]);
  return document;
}

/**
 * Names the API token scope each operation needs as `x-required-scope` (docs/integrations.md#scopes),
 * from the one table `domain/api-scopes.ts`; an operation without it takes no API token. Its 403
 * then also means `insufficient_scope`.
 */
function requiredScopes(document: { paths?: Record<string, Record<string, { 'x-required-scope'?: string }>> }): void {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const scope = scopeOf(method, path);
      if (scope) operation['x-required-scope'] = scope;
    }
  }
}

type QueryParameter = {
  in: string;
  schema?: { type?: string; pattern?: string; default?: unknown } & Record<string, unknown>;
};

/**
 * Query members arrive as text and are parsed into integers (`page`, `per_page`, sizes); the
 * generated schema still shows the text's pattern. Documented as what they mean: integers.
 */
function integerQueryParameters(document: {
  paths?: Record<string, Record<string, { parameters?: QueryParameter[] }>>;
}): void {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) {
        const schema = parameter.schema;
        if (parameter.in !== 'query' || !schema || !/^\^(-\?)?\\d\+\$$/.test(schema.pattern ?? '')) continue;
        schema.type = 'integer';
        delete schema.pattern;
        if (typeof schema.default === 'string') schema.default = Number(schema.default);
      }
    }
  }
}
