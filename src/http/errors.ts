import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isUnavailable, isUnstorableText } from '../db/errors';
import { FileStoreUnavailable } from '../files/store';
import { SOURCE_LANGUAGE } from '../i18n/catalog';
import { formatMessage, msg, type Message } from '../i18n/messages';
import type { AppEnv } from './env';
import { requestLanguage } from './language';

/** Every error code the service answers with, and its HTTP status (docs/api.md#authentication-and-errors). */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthenticated: 401,
  invalid_credentials: 401,
  forbidden: 403,
  guests_not_allowed: 403,
  insufficient_scope: 403,
  sso_required: 403,
  reauthentication_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  vote_limit_reached: 409,
  already_rated: 409,
  workshop_archived: 409,
  attendee_limit_reached: 409,
  email_taken: 409,
  already_member: 409,
  invitation_used: 409,
  conflict: 409,
  last_admin: 409,
  idempotency_key_in_use: 409,
  payload_too_large: 413,
  workshop_storage_full: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  upload_quota_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

/** A detail as it is raised: its message a catalog's, said in each request's language, or plain English. */
export interface RaisedDetail {
  path: string;
  message: string | Message;
}

/**
 * The one error type services throw; the app's error handler turns it into the error body of
 * docs/api.md#authentication-and-errors. Its message is a catalog's (`msg(id, values)`), said in
 * the language of each request's `Accept-Language` (docs/i18n.md), or, while the messages move
 * into the catalogs, plain English text; its `code` is the same in every language.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;
  /** The catalog's message, when it was given as one; `message` holds its English text. */
  readonly said: Message | undefined;
  private readonly raisedDetails: RaisedDetail[] | undefined;

  constructor(
    code: ErrorCode,
    message: string | Message,
    options?: { details?: RaisedDetail[]; headers?: Record<string, string> },
  ) {
    super(sayIn(SOURCE_LANGUAGE, message));
    this.name = 'AppError';
    this.code = code;
    this.said = typeof message === 'string' ? undefined : message;
    this.raisedDetails = options?.details;
    this.details = options?.details?.map(({ path, message }) => ({ path, message: sayIn(SOURCE_LANGUAGE, message) }));
    this.headers = options?.headers;
  }

  /** The message in `lang` (English when it was given as text). */
  messageIn(lang: string): string {
    return this.said ? formatMessage(lang, this.said) : this.message;
  }

  /** The details in `lang` (each English when it was given as text). */
  detailsIn(lang: string): ErrorDetail[] | undefined {
    return this.raisedDetails?.map(({ path, message }) => ({ path, message: sayIn(lang, message) }));
  }

  /** Whether any of its words depend on the request's language. */
  get localized(): boolean {
    return this.said !== undefined || (this.raisedDetails ?? []).some(({ message }) => typeof message !== 'string');
  }

  get status(): ContentfulStatusCode {
    return ERROR_STATUS[this.code];
  }
}

const sayIn = (lang: string, message: string | Message) =>
  typeof message === 'string' ? message : formatMessage(lang, message);

/**
 * What a 404 can say was not found: each its own whole sentence in every language
 * (docs/i18n.md#writing-a-message), never a name glued to "not found".
 */
const NOT_FOUND = {
  api_token: () => msg('error.missing.api_token'),
  attachment: () => msg('error.missing.attachment'),
  canvas: () => msg('error.missing.canvas'),
  card: () => msg('error.missing.card'),
  comment: () => msg('error.missing.comment'),
  criterion: () => msg('error.missing.criterion'),
  delivery: () => msg('error.missing.delivery'),
  export: () => msg('error.missing.export'),
  file: () => msg('error.missing.file'),
  illustration: () => msg('error.missing.illustration'),
  invitation: () => msg('error.missing.invitation'),
  item: () => msg('error.missing.item'),
  member: () => msg('error.missing.member'),
  notification: () => msg('error.missing.notification'),
  organization: () => msg('error.missing.organization'),
  rating: () => msg('error.missing.rating'),
  section: () => msg('error.missing.section'),
  session: () => msg('error.missing.session'),
  step: () => msg('error.missing.step'),
  template: () => msg('error.missing.template'),
  user: () => msg('error.missing.user'),
  user_role: () => msg('error.missing.user_role'),
  vote: () => msg('error.missing.vote'),
  webhook: () => msg('error.missing.webhook'),
  workshop: () => msg('error.missing.workshop'),
  workshop_with_code: () => msg('error.missing.workshop_with_code'),
  zone: () => msg('error.missing.zone'),
} satisfies Record<string, () => Message>;

export type Missing = keyof typeof NOT_FOUND;

/** Shorthands for the common cases, so services read as sentences. */
export const notFound = (what?: Missing) =>
  new AppError('not_found', what ? NOT_FOUND[what]() : msg('error.not_found'));
export const forbidden = (message?: string | Message) => new AppError('forbidden', message ?? msg('error.forbidden'));
/** A session opened with a password, on what an organization requiring single sign-on owns (docs/integrations.md#requiring-it-for-an-organization). */
export const ssoRequired = () => new AppError('sso_required', msg('error.sso_required'));
export const invalid = (path: string, message: string | Message) =>
  new AppError('invalid_request', message, { details: [{ path, message }] });

export function errorBody(code: ErrorCode, message: string, details?: ErrorDetail[]) {
  return { error: details && details.length > 0 ? { code, message, details } : { code, message } };
}

/** Turns anything thrown by a handler into the documented error shape. */
export function toErrorResponse(err: unknown, c: Context<AppEnv>): Response {
  const appError = normalize(err);
  if (appError.code === 'internal_error') {
    // The request's id (`request-id.ts`) ties this to its log line and to what the client saw.
    console.error(`[error] ${c.req.method} ${c.req.path} request_id=${c.get('requestId') ?? '-'}`, err);
  }
  const lang = requestLanguage(c);
  // A message from the catalogs depends on the request's language: a cache must keep one per language.
  if (appError.localized) c.header('Vary', 'Accept-Language', { append: true });
  return c.json(
    errorBody(appError.code, appError.messageIn(lang), appError.detailsIn(lang)),
    appError.status,
    appError.headers,
  );
}

function normalize(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof HTTPException) {
    switch (err.status) {
      case 400:
        return new AppError('invalid_request', err.message || msg('error.malformed'));
      case 401:
        return new AppError('unauthenticated', msg('error.auth_required'));
      case 413:
        return new AppError('payload_too_large', msg('error.payload_too_large'));
      case 415:
        return new AppError('unsupported_media_type', err.message || msg('error.unsupported_media_type'));
      case 429:
        return new AppError('rate_limited', msg('error.rate_limited'));
    }
    if (err.status === 404) return new AppError('not_found', msg('error.not_found'));
    return new AppError('internal_error', msg('error.internal'));
  }
  if (err instanceof FileStoreUnavailable) {
    // Checked first: its cause may be a network error the database check would claim as its own.
    return new AppError('service_unavailable', msg('error.file_storage_unavailable'), {
      headers: { 'Retry-After': '1' },
    });
  }
  if (isUnstorableText(err)) {
    // A NUL character got past the edge (`parseInput`, and the app's check of the path).
    return new AppError('invalid_request', msg('error.unstorable_text'));
  }
  if (isUnavailable(err)) {
    // A lock or a connection could not be had in time: nothing was written; try again.
    return new AppError('service_unavailable', msg('error.database_unavailable'), {
      headers: { 'Retry-After': '1' },
    });
  }
  return new AppError('internal_error', msg('error.internal'));
}
