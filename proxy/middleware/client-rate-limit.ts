import { createMiddleware } from 'hono/factory';
import { clientAddress } from './client-address.ts';

export interface ClientRateLimitOptions {
  /** Requests per client address per window; 0 turns the limit off. */
  limit: number;
  windowMs?: number;
  /** Separates budgets of different route groups. */
  name: string;
  trustProxy?: boolean;
}

/**
 * A per-client sliding-window limit for public routes, so one client cannot spend the upstream budget
 * every customer shares. Answers 429 with Retry-After.
 */
export const clientRateLimit = (options: ClientRateLimitOptions) => {
  const windowMs = options.windowMs ?? 60_000;
  const hits = new Map<string, number[]>();
  let lastPrune = Date.now();
  return createMiddleware(async function clientRateLimit(c, next) {
    if (options.limit <= 0 || c.req.method === 'OPTIONS') return next();
    const now = Date.now();
    if (now - lastPrune > windowMs) {
      for (const [key, times] of hits) if ((times.at(-1) ?? 0) <= now - windowMs) hits.delete(key);
      lastPrune = now;
    }
    const key = clientAddress(c, options.trustProxy ?? false);
    const recent = (hits.get(key) ?? []).filter((at) => at > now - windowMs);
    if (recent.length >= options.limit) {
      hits.set(key, recent);
      const retryAfter = Math.max(1, Math.ceil((recent[0]! + windowMs - now) / 1000));
      c.header('Retry-After', String(retryAfter));
      return c.json({ error: `Too many requests; try again in ${retryAfter} s` }, 429);
    }
    recent.push(now);
    hits.set(key, recent);
    await next();
  });
};
