import createFetchClient, {
  type Client as FetchClient,
  type FetchResponse,
  type MaybeOptionalInit,
} from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { ApiError } from './errors.js';
import type { paths } from './generated/openapi.js';
import { nextPageQuery } from './paging.js';
import { honourRetryAfter, withIdempotencyKeys, type RetryOptions } from './retry.js';

export type { paths } from './generated/openapi.js';

export interface ClientOptions {
  /** The server's origin, e.g. `https://workshops.example.com` (routes start with `/v1`). */
  baseUrl: string;
  /** The bearer token from signup or login; `setToken` changes it later. */
  token?: string | null;
  /** A `fetch` to send requests with (defaults to the global one). */
  fetch?: (request: Request) => Promise<Response>;
  retry?: RetryOptions;
  /**
   * Sent as `Accept-Language` with every request, so that errors' messages come in the page's
   * language rather than the browser's (their `code` never changes), and a signup without a
   * `locale` takes it: a tag list as the header takes it (`fr`, `fr-CA, fr;q=0.9`), or a
   * function asked before each request (a page whose language can be switched). Unset, empty or
   * `null`: the header is left as the runtime sends it.
   */
  acceptLanguage?: string | (() => string | null | undefined);
}

/** The second argument of a call: required when the route has path parameters or a required body. */
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** What a successful call resolves to: the route's success body, or nothing for a 204. */
type Data<Operation, Init> = OrVoid<
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- openapi-fetch's own constraint on an operation
  Exclude<FetchResponse<Operation & Record<string | number, any>, Init, MediaType>['data'], undefined>
>;
type OrVoid<T> = [T] extends [never] ? void : T;

/** A typed call: the path is one of the service's, the init its parameters and body. Throws `ApiError`. */
type Call<M extends HttpMethod> = <P extends PathsWithMethod<paths, M>, I extends MaybeOptionalInit<paths[P], M>>(
  path: P,
  ...init: InitParam<I>
) => Promise<Data<paths[P][M], I>>;

/**
 * Bodies holding a file (a `Blob`: the multipart routes' `file`, `avatar`) go as multipart form
 * data, the others as JSON.
 */
function serializeBody(body: unknown): string | FormData {
  const members = body !== null && typeof body === 'object' ? Object.entries(body) : [];
  if (!members.some(([, value]) => value instanceof Blob)) return JSON.stringify(body);
  const form = new FormData();
  for (const [name, value] of members)
    if (value !== undefined) form.append(name, value instanceof Blob ? value : String(value));
  return form;
}

/** The GET routes whose lists come in pages (their answers declare a `Link` header). */
export type PagedPath = {
  [P in PathsWithMethod<paths, 'get'>]: paths[P]['get'] extends {
    responses: { 200: { headers: { Link?: infer Link } } };
  }
    ? unknown extends Link
      ? never
      : P
    : never;
}[PathsWithMethod<paths, 'get'>];

/** The GET routes that answer a file (every media type of their success a `Blob`): the ones `download` reads. */
export type FilePath = {
  [P in PathsWithMethod<paths, 'get'>]: paths[P]['get'] extends { responses: { 200: { content: infer Content } } }
    ? Content[keyof Content] extends Blob
      ? P
      : never
    : never;
}[PathsWithMethod<paths, 'get'>];

/** A file the service answered with, and the name it gave it. */
export interface DownloadedFile {
  blob: Blob;
  /** The name from `Content-Disposition` (its exact UTF-8 form when given), or null without one. */
  filename: string | null;
}

/** The file's name in a `Content-Disposition` header: `filename*` (RFC 5987) before the ASCII `filename`. */
function fileNameOf(disposition: string | null): string | null {
  const exact = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(disposition ?? '')?.[1];
  if (exact) {
    try {
      return decodeURIComponent(exact);
    } catch {
      // Malformed: the ASCII name below stands in.
    }
  }
  return (
    /filename\s*=\s*(?:"([^"]*)"|([^;\s]+))/i
      .exec(disposition ?? '')
      ?.slice(1)
      .find(Boolean) ?? null
  );
}

