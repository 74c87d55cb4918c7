import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config';
import { isSafeRef, type FileRef } from './storage';
import { msg, type Message } from '../../i18n/messages';

/*
 * Signed download links: a file is served without a token to whoever holds a link the service
 * signed, until the link's expiry.
 */

export type ImageMode = 'crop' | 'resize';

type SigningConfig = Pick<Config, 'publicUrl' | 'secret'>;

export const LINK_TTL_SECONDS = 7 * 24 * 3600;
/** Expiries are rounded up to the hour so a link stays the same for an hour and browsers can cache it. */
const EXPIRY_STEP_SECONDS = 3600;

/** A download link that works without a token until `expires` (seconds since the epoch). */
export function fileUrlUntil(config: SigningConfig, ref: FileRef, expires: number): string {
  return signedUrl(config, ref, '', expires);
}

/** A download link that works without a token for 7 days. */
export function publicFileUrl(config: SigningConfig, ref: FileRef): string {
  return signedUrl(config, ref, '', linkExpiry());
}

/**
 * A signed image link whose `{{width}}` and `{{height}}` the client fills in: the signature covers
 * container, key, mode and expiry but not the size.
 */
export function imageUrlTemplate(config: SigningConfig, ref: FileRef, mode: ImageMode): string {
  return `${signedUrl(config, ref, mode, linkExpiry())}&mode=${mode}&width={{width}}&height={{height}}`;
}

/**
 * A link that never expires, for avatars: they are stored in user and organization rows and
 * shown to everyone those appear to, like any profile picture.
 */
export function permanentFileUrl(config: SigningConfig, ref: FileRef): string {
  return signedUrl(config, ref, '', null);
}

export type LinkCheck = { ok: true; expires: number | null } | { ok: false; reason: Message };

/** Checks a link's signature and expiry; `mode` is the one the request asks for ('' for none). */
export function checkSignature(
  config: Pick<Config, 'secret'>,
  ref: FileRef,
  params: { mode: string; expires: string | undefined; signature: string | undefined },
): LinkCheck {
  if (!params.signature) return { ok: false, reason: msg('error.uploads.link_unsigned') };
  if (params.expires !== undefined && !/^\d{1,12}$/.test(params.expires))
    return { ok: false, reason: msg('error.uploads.link_invalid') };
  const expected = Buffer.from(sign(config.secret, ref, params.mode, params.expires ?? ''));
  const given = Buffer.from(params.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: msg('error.uploads.link_invalid') };
  if (params.expires === undefined) return { ok: true, expires: null };
  const expires = Number(params.expires);
  if (expires * 1000 <= Date.now()) return { ok: false, reason: msg('error.uploads.link_expired') };
  return { ok: true, expires };
}

/** The stored file a link of this service points at, or null for any other URL. */
export function fileRefFromUrl(config: Pick<Config, 'publicUrl'>, url: string | null): FileRef | null {
  if (!url?.startsWith(`${config.publicUrl}/files/`)) return null;
  const match = /^\/files\/([^/?#]+)\/([^/?#]+)/.exec(url.slice(config.publicUrl.length));
  if (!match) return null;
  const ref = { container: match[1]!, key: match[2]! };
  return isSafeRef(ref) ? ref : null;
}

function linkExpiry(): number {
  const at = Math.floor(Date.now() / 1000) + LINK_TTL_SECONDS;
  return Math.ceil(at / EXPIRY_STEP_SECONDS) * EXPIRY_STEP_SECONDS;
}

function signedUrl(config: SigningConfig, ref: FileRef, mode: string, expires: number | null): string {
  const expiry = expires === null ? '' : String(expires);
  const signature = sign(config.secret, ref, mode, expiry);
  const query = expires === null ? `signature=${signature}` : `expires=${expiry}&signature=${signature}`;
  return `${config.publicUrl}/files/${ref.container}/${ref.key}?${query}`;
}

function sign(secret: string, ref: FileRef, mode: string, expires: string): string {
  return createHmac('sha256', secret)
    .update(`file\n${ref.container}\n${ref.key}\n${mode}\n${expires}`)
    .digest('base64url');
}
