import { Mnemonic } from 'ethers';

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
 * The first place in a JSON value that carries, or looks like, key material (see docs/proxy.md,
 * "Private keys"): a key-named field anywhere; a recovery phrase in any value; 64 hex digits in a
 * free-text field, or in any value where `scanValues` is set. Iterative, so no nesting exhausts it.
 * Requests that carry any are refused (http/middleware/refuse-private-keys.ts, whose options say when
 * each check applies); a webhook that does is answered but not kept (payments/webhook-intake.ts).
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
