/*
 * What a stored file is served as (docs/operations.md#files-served-safely). Files are served from
 * the service's own origin, which its pages' `script-src 'self'` trusts: a file a user uploaded must
 * never come back as a script, a style sheet or a page. Only PNG, JPEG, GIF and WebP are shown
 * inline, and only when the bytes themselves say so; whatever the uploader claimed, anything else is
 * `application/octet-stream`, offered for saving.
 */

export const INLINE_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type InlineImageType = (typeof INLINE_IMAGE_TYPES)[number];

/** Bytes the signatures below need: enough of a file's start to tell the four formats apart. */
export const SIGNATURE_BYTES = 12;

/** The type sent for every file that is not one of the four images (exports aside). */
export const OPAQUE_TYPE = 'application/octet-stream';

const startsWith = (data: Uint8Array, at: number, bytes: readonly number[]) =>
  data.byteLength >= at + bytes.length && bytes.every((byte, i) => data[at + i] === byte);
const ascii = (text: string) => [...text].map((ch) => ch.charCodeAt(0));

/** PNG, JPEG, GIF or WebP as the file's first bytes show it; null for anything else (SVG included). */
export function inlineImageType(head: Uint8Array): InlineImageType | null {
  if (startsWith(head, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, 0, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(head, 0, ascii('GIF87a')) || startsWith(head, 0, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(head, 0, ascii('RIFF')) && startsWith(head, 8, ascii('WEBP'))) return 'image/webp';
  return null;
}

/**
 * The type an upload is recorded with: the bytes' own for the four images (a PNG sent as
 * `image/jpeg` is recorded as `image/png`); the declared one otherwise, unless it claims one of the
 * four images the bytes are not, which is no type at all.
 */
export function checkedMimetype(declared: string, data: Uint8Array): string {
  const shown = inlineImageType(data);
  if (shown) return shown;
  const base = declared.split(';')[0]!.trim();
  return (INLINE_IMAGE_TYPES as readonly string[]).includes(base) || base === 'image/jpg' ? OPAQUE_TYPE : declared;
}

/** How a file that is not an export is served: an image inline under its own type, anything else as bytes to save. */
export function servedAs(head: Uint8Array): { type: string; disposition: 'inline' | 'attachment' } {
  const image = inlineImageType(head);
  return image ? { type: image, disposition: 'inline' } : { type: OPAQUE_TYPE, disposition: 'attachment' };
}

/**
 * The stream's first `bytes` bytes (fewer if it is shorter), and a stream of the whole content:
 * what was read to look is handed on first, the rest is read as the answer is sent, never buffered.
 */
export async function peekStream(
  stream: ReadableStream<Uint8Array>,
  bytes: number,
): Promise<{ head: Uint8Array; body: ReadableStream<Uint8Array> }> {
  const reader = stream.getReader();
  const read: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  try {
    while (size < bytes) {
      const next = await reader.read();
      if (next.done) {
        ended = true;
        break;
      }
      read.push(next.value);
      size += next.value.byteLength;
    }
  } catch (err) {
    await reader.cancel(err).catch(() => {});
    throw err;
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of read) controller.enqueue(chunk);
      if (ended) controller.close();
    },
    async pull(controller) {
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { head: Buffer.concat(read).subarray(0, bytes), body };
}
