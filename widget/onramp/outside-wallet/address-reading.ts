/**
 * What a customer pastes when their wallet is not in this browser: the address the stablecoins go
 * to, and the signature their wallet app made of the ownership message. Both are read strictly and
 * nothing is guessed; what looks like a private key or a recovery phrase is refused here, never sent.
 */

/** `0x` and 40 hex digits. Its checksum, if mixed case, is the proxy's to check (this chunk has no keccak). */
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** A recovery phrase's shape: 12 to 24 words of letters. */
const PHRASE = /^([a-z]+\s+){11,23}[a-z]+$/i;
/** EIP-2098's compact signature is 64 bytes, the usual one 65; a contract wallet's (EIP-1271) may be longer. */
const MIN_SIGNATURE_HEX = 128;
const MAX_SIGNATURE_HEX = 16_384;

/**
 * The address in what was pasted, or undefined: an `0x` address, also as wallets share it
 * (`ethereum:0x…`, EIP-681, with `@chain` or a query after it). The zero address is nobody's.
 */
export function readAddress(text: string): string | undefined {
  const address = text
    .trim()
    .replace(/^ethereum:/i, '')
    .replace(/[@?/].*$/, '');
  return ADDRESS.test(address) && !/^0x0{40}$/.test(address) ? address : undefined;
}

export type SignatureReading =
  { ok: true; signature: string } | { ok: false; problem: 'empty' | 'invalid' | 'key' | 'phrase' };

/**
 * A signature as wallet apps show it: hex, with or without `0x`, maybe broken over lines. 32 bytes of
 * hex is a private key's shape and a row of words a recovery phrase's: both are refused, so a
 * customer who pastes the wrong thing is told before anything leaves the page.
 */
export function readSignature(text: string): SignatureReading {
  const trimmed = text.trim();
  if (!trimmed) return { ok: false, problem: 'empty' };
  if (PHRASE.test(trimmed)) return { ok: false, problem: 'phrase' };
  const hex = trimmed.replace(/\s+/g, '').replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length % 2) return { ok: false, problem: 'invalid' };
  if (hex.length === 64) return { ok: false, problem: 'key' };
  if (hex.length < MIN_SIGNATURE_HEX || hex.length > MAX_SIGNATURE_HEX) return { ok: false, problem: 'invalid' };
  return { ok: true, signature: `0x${hex.toLowerCase()}` };
}
