/** A fresh random key such as an Idempotency-Key: the prefix and 32 hex digits (not crypto.randomUUID: that exists only in secure contexts). */
export const randomKey = (prefix: string): string =>
  `${prefix}_${Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
