/** Sizes as the widget's benchmark measures them: each file gzipped on its own at level 9. */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

export const gzipSize = (data: Uint8Array | string) => gzipSync(data, { level: 9 }).length;

export interface FilesSize {
  files: number;
  raw: number;
  gzip: number;
}

/** The files' sizes summed, each gzipped separately (as a server sends them). */
export function filesSize(paths: readonly string[]): FilesSize {
  let raw = 0;
  let gzip = 0;
  for (const path of paths) {
    const data = readFileSync(path);
    raw += data.length;
    gzip += gzipSize(data);
  }
  return { files: paths.length, raw, gzip };
}