export interface WorkshopClient {
  get: Call<'get'>;
  post: Call<'post'>;
  put: Call<'put'>;
  delete: Call<'delete'>;
  /**
   * Every item of a paged list (the event log, notifications), fetching page after page as the
   * loop asks for more, by the `next` link of each answer's `Link` header.
   */
  paginate<P extends PagedPath, I extends MaybeOptionalInit<paths[P], 'get'>>(
    path: P,
    ...init: InitParam<I>
  ): AsyncGenerator<Data<paths[P]['get'], I> extends ReadonlyArray<infer Item> ? Item : never, void, undefined>;
  /**
   * A file the service answers a GET with (the account's data export, an export's download): read
   * as a `Blob` (openapi-fetch's `parseAs: 'blob'`) with the name the service gives it. Throws
   * `ApiError`, as the other calls do.
   */
  download<P extends FilePath, I extends MaybeOptionalInit<paths[P], 'get'>>(
    path: P,
    ...init: InitParam<I>
  ): Promise<DownloadedFile>;
  /** Replaces the bearer token for the calls, sockets and documents opened from now on. */
  setToken(token: string | null): void;
  readonly token: string | null;
  readonly baseUrl: string;
  /** The underlying openapi-fetch client, answering `{data, error, response}` instead of throwing. */
  readonly fetchClient: FetchClient<paths>;
}

/**
 * A client of the service's REST API, typed from its OpenAPI document:
 * `await api.get('/v1/workshops/{id}', { params: { path: { id } } })` resolves with the workshop
 * or throws an `ApiError`.
 */
export function createClient(options: ClientOptions): WorkshopClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  let token = options.token ?? null;
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const { acceptLanguage } = options;
  const withHeaders = (request: Request) => {
    if (token !== null) request.headers.set('authorization', `Bearer ${token}`);
    const language = typeof acceptLanguage === 'function' ? acceptLanguage() : acceptLanguage;
    if (language) request.headers.set('accept-language', language);
    return send(request);
  };
  const fetchClient = createFetchClient<paths>({
    baseUrl,
    fetch: withIdempotencyKeys(honourRetryAfter(withHeaders, options.retry)),
    bodySerializer: serializeBody,
  });

  const request = fetchClient.request as (
    method: HttpMethod,
    path: string,
    init?: object,
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  async function exchange(method: HttpMethod, path: string, init?: object) {
    const { data, error, response } = await request(method, path, init);
    if (!response.ok) throw ApiError.fromResponse(response, error);
    return { data, response };
  }
  const call = (method: HttpMethod) => async (path: string, init?: object) => (await exchange(method, path, init)).data;

  return {
    get: call('get') as Call<'get'>,
    post: call('post') as Call<'post'>,
    put: call('put') as Call<'put'>,
    delete: call('delete') as Call<'delete'>,
    paginate: async function* (path: string, init?: { params?: { query?: Record<string, unknown> } }) {
      let query = init?.params?.query ?? {};
      for (;;) {
        const { data, response } = await exchange('get', path, { ...init, params: { ...init?.params, query } });
        const items = data as unknown[];
        yield* items;
        const next = nextPageQuery(response.headers.get('link'));
        if (next === null || items.length === 0) return;
        query = { ...query, ...next };
      }
    } as unknown as WorkshopClient['paginate'],
    download: (async (path: string, init?: object) => {
      const { data, response } = await exchange('get', path, { ...init, parseAs: 'blob' });
      return { blob: data as Blob, filename: fileNameOf(response.headers.get('content-disposition')) };
    }) as WorkshopClient['download'],
    setToken(next) {
      token = next;
    },
    get token() {
      return token;
    },
    baseUrl,
    fetchClient,
  };
}
