import type { Hono } from 'hono';
import { describeRoute, generateSpecs, resolver } from 'hono-openapi';
import * as v from 'valibot';

export const ErrorSchema = v.object({
  error: v.object({
    code: v.string(),
    message: v.string(),
    details: v.optional(v.array(v.object({ path: v.string(), message: v.string() }))),
  }),
});

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: resolver(ErrorSchema) } },
});

interface RouteDoc {
  /** Group shown in the docs, usually the resource. */
  tag: string;
  summary: string;
  description?: string;
  /** Success status; defaults to 200. */
  status?: 200 | 201 | 204;
  /** Schema of the success body; omit for 204. */
  response?: v.GenericSchema;
  /** Extra media type for success responses that are files. */
  produces?: string;
  /** False for the routes that take no bearer token. */
  auth?: boolean;
  /** A multipart body: field name → description. */
  multipart?: Record<string, { description: string; required?: boolean; binary?: boolean }>;
}

/** OpenAPI description of a route: summary, success body and the error answers it can give. */
export function doc(spec: RouteDoc) {
  const status = spec.status ?? 200;
  const success = spec.produces
    ? { description: 'The file', content: { [spec.produces]: { schema: { type: 'string', format: 'binary' } } } }
    : spec.response
      ? { description: 'Success', content: { 'application/json': { schema: resolver(spec.response) } } }
      : { description: 'Success, no content' };
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
              required: Object.entries(spec.multipart).filter(([, f]) => f.required).map(([n]) => n),
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
      400: errorResponse('Invalid request'),
      ...(spec.auth === false ? {} : { 401: errorResponse('Missing or invalid token') }),
      403: errorResponse('Not allowed'),
      404: errorResponse('Not found, or not visible to the caller'),
      409: errorResponse('Refused by the current state'),
    },
  });
}

/** Builds the OpenAPI 3.1 document of every route mounted on the app. */
export function buildOpenApiDocument(app: Hono<any>, publicUrl: string) {
  return generateSpecs(app, {
    documentation: {
      info: {
        title: 'Workshop facilitation API',
        version: '1.0.0',
        description: 'Workshops, steps, cards and card feedback. Every `/v1` route but signup, login and confirm needs `Authorization: Bearer <token>`.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
      security: [{ bearer: [] }],
    },
    exclude: ['/v1/openapi.json', '/docs', '/health'],
  });
}
