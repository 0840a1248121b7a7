import { Mnemonic } from 'ethers';
import { createMiddleware } from 'hono/factory';
import { JSON_MAX_DEPTH, nestsDeeperThan } from '../../../server-kit/json-body.ts';
import { HttpProblem } from '../http-problem.ts';

export interface RefusePrivateKeysOptions {
  /**
   * Also refuse any value that is 64 hex digits (with or without 0x), or shaped like a recovery
   * phrase even without its checksum, where no legitimate field of the route has that shape (the
   * bridge routes).
   */
  scanValues?: boolean;
  /**
   * Top-level fields of free text that Kassa passes on or stores (checkout metadata, a customer's
   * name, the return URL): refused if they contain 64 hex digits anywhere, as a key pasted into them
   * would leave the proxy for a third party.
   */
  freeText?: readonly string[];
}

const KEY_NAMES = /private.?key|secret.?key|mnemonic|seed.?phrase|^seed$|^walletdata$|^signer$|^keystore$/i;
const HEX_KEY = /^(0x)?[0-9a-fA-F]{64}$/;
const HEX_KEY_INSIDE = /(?:^|[^0-9a-fA-F])(0x)?[0-9a-fA-F]{64}(?![0-9a-fA-F])/;
const PHRASE_SHAPE = /^([a-z]+\s+){11,23}[a-z]+$/;

/** A BIP-39 recovery phrase, checksum and all: a sentence of ordinary words is not one. */
function isRecoveryPhrase(value: string): boolean {
  const words = value.trim().toLowerCase();
  if (!PHRASE_SHAPE.test(words)) return false;
  try {
    return Mnemonic.isValidMnemonic(words.split(/\s+/).join(' '));
  } catch {
    return false;
  }
}

/**
 * The first place in a JSON value that carries, or looks like, key material (see docs/security.md,
 * "Private keys"): a key-named field anywhere; a recovery phrase in any value; 64 hex digits in a
 * free-text field, or in any value where `scanValues` is set. Iterative, so no nesting exhausts it.
 */
export function findKeyMaterial(
  value: unknown,
  scanValues: boolean,
  freeText: readonly string[] = [],
): string | undefined {
  const stack: Array<[unknown, string, boolean]> = [[value, '', false]];
  while (stack.length) {
    const [current, path, free] = stack.pop()!;
    if (typeof current === 'string') {
      const text = current.trim();
      if (scanValues ? PHRASE_SHAPE.test(text) : isRecoveryPhrase(text)) return path || '(body)';
      if (scanValues && HEX_KEY.test(text)) return path || '(body)';
      if (free && HEX_KEY_INSIDE.test(decodeLoosely(text))) return path || '(body)';
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => stack.push([item, `${path}[${index}]`, free]));
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        const here = path ? `${path}.${key}` : key;
        if (KEY_NAMES.test(key)) return here;
        stack.push([item, here, free || (path === '' && freeText.includes(key))]);
      }
    }
  }
  return undefined;
}

/** A URL's query is percent-encoded: a key in it is looked for as it will be read. */
function decodeLoosely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Kassa never takes a private key (keys stay on the user's device): a JSON body that carries one is
 * refused before any handler sees it, and the key itself is neither logged nor echoed.
 */
export const refusePrivateKeys = (options: RefusePrivateKeysOptions = {}) =>
  createMiddleware(async function refusePrivateKeys(c, next) {
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'OPTIONS') return next();
    const text = await c.req.text();
    let body: unknown;
    try {
      // Too deep a body is refused by the route's own parser, with its own message.
      if (nestsDeeperThan(text, JSON_MAX_DEPTH)) return next();
      body = JSON.parse(text);
    } catch {
      return next();
    }
    const where = findKeyMaterial(body, options.scanValues ?? false, options.freeText);
    if (where) {
      throw new HttpProblem(
        400,
        `Private keys must never be sent to Kassa: sign in your own wallet instead (found at ${where.slice(0, 100)})`,
      );
    }
    await next();
  });
