import sharp, { type Sharp } from 'sharp';
import { invalid } from '../../http/errors';
import type { ImageMode } from './file-links';
import { msg } from '../../i18n/messages';

/** Decoding bombs stop here (~ 7000 × 7000) instead of taking the process's memory. */
const MAX_INPUT_PIXELS = 50_000_000;
export const AVATAR_SIZE = 512;

export interface EncodedImage {
  data: Buffer;
  mimetype: string;
  extension: string;
  width: number;
  height: number;
}

export function isImageMimetype(mimetype: string): boolean {
  return mimetype.toLowerCase().startsWith('image/');
}

function open(data: Uint8Array): Sharp {
  return sharp(data, { limitInputPixels: MAX_INPUT_PIXELS });
}

/**
 * Re-encodes an avatar to at most 512×512, turned upright and without metadata (no camera or
 * location data leaks). JPEG stays JPEG; anything else becomes PNG, which keeps transparency.
 * Anything sharp cannot decode is a 400 on `path`.
 */
export async function encodeAvatar(data: Uint8Array, path: string): Promise<EncodedImage> {
  try {
    const { format } = await open(data).metadata();
    const pipeline = open(data).rotate().resize(AVATAR_SIZE, AVATAR_SIZE, { fit: 'inside', withoutEnlargement: true });
    const jpeg = format === 'jpeg';
    const { data: out, info } = await (jpeg ? pipeline.jpeg({ quality: 85 }) : pipeline.png()).toBuffer({
      resolveWithObject: true,
    });
    return {
      data: out,
      mimetype: jpeg ? 'image/jpeg' : 'image/png',
      extension: jpeg ? 'jpg' : 'png',
      width: info.width,
      height: info.height,
    };
  } catch {
    throw invalid(path, msg('error.uploads.not_an_image'));
  }
}

/** What a crop or resize keeps: the formats browsers show and the service serves inline. */
const KEPT_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif']);

/**
 * Crops to exactly width×height (`crop`) or fits within it (`resize`), keeping the input's format
 * when it is PNG, JPEG, GIF or WebP; anything else (TIFF, AVIF, an SVG) becomes WebP, the only
 * images served inline being those four. A file that is not a decodable image is a 400.
 */
export async function transformImage(data: Uint8Array, mode: ImageMode, width: number, height: number) {
  try {
    const { format } = await open(data).metadata();
    const pipeline = open(data)
      .rotate()
      .resize(width, height, { fit: mode === 'crop' ? 'cover' : 'inside' });
    return await (format && KEPT_FORMATS.has(format) ? pipeline : pipeline.webp()).toBuffer();
  } catch {
    throw invalid('mode', msg('error.uploads.not_resizable'));
  }
}
