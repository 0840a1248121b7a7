import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

/**
 * The client's address for per-client limits. X-Forwarded-For is believed only when the operator
 * says a proxy in front sets it; otherwise anyone could pick their own address.
 */
export function clientAddress(c: Context, trustProxy = false): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
