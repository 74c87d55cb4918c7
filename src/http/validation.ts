import type { Context, MiddlewareHandler } from 'hono';
import { uniqueSymbol, resolver } from 'hono-openapi';
import { validator } from 'hono/validator';
import * as v from 'valibot';
import { SOURCE_LANGUAGE } from '../i18n/catalog';
import { msg, t } from '../i18n/messages';
import { said, valibotLanguage } from '../i18n/valibot';
import type { AppEnv } from './env';
import { AppError, type ErrorDetail } from './errors';
import { requestLanguage } from './language';

/** A validator middleware whose output handlers read, typed, with `c.req.valid(target)`. */
type Validated<T extends 'json' | 'query', S extends v.GenericSchema> = MiddlewareHandler<
  AppEnv,
  string,
  { in: { [K in T]: v.InferInput<S> }; out: { [K in T]: v.InferOutput<S> } }
>;

const JSON_MEDIA = /^application\/([\w.-]+\+)?json$/i;

function mediaType(c: Context): string {
  return (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/** A request carries a body when it declares a length above zero or streams one. */
export function hasBody(c: Context): boolean {
  const length = c.req.header('content-length');
  if (length !== undefined) return Number(length) > 0;
  return c.req.header('transfer-encoding') !== undefined;
}

/** Valibot issues as the error body's `details` (docs/api.md#authentication-and-errors): a dotted path and a sentence. */
export function issuesToDetails(issues: readonly v.BaseIssue<unknown>[], lang = SOURCE_LANGUAGE): ErrorDetail[] {
  return issues.map((issue) => {
    const path = v.getDotPath(issue) ?? '';
    // A member that is missing is an object's issue expecting its quoted key
    // (valibot's "Invalid key: Expected "name" but received undefined").
    const missing =
      issue.kind === 'schema' &&
      OBJECT_TYPES.has(issue.type) &&
      issue.received === 'undefined' &&
      (issue.expected ?? '').startsWith('"');
    const name = path.split('.').at(-1) || 'value';
    return { path, message: missing ? t(lang, 'error.validation.required', { name }) : issue.message };
  });
}

type SchemaNode = {
  type: string;
  entries?: Record<string, SchemaNode>;
  wrapped?: SchemaNode;
  item?: SchemaNode;
  value?: SchemaNode;
  options?: SchemaNode[];
};

const OBJECT_TYPES = new Set(['object', 'loose_object', 'strict_object', 'object_with_rest']);
const WRAPPERS = new Set([
  'optional',
  'exact_optional',
  'nullable',
  'nullish',
  'undefinedable',
  'non_optional',
  'non_nullable',
  'non_nullish',
]);

/**
 * Where an object is expected and an array given: valibot's object schemas read an array's
 * (missing) keys like an object's, so `[]` would pass as `{}`. The API calls it a wrong type.
 */
function arrayForObject(schema: SchemaNode, input: unknown, path: readonly string[], lang: string): ErrorDetail | null {
  if (input === null || typeof input !== 'object') return null;
  const wrong = () => ({ path: path.join('.'), message: t(lang, 'error.validation.object_not_array') });
  if (WRAPPERS.has(schema.type) && schema.wrapped) return arrayForObject(schema.wrapped, input, path, lang);
  if (OBJECT_TYPES.has(schema.type)) {
    if (Array.isArray(input)) return wrong();
    for (const [key, entry] of Object.entries(schema.entries ?? {})) {
      const found = arrayForObject(entry, (input as Record<string, unknown>)[key], [...path, key], lang);
      if (found) return found;
    }
    return null;
  }
  if (schema.type === 'array' && schema.item && Array.isArray(input)) {
    for (const [index, element] of input.entries()) {
      const found = arrayForObject(schema.item, element, [...path, String(index)], lang);
      if (found) return found;
    }
    return null;
  }
  if (schema.type === 'record' && schema.value && !Array.isArray(input)) {
    for (const [key, element] of Object.entries(input)) {
      const found = arrayForObject(schema.value, element, [...path, key], lang);
      if (found) return found;
    }
    return null;
  }
  if ((schema.type === 'union' || schema.type === 'variant') && schema.options && Array.isArray(input)) {
    if (schema.options.every((option) => OBJECT_TYPES.has(option.type))) return wrong();
  }
  return null;
}

/**
 * The path of the first string in `value` (a parsed input: its values and its objects' keys) that
 * no store can keep as it is, or null: one holding a NUL character, which PostgreSQL cannot store
 * in text or JSON (22021, 22P05) where SQLite would keep it, or a lone UTF-16 surrogate (from a
 * JSON `\ud800` escape), which the two stores replace differently. Refused before either sees it,
 * so both stores answer alike.
 */
export function unstorableTextPath(value: unknown, path: readonly string[] = []): string[] | null {
  if (typeof value === 'string') return unstorable(value) ? [...path] : null;
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value) || value instanceof Set) {
    let index = 0;
    for (const element of value) {
      const found = unstorableTextPath(element, [...path, String(index++)]);
      if (found) return found;
    }
    return null;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return null;
  for (const [key, element] of Object.entries(value)) {
    if (unstorable(key)) return [...path, key];
    const found = unstorableTextPath(element, [...path, key]);
    if (found) return found;
  }
  return null;
}

// With the `u` flag a surrogate pair is one code point: only a lone surrogate matches.
const UNSTORABLE = /[\0\uD800-\uDFFF]/u;
const unstorable = (text: string) => UNSTORABLE.test(text);

/** Why `unstorableTextPath` refuses a string. */
export const UNSTORABLE_TEXT = 'Must not contain a NUL character (\\u0000) or a lone surrogate (\\ud800-\\udfff).';

/** What a refused input was: the error's message names it. */
export type InputKind = 'body' | 'query' | 'request';

/** The documented 400 for refused input, its message naming the first detail in the request's language. */
function invalidInput(what: InputKind, details: ErrorDetail[]): AppError {
  const first = details[0];
  const message = !first
    ? msg('error.invalid_input.none', { what })
    : first.path
      ? msg('error.invalid_input.at', { what, path: first.path, detail: first.message })
      : msg('error.invalid_input.detail', { what, detail: first.message });
  return new AppError('invalid_request', message, { details });
}

/**
 * Parses input against a schema or throws the documented 400, its words in `lang`: the request's
 * (docs/i18n.md#which-language), English when the input comes from no request.
 */
export function parseInput<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  what: InputKind = 'request',
  lang: string = SOURCE_LANGUAGE,
): v.InferOutput<S> {
  const wrongType = arrayForObject(schema, input, [], lang);
  if (wrongType) throw invalidInput(what, [wrongType]);
  const result = v.safeParse(schema, input, { abortPipeEarly: true, lang: valibotLanguage(lang) });
  if (result.success) {
    // Checked on what the schema kept, whatever the member's schema: unknown members stay ignored.
    const unstorablePath = unstorableTextPath(result.output);
    if (unstorablePath) throw invalidInput(what, [{ path: unstorablePath.join('.'), message: UNSTORABLE_TEXT }]);
    return result.output;
  }
  throw invalidInput(what, issuesToDetails(result.issues, lang));
}

