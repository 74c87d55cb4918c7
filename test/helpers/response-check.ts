import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/*
 * Every response the suite receives is held against the service's own OpenAPI document: its
 * status must be one the operation documents, and a JSON body must match the documented schema
 * for that status. So the document cannot drift from what the service does: a route answering a
 * status or a shape it does not document fails whichever test met it.
 */

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: Record<string, unknown>;
}
interface Template {
  pattern: RegExp;
  path: string;
  operations: Record<string, Operation>;
}

/** Statuses any route may answer whatever it documents: a wrong method (answered before routing). */
const UNDOCUMENTED_EVERYWHERE = new Set([405]);

let loaded:
  | Promise<{ templates: Template[]; validators: Map<object, ValidateFunction>; components: Record<string, unknown> }>
  | undefined;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

function load(baseUrl: string) {
  loaded ??= fetch(`${baseUrl}/v1/openapi.json`)
    .then((res) => res.json() as Promise<OpenApiDocument>)
    .then((document) => ({
      templates: Object.entries(document.paths).map(([path, operations]) => ({
        path,
        operations,
        pattern: new RegExp(
          `^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\\{[^}]+\\\}|\{[^}]+\}/g, '[^/]+')}$`,
        ),
      })),
      validators: new Map<object, ValidateFunction>(),
      // Schemas refer to shared ones as `#/components/schemas/…`: compiled with the components beside them.
      components: document.components ?? {},
    }));
  return loaded;
}

/** Which operation a concrete path and method call, if the document has it. */
function operationFor(
  templates: Template[],
  method: string,
  path: string,
): { template: string; operation: Operation } | undefined {
  const matching = templates.filter((t) => t.pattern.test(path) && t.operations[method.toLowerCase()]);
  // A static segment beats a parameter (`/workshops/join` over `/workshops/{id}`): fewer braces first.
  matching.sort((a, b) => (a.path.match(/\{/g)?.length ?? 0) - (b.path.match(/\{/g)?.length ?? 0));
  const best = matching[0];
  return best ? { template: best.path, operation: best.operations[method.toLowerCase()]! } : undefined;
}

export interface ReceivedResponse {
  status: number;
  contentType: string;
  body: unknown;
}

/** Throws when a response breaks the document: an undocumented status, or a body off its schema. */
export async function checkResponse(
  baseUrl: string,
  method: string,
  url: string,
  response: ReceivedResponse,
): Promise<void> {
  const path = new URL(url, baseUrl).pathname;
  const { templates, validators, components } = await load(baseUrl);
  const found = operationFor(templates, method, path);
  if (!found || UNDOCUMENTED_EVERYWHERE.has(response.status)) return;
  const { template, operation } = found;
  const documented = operation.responses[String(response.status)];
  if (!documented) {
    throw new Error(
      `${method} ${template} answered ${response.status}, which its OpenAPI operation does not document (it documents ${Object.keys(operation.responses).join(', ')}): ${JSON.stringify(response.body).slice(0, 300)}`,
    );
  }
  const schema = documented.content?.['application/json']?.schema;
  if (!schema || !response.contentType.includes('json')) return;
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile({ ...schema, components });
    validators.set(schema, validate);
  }
  if (!validate(response.body)) {
    throw new Error(
      `${method} ${template} ${response.status}: the body does not match the documented schema: ${ajv.errorsText(validate.errors)}; body: ${JSON.stringify(response.body).slice(0, 300)}`,
    );
  }
}
