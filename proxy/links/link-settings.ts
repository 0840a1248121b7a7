/**
 * The merchant's name, logo and accent colour on a link's page (`KASSA_MERCHANT_*`), read and checked
 * at start. The logo is a small image file the proxy reads once and writes into the page as a `data:`
 * URL: the page's Content-Security-Policy already allows `img-src data:`, so it needs no other origin
 * (no third-party host learns who opens a payment link, none can change what customers see or slow
 * the page), no route of its own, and an SVG shown by `<img>` runs no script.
 */
import { readFileSync, statSync } from 'node:fs';
import { ConfigError, type SettingsSource } from '../config-readers.ts';

/** The logo's bytes at most: inlined in every page, it counts in the page's 25 KB (Brotli) budget. */
export const LOGO_MAX_BYTES = 8 * 1024;
const NAME_MAX = 80;

export interface MerchantBrand {
  /** KASSA_MERCHANT_NAME: shown above the link's title, and the logo's text alternative. */
  name: string | null;
  /** KASSA_MERCHANT_LOGO's image as a `data:` URL. */
  logo: string | null;
  /** KASSA_MERCHANT_COLOR, `#rrggbb` (lower case). */
  accent: string | null;
}

/** The image types a logo may be, told by their first bytes (an SVG by its markup). */
const IMAGE_TYPES: ReadonlyArray<{ type: string; is: (bytes: Buffer) => boolean }> = [
  { type: 'image/png', is: (bytes) => bytes.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex')) },
  { type: 'image/jpeg', is: (bytes) => bytes.subarray(0, 3).equals(Buffer.from('ffd8ff', 'hex')) },
  { type: 'image/gif', is: (bytes) => /^GIF8[79]a/.test(bytes.subarray(0, 6).toString('latin1')) },
  {
    type: 'image/webp',
    is: (bytes) =>
      bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP',
  },
  {
    type: 'image/svg+xml',
    is: (bytes) =>
      /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE[^>]*>\s*)?<svg[\s>]/i.test(bytes.toString('utf8')),
  },
];

/** `#1f4fd1` (or `#14d`) as `#rrggbb`; anything else is refused. */
export function parseAccent(value: string): string {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value.trim())?.[1];
  if (!hex)
    throw new ConfigError(
      'KASSA_MERCHANT_COLOR',
      `must be a colour as #rrggbb or #rgb (such as #1f4fd1), not "${value}"`,
    );
  const full = hex.length === 3 ? [...hex].map((digit) => digit + digit).join('') : hex;
  return `#${full.toLowerCase()}`;
}

/** The logo file as a `data:` URL: a PNG, JPEG, GIF, WebP or SVG image of at most LOGO_MAX_BYTES. */
export function readLogo(path: string): string {
  const fail = (problem: string) => new ConfigError('KASSA_MERCHANT_LOGO', problem);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path))
    throw fail(
      'must be the path of an image file the proxy reads, not a URL: the page shows it from itself, so customers’ browsers fetch nothing from another host',
    );
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new Error('not a file');
    size = stat.size;
  } catch (error) {
    throw fail(`cannot read ${path}: ${(error as Error).message}`);
  }
  if (size > LOGO_MAX_BYTES)
    throw fail(`${path} is ${size} bytes; a logo is at most ${LOGO_MAX_BYTES} bytes (it is part of every link page)`);
  const bytes = readFileSync(path);
  const type = IMAGE_TYPES.find((candidate) => candidate.is(bytes))?.type;
  if (!type) throw fail(`${path} is not a PNG, JPEG, GIF, WebP or SVG image`);
  return `data:${type};base64,${bytes.toString('base64')}`;
}

/** The merchant's look on link pages; every part absent by default (the page as Kassa draws it). */
export function parseMerchantBrand(source: SettingsSource): MerchantBrand {
  const name = source.KASSA_MERCHANT_NAME?.trim() || null;
  if (name !== null && (name.length > NAME_MAX || /\p{Cc}/u.test(name)))
    throw new ConfigError('KASSA_MERCHANT_NAME', `must be at most ${NAME_MAX} characters, without control characters`);
  const logoPath = source.KASSA_MERCHANT_LOGO?.trim();
  if (logoPath && !name)
    throw new ConfigError(
      'KASSA_MERCHANT_LOGO',
      'needs KASSA_MERCHANT_NAME: the name is what the page says for the logo to those who cannot see it',
    );
  const accent = source.KASSA_MERCHANT_COLOR?.trim();
  return { name, logo: logoPath ? readLogo(logoPath) : null, accent: accent ? parseAccent(accent) : null };
}
