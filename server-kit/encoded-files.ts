/**
 * Static text files (scripts, stylesheets) served compressed: each kept in memory in every coding,
 * Brotli and gzip at their best, with an ETag per coding, so that a request costs a lookup and a
 * write, never a compression. The build writes `<file>.br` and `<file>.gz` beside each script
 * (vite.config.ts); what it did not (or what no longer decodes to the file) is compressed here, once
 * per version of the file.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants, gunzip, gzip } from 'node:zlib';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { chooseEncoding } from './accept-encoding.ts';

/** The codings a file is kept in, in the server's order of preference. */
export const CODINGS = ['br', 'gzip', 'identity'] as const;
export type Coding = (typeof CODINGS)[number];

/** Where the build puts each compressed coding of `<file>`: `<file>.br`, `<file>.gz`. */
export const CODING_SUFFIX = { br: '.br', gzip: '.gz' } as const;

export interface Encoded {
  body: Uint8Array;
  /** Strong: the identity ETag, with `-br` or `-gz` for a compressed coding (other bytes, other tag). */
  etag: string;
}
export type EncodedFile = Record<Coding, Encoded>;

/**
 * Brotli's quality: files kept in memory are compressed once, at the best; pages made for each request
 * at 5, which costs about a fortieth of the best's time (0.4 ms against 13 for 12 KB) for some 10 %
 * more bytes, as servers compressing on the fly do.
 */
const BROTLI_QUALITY = { once: constants.BROTLI_MAX_QUALITY, eachRequest: 5 };

const compressors = {
  br: (body: Uint8Array, quality = BROTLI_QUALITY.once) =>
    promisify(brotliCompress)(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: quality,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
  gzip: (body: Uint8Array) => promisify(gzip)(body, { level: constants.Z_BEST_COMPRESSION }),
};
const decompressors = { br: promisify(brotliDecompress), gzip: promisify(gunzip) };

/** A file's bytes in a compressed coding, as good as zlib makes them (what the build writes). */
export const compress = (coding: keyof typeof compressors, body: Uint8Array): Promise<Buffer> =>
  compressors[coding](body);

/** The file in its three codings, each with its strong ETag (from the identity bytes). */
function encodedFile(body: Buffer, br: Buffer, gzip: Buffer): EncodedFile {
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  return {
    identity: { body, etag: `"${hash}"` },
    br: { body: br, etag: `"${hash}-br"` },
    gzip: { body: gzip, etag: `"${hash}-gz"` },
  };
}

/** `body` in every coding, compressed here (a script built in memory, once per process). */
export async function encodeBody(body: Buffer): Promise<EncodedFile> {
  const [br, gzip] = await Promise.all([compress('br', body), compress('gzip', body)]);
  return encodedFile(body, br, gzip);
}

/** The compressed coding the build wrote beside `path`, if it decodes to `body` exactly. */
async function prebuilt(path: string, coding: keyof typeof compressors, body: Buffer): Promise<Buffer | undefined> {
  const stored = await readFile(path + CODING_SUFFIX[coding]).catch(() => undefined);
  if (!stored) return undefined;
  const decoded = await decompressors[coding](stored).catch(() => undefined);
  return decoded?.equals(body) ? stored : undefined;
}

/** Reads a file and its codings: the build's where they match it, compressed here where not. */
export async function loadEncodedFile(path: string): Promise<EncodedFile> {
  const body = await readFile(path);
  const [br, gzip] = await Promise.all(
    (['br', 'gzip'] as const).map(async (coding) => (await prebuilt(path, coding, body)) ?? compress(coding, body)),
  );
  return encodedFile(body, br!, gzip!);
}

/**
 * Files from disk in every coding, each loaded once per version (its modification time): a file
 * replaced on disk (a new build) is picked up by the next request.
 */
export class EncodedFiles {
  private readonly cache = new Map<string, { mtimeMs: number; file: Promise<EncodedFile> }>();

  /** The file at `path` in every coding; undefined if there is no such file. */
  async get(path: string): Promise<EncodedFile | undefined> {
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    let cached = this.cache.get(path);
    if (cached?.mtimeMs !== info.mtimeMs) {
      cached = { mtimeMs: info.mtimeMs, file: loadEncodedFile(path) };
      this.cache.set(path, cached);
      // A file that vanished between stat and read is looked up afresh next time.
      cached.file.catch(() => this.cache.delete(path));
    }
    return cached.file.catch(() => undefined);
  }
}

/** Whether If-None-Match names this ETag (weak comparison, as RFC 9110 has it for this header), or is `*`. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

export interface EncodedResponseOptions {
  /** The Content-Type. */
  type: string;
  cacheControl: string;
}

/**
 * Answers with the coding the request accepts best (Content-Encoding, its own ETag, `Vary:
 * Accept-Encoding`), a 304 when If-None-Match names that coding's ETag, or a 406 when the request
 * refuses every coding on offer, identity included.
 */
export function sendEncoded(c: Context, file: EncodedFile, { type, cacheControl }: EncodedResponseOptions): Response {
  c.header('Vary', 'Accept-Encoding');
  c.header('Cache-Control', cacheControl);
  const coding = chooseEncoding(c.req.header('Accept-Encoding'), CODINGS) as Coding | undefined;
  if (!coding) return c.json({ error: 'Send an Accept-Encoding that allows br, gzip or identity' }, 406);
  const { body, etag } = file[coding];
  c.header('ETag', etag);
  if (noneMatch(c.req.header('If-None-Match'), etag)) return c.body(null, 304);
  c.header('Content-Type', type);
  if (coding !== 'identity') c.header('Content-Encoding', coding);
  return c.body(body as Uint8Array<ArrayBuffer>);
}

/**
 * HTML pages, which are made for each request, compressed in the coding the request accepts best
 * (sent as they are when it accepts none).
 */
export const compressPages = () =>
  createMiddleware(async function compressPages(c, next) {
    await next();
    const { res } = c;
    if (!res.body || !res.headers.get('Content-Type')?.startsWith('text/html') || res.headers.has('Content-Encoding'))
      return;
    res.headers.append('Vary', 'Accept-Encoding');
    const coding = chooseEncoding(c.req.header('Accept-Encoding'), CODINGS);
    if (coding !== 'br' && coding !== 'gzip') return;
    const page = new Uint8Array(await res.arrayBuffer());
    const body = await (coding === 'br' ? compressors.br(page, BROTLI_QUALITY.eachRequest) : compress(coding, page));
    c.res = new Response(body as Uint8Array<ArrayBuffer>, res);
    c.res.headers.delete('Content-Length');
    c.res.headers.set('Content-Encoding', coding);
  });
