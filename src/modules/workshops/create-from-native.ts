import * as v from 'valibot';
import { budget } from '../../config-limits';
import type { AppDeps } from '../../deps';
import { AppError, invalid } from '../../http/errors';
import { UNSTORABLE_TEXT, unstorableTextPath } from '../../http/validation';
import type { UserRow } from '../../http/env';
import type { Limiter } from '../../lib/limiters';
import { fetchPublic, PublicFetchError } from '../../lib/public-fetch';
import { brokenReference } from '../exports/native-references';
import { NATIVE_MAX_BYTES, NativeDocument } from '../exports/native-schema';
import { checkSignature, fileRefFromUrl } from '../uploads/file-links';
import { EXPORTS_CONTAINER, findFile, readFile } from '../uploads/storage';
import { importNative } from './rebuild-native';
import type { WorkshopOutput } from '../../domain/workshops';
import type { CreateWorkshopInput } from './schemas';
import { msg, type Message } from '../../i18n/messages';

/*
 * Creating a workshop from a native file at a URL (docs/api.md#exports): fetched under the SSRF rules of
 * `lib/public-fetch.ts`, or read straight from storage when it is a signed link of this service;
 * checked whole (shape, then every reference) before anything is written; then rebuilt in one
 * transaction with new ids, as the caller's personal workshop (`rebuild-native.ts`). Authors are
 * kept only from this service's own exports; members are not carried over.
 */

/** A bad file: 400 on `url`, naming what is wrong. */
const badFile = (message: string | Message) => invalid('url', message);

/**
 * Imports from URLs: each user may start a few a minute, on whichever instances (429 beyond); an
 * instance rebuilds them one at a time, so a burst of large files cannot stack their writes.
 */
export class NativeImports {
  private readonly perUser: Limiter;
  private readonly perMinute: number;
  private queue: Promise<unknown> = Promise.resolve();

  constructor({ config, attempts }: Pick<AppDeps, 'config' | 'attempts'>) {
    this.perMinute = config.importsPerMinute;
    this.perUser = attempts.limiter({ name: 'native-imports', ...budget(config, 'importsPerMinute') });
  }

  /** `title` and `language` in the body win over the file's. */
  async create(
    deps: AppDeps,
    user: UserRow,
    url: string,
    chosen: Pick<CreateWorkshopInput, 'title' | 'language'>,
  ): Promise<WorkshopOutput> {
    const seconds = await this.perUser.take(user.id);
    if (seconds !== null) {
      throw new AppError('rate_limited', msg('error.workshops.imports_rate', { max: this.perMinute, seconds }), {
        headers: { 'Retry-After': String(seconds) },
      });
    }
    const { bytes, fromThisService } = await readNativeFile(deps, url);
    const document = parseNative(bytes);
    const run = this.queue.then(() => importNative(deps, user, document, chosen, { keepAuthors: fromThisService }));
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/**
 * The file's bytes, and whether this service wrote them (an export's signed link): only then are
 * the authors it names kept, since anyone could write a file naming any account.
 */
async function readNativeFile(deps: AppDeps, url: string): Promise<{ bytes: Buffer; fromThisService: boolean }> {
  const own = fileRefFromUrl(deps.config, url);
  if (own) {
    // A signed link of this service: read from storage, without a network hop.
    const query = new URL(url).searchParams;
    const check = checkSignature(deps.config, own, {
      mode: '',
      expires: query.get('expires') ?? undefined,
      signature: query.get('signature') ?? undefined,
    });
    if (!check.ok) throw badFile(check.reason);
    const file = await findFile(deps.database.db, own);
    if (!file) throw badFile(msg('error.workshops.native_no_file'));
    if (file.size > NATIVE_MAX_BYTES) throw badFile(msg('error.workshops.native_too_large', { max: NATIVE_MAX_BYTES }));
    try {
      return { bytes: await readFile(deps, file), fromThisService: file.container === EXPORTS_CONTAINER };
    } catch (err) {
      // Deleted between the lookup and the read (an export removed meanwhile).
      if (err instanceof AppError && err.code === 'not_found') throw badFile(msg('error.workshops.native_no_file'));
      throw err;
    }
  }
  try {
    const bytes = await fetchPublic(url, {
      allowHosts: deps.config.importAllowHosts,
      maxBytes: NATIVE_MAX_BYTES,
      timeoutMs: deps.config.importTimeoutMs,
    });
    return { bytes, fromThisService: false };
  } catch (err) {
    if (err instanceof PublicFetchError) throw badFile(err.message);
    throw err;
  }
}

function parseNative(bytes: Buffer): NativeDocument {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw badFile(msg('error.workshops.native_not_json'));
  }
  const parsed = v.safeParse(NativeDocument, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const where = v.getDotPath(issue);
    throw badFile(
      where
        ? msg('error.workshops.native_invalid_at', { path: where, detail: issue.message })
        : msg('error.workshops.native_invalid', { detail: issue.message }),
    );
  }
  const unstorable = unstorableTextPath(parsed.output);
  if (unstorable)
    throw badFile(msg('error.workshops.native_invalid_at', { path: unstorable.join('.'), detail: UNSTORABLE_TEXT }));
  const broken = brokenReference(parsed.output);
  if (broken) throw badFile(`The file's references are broken: ${broken}`);
  return parsed.output;
}
