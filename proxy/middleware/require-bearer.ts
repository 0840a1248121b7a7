import { createHash, timingSafeEqual } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import { HttpProblem } from '../http-problem.ts';

export interface RequireBearerOptions {
  /** The one token this route accepts. */
  token: string;
  /** Named in WWW-Authenticate and in the error, so a caller knows which credential is meant. */
  realm: string;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** `Authorization: Bearer <token>`, compared in constant time. */
export const requireBearer = (options: RequireBearerOptions) => {
  const expected = digest(options.token);
  return createMiddleware(async function requireBearer(c, next) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('Authorization') ?? '');
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      throw new HttpProblem(401, `Send Authorization: Bearer <${options.realm}>`, {
        'WWW-Authenticate': `Bearer realm="${options.realm}"`,
      });
    }
    await next();
  });
};
