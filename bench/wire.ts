/**
 * Bytes on the wire: what a browser downloads for a script the proxy serves, asked the way browsers
 * ask (Brotli), the way older clients do (gzip), and with no Accept-Encoding, counted as sent.
 */
import { rawGet } from '../test/support/http.ts';

export interface WireBytes {
  br: number;
  gzip: number;
  identity: number;
}

const ASKED = { br: 'br, gzip', gzip: 'gzip', identity: undefined } as const;

export const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;

/** The bytes of `path` on the wire from a running proxy, in each coding (checked to be the one sent). */
export async function wireBytes(origin: string, path: string): Promise<WireBytes> {
  const sizes = {} as WireBytes;
  for (const [coding, accept] of Object.entries(ASKED) as Array<[keyof WireBytes, string | undefined]>) {
    const response = await rawGet(`${origin}${path}`, accept ? { 'Accept-Encoding': accept } : {});
    const sent = response.headers['content-encoding'] ?? 'identity';
    if (response.status !== 200 || sent !== coding)
      throw new Error(`${path}: ${response.status} in ${sent}, asked for ${coding}`);
    sizes[coding] = response.body.length;
  }
  return sizes;
}

/** One script's line: its bytes on the wire in each coding, against its budget (Brotli, what browsers take). */
export function wireLine(name: string, bytes: WireBytes, budget?: number): string {
  const verdict = budget === undefined ? '' : ` (budget ${kb(budget)})${bytes.br > budget ? '  OVER BUDGET' : ''}`;
  return `${name}: ${kb(bytes.br)} Brotli, ${kb(bytes.gzip)} gzip on the wire, ${kb(bytes.identity)} uncompressed${verdict}`;
}
