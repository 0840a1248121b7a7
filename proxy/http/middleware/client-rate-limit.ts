import { createMiddleware } from 'hono/factory';
import { clientAddress } from '../../../server-kit/client-address.ts';
import { SlidingWindowLimiter } from '../../../server-kit/sliding-window.ts';
import { HttpProblem } from '../http-problem.ts';

export interface ClientRateLimitOptions {
  /** Requests per client address per window; 0 turns the limit off. */
  limit: number;
  /** The window's length; a minute unless given. */
  windowMs?: number;
  /** Separates budgets of different route groups. */
  name: string;
  /** Believe X-Forwarded-For (a proxy in front sets it). */
  trustProxy?: boolean;
  /** A limiter shared with another way in to the same routes (the status-read lane), so both count alike. */
  limiter?: SlidingWindowLimiter;
}

const defaults = { windowMs: 60_000, trustProxy: false };

/**
 * A per-client sliding-window limit for public routes, so one client cannot spend the upstream budget
 * every customer shares. Answers 429 with Retry-After.
 */
export const clientRateLimit = (options: ClientRateLimitOptions) => {
  const settings = { ...defaults, ...options };
  const limiter = settings.limiter ?? new SlidingWindowLimiter(settings.limit, settings.windowMs);
  return createMiddleware(async function clientRateLimit(c, next) {
    if (settings.limit <= 0 || c.req.method === 'OPTIONS') return next();
    const decision = limiter.take(clientAddress(c, settings.trustProxy));
    if (!decision.allowed) {
      const seconds = decision.retryAfterSeconds;
      throw new HttpProblem(429, `Too many requests; try again in ${seconds} s`, { 'Retry-After': String(seconds) });
    }
    await next();
  });
};
