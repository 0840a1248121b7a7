import { createMiddleware } from 'hono/factory';
import { JSON_MAX_DEPTH, nestsDeeperThan } from '../../../server-kit/json-body.ts';
import { findKeyMaterial } from '../../domain/key-material.ts';
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
