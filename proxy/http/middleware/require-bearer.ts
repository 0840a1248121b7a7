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

/** Whether an Authorization header carries `Bearer <token>`, compared in constant time. */
export const bearerCheck = (token: string) => {
  const expected = digest(token);
  return (authorization: string | undefined): boolean => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    return !!match && timingSafeEqual(digest(match[1]!), expected);
  };
};

/** `Authorization: Bearer <token>`, compared in constant time. */
export const requireBearer = (options: RequireBearerOptions) => {
  const matches = bearerCheck(options.token);
  return createMiddleware(async function requireBearer(c, next) {
    if (!matches(c.req.header('Authorization'))) {
      throw new HttpProblem(401, `Send Authorization: Bearer <${options.realm}>`, {
        'WWW-Authenticate': `Bearer realm="${options.realm}"`,
      });
    }
    await next();
  });
};