/** Attaches the OpenAPI description hono-openapi reads from a validator middleware. */
function documented<M extends object>(middleware: M, target: 'json' | 'query' | 'param', schema: v.GenericSchema): M {
  return Object.assign(middleware, {
    [uniqueSymbol]: { target, ...resolver(schema as never), options: undefined },
  }) as M;
}

/**
 * Validates a JSON body against a valibot schema; the handler reads it with `c.req.valid('json')`.
 * A body in another media type is a 415, malformed JSON or a schema miss a 400. No body, or an
 * empty one whatever its declared type, counts as `{}`, so routes whose members are all optional
 * accept an empty request.
 */
export function jsonBody<S extends v.GenericSchema>(schema: S): Validated<'json', S> {
  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    let value: unknown = {};
    if (hasBody(c)) {
      if (!JSON_MEDIA.test(mediaType(c))) {
        throw new AppError('unsupported_media_type', msg('error.json_body_required'));
      }
      const text = await c.req.text();
      if (text.trim() !== '') {
        try {
          value = JSON.parse(text);
        } catch {
          throw new AppError('invalid_request', msg('error.body_not_json'));
        }
      }
    }
    c.req.addValidatedData('json', parseInput(schema, value, 'body', requestLanguage(c)) as object);
    await next();
  };
  return documented(middleware as unknown as Validated<'json', S>, 'json', schema);
}

/** Validates the query string; repeated keys arrive as arrays, single ones as strings. */
export function queryParams<S extends v.GenericSchema>(schema: S): Validated<'query', S> {
  const middleware = validator('query', (value, c) =>
    parseInput(schema, value, 'query', requestLanguage(c as Context<AppEnv>)),
  ) as unknown as Validated<'query', S>;
  return documented(middleware, 'query', schema);
}

/** Query-string helpers: query values arrive as strings. */
export const queryBoolean = v.pipe(
  v.picklist(['true', 'false', '1', '0'], said('error.validation.boolean')),
  v.transform((s) => s === 'true' || s === '1'),
);

export const queryInteger = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(
    v.string(),
    v.regex(/^-?\d+$/, said('error.validation.integer_text')),
    v.transform(Number),
    v.integer(),
    v.minValue(min),
    v.maxValue(max),
  );

/** Non-empty trimmed text with an upper bound, for titles and names. */
export const requiredText = (max: number) =>
  v.pipe(v.string(), v.trim(), v.minLength(1, said('error.validation.empty')), v.maxLength(max));
export const optionalText = (max: number) => v.pipe(v.string(), v.maxLength(max));
export const idString = v.pipe(v.string(), v.minLength(1), v.maxLength(64));
