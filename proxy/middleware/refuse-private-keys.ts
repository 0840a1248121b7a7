import { createMiddleware } from 'hono/factory';
import { HttpProblem } from '../http-problem.ts';

export interface RefusePrivateKeysOptions {
  /**
   * Also refuse values shaped like key material (64 hex digits, a 12–24 word phrase), where no
   * legitimate field of the route has that shape (the bridge routes).
   */
  scanValues?: boolean;
}

const KEY_NAMES = /private.?key|secret.?key|mnemonic|seed.?phrase|^seed$|^walletdata$|^signer$|^keystore$/i;
const HEX_KEY = /^(0x)?[0-9a-fA-F]{64}$/;
const PHRASE = /^([a-z]+\s+){11,23}[a-z]+$/;

/** The first place in a JSON value that carries, or looks like, a private key. */
export function findKeyMaterial(value: unknown, scanValues: boolean): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length) {
    const [current, path] = stack.pop()!;
    if (typeof current === 'string') {
      if (scanValues && (HEX_KEY.test(current.trim()) || PHRASE.test(current.trim()))) return path || '(body)';
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => stack.push([item, `${path}[${index}]`]));
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        const here = path ? `${path}.${key}` : key;
        if (KEY_NAMES.test(key)) return here;
        stack.push([item, here]);
      }
    }
  }
  return undefined;
}

/**
 * Kassa never takes a private key (keys stay on the user's device): a JSON body that carries one anywhere is refused
 * before any handler sees it, and the key itself is neither logged nor echoed.
 */
export const refusePrivateKeys = (options: RefusePrivateKeysOptions = {}) =>
  createMiddleware(async function refusePrivateKeys(c, next) {
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'OPTIONS') return next();
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return next();
    }
    const where = findKeyMaterial(body, options.scanValues ?? false);
    if (where) {
      throw new HttpProblem(
        400,
        `Private keys must never be sent to Kassa: sign in your own wallet instead (found at ${where.slice(0, 100)})`,
      );
    }
    await next();
  });
