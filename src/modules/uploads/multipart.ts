import type { Context } from 'hono';
import { AppError, invalid } from '../../http/errors';
import { hasBody } from '../../http/validation';
import { msg } from '../../i18n/messages';

export type FormFields = Record<string, string | File>;

/**
 * Reads a multipart/form-data body: another media type is a 415, a body that does not parse a 400.
 * With `allowEmpty`, a request without any body reads as no fields (used where every field is optional).
 */
export async function readMultipart(c: Context, options: { allowEmpty?: boolean } = {}): Promise<FormFields> {
  if (options.allowEmpty && !hasBody(c)) return {};
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'multipart/form-data') {
    throw new AppError('unsupported_media_type', msg('error.uploads.multipart_required'));
  }
  let fields: FormFields;
  try {
    fields = (await c.req.parseBody()) as FormFields;
  } catch {
    throw new AppError('invalid_request', msg('error.uploads.multipart_malformed'));
  }
  return withoutImpliedTypes(c, fields);
}

/**
 * The parser reports a file part without a Content-Type header as text/plain (as HTML forms define
 * it); the API treats such a part as untyped instead, so its type falls back to application/octet-stream.
 */
async function withoutImpliedTypes(c: Context, fields: FormFields): Promise<FormFields> {
  const suspects = Object.entries(fields).filter(([, value]) => value instanceof File && value.type === 'text/plain');
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(c.req.header('content-type') ?? '');
  if (suspects.length === 0 || !boundary) return fields;
  const untyped = fileFieldsWithoutType(Buffer.from(await c.req.arrayBuffer()), boundary[1] ?? boundary[2]!);
  for (const [name, value] of suspects) {
    if (untyped.has(name)) fields[name] = new File([value], (value as File).name, { type: '' });
  }
  return fields;
}

const MAX_PART_HEADERS = 16 * 1024;

function fileFieldsWithoutType(raw: Buffer, boundary: string): Set<string> {
  const names = new Set<string>();
  const delimiter = Buffer.from(`--${boundary}`);
  for (let at = raw.indexOf(delimiter); at !== -1; at = raw.indexOf(delimiter, at + delimiter.length)) {
    const start = at + delimiter.length;
    const end = raw.indexOf('\r\n\r\n', start);
    if (end === -1 || end - start > MAX_PART_HEADERS) continue;
    const head = raw.subarray(start, end).toString('latin1');
    const name = /;\s*name="([^"]*)"/i.exec(head)?.[1];
    if (name !== undefined && /;\s*filename\*?=/i.test(head) && !/^content-type\s*:/im.test(head)) names.add(name);
  }
  return names;
}

/** The file part named `name`; undefined when absent, 400 when the field is there but not a file. */
export function optionalFile(form: FormFields, name: string): File | undefined {
  const value = form[name];
  if (value === undefined) return undefined;
  if (!(value instanceof File)) throw invalid(name, msg('error.uploads.file_part_expected'));
  return value;
}

export function requiredFile(form: FormFields, name: string): File {
  const file = optionalFile(form, name);
  if (!file) throw invalid(name, msg('error.uploads.file_required'));
  return file;
}

/** Browsers may send a full client path as the file name; only its last segment is kept. */
export function cleanFileName(name: string, fallback = 'file'): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const printable = base
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 255);
  return printable || fallback;
}

const MIMETYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/**
 * The part's declared media type (keeping only a charset parameter), or application/octet-stream
 * when absent or unusable.
 */
export function declaredMimetype(file: File): string {
  const [type = '', ...params] = file.type.split(';').map((part) => part.trim().toLowerCase());
  if (!MIMETYPE.test(type)) return 'application/octet-stream';
  const charset = params.find((param) => /^charset=[a-z0-9_.:-]{1,40}$/.test(param));
  return charset ? `${type}; ${charset}` : type;
}
