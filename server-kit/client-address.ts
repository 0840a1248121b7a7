import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

/**
 * The client's address for per-client limits. X-Forwarded-For is believed only when the operator
 * says a proxy in front sets it; otherwise anyone could pick their own address.
 */
export function clientAddress(c: Context, trustProxy = false): string {
  return addressOf(trustProxy ? c.req.header('x-forwarded-for') : undefined, () => getConnInfo(c).remote.address);
}

/** The same rule on a plain request: the first X-Forwarded-For entry when believed, else the peer. */
export function addressOf(forwardedFor: string | undefined, peer: () => string | undefined): string {
  const forwarded = forwardedFor?.split(',')[0]?.trim();
  if (forwarded) return forwarded;
  try {
    return peer() ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
