/** Every error code the service answers with, and its HTTP status (docs/api.md#authentication-and-errors). */
const STATUS_OF_CODE = {
  invalid_request: 400,
  unauthenticated: 401,
  invalid_credentials: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  vote_limit_reached: 409,
  already_rated: 409,
  workshop_archived: 409,
  attendee_limit_reached: 409,
  email_taken: 409,
  already_member: 409,
  invitation_used: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  // After the generic codes of their statuses, so a bare status maps to those.
  guests_not_allowed: 403,
  insufficient_scope: 403,
  sso_required: 403,
  reauthentication_required: 403,
  last_admin: 409,
  idempotency_key_in_use: 409,
  idempotency_key_reused: 422,
  workshop_storage_full: 413,
  upload_quota_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type KnownErrorCode = keyof typeof STATUS_OF_CODE;

/** A code the service answers with; newer servers may add others. */
export type ErrorCode = KnownErrorCode | (string & {});

/** Which member of the request a validation error is about. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * What the service refused, as its error body says (`{error: {code, message, details}}`) with the
 * HTTP status. A socket `join` refusal is one too, with the status its code has over REST.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** Per-member reasons, for `invalid_request`. */
    readonly details: ErrorDetail[] = [],
    /** Seconds the server asked to wait before trying again (429, 503). */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }

  /** Reads a failed response's body (already parsed or not) into an ApiError. */
  static fromResponse(response: Response, body: unknown): ApiError {
    const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
    const code = typeof error?.code === 'string' ? error.code : codeOfStatus(response.status);
    const message =
      typeof error?.message === 'string' ? error.message : `${response.status} ${response.statusText}`.trim();
    const details = Array.isArray(error?.details) ? (error.details as ErrorDetail[]) : [];
    return new ApiError(response.status, code, message, details, retryAfterSeconds(response.headers));
  }
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterSeconds(headers: Headers): number | null {
  const value = headers.get('retry-after');
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** A code for a failed answer whose body is not the API's error body (a proxy's page, an empty body). */
function codeOfStatus(status: number): ErrorCode {
  const known = Object.entries(STATUS_OF_CODE).find(([, s]) => s === status);
  return known ? known[0] : 'internal_error';
}

/** The HTTP status a code has over REST (for refusals that come over a socket). */
export function statusOfCode(code: ErrorCode): number {
  return (STATUS_OF_CODE as Record<string, number>)[code] ?? 500;
}
