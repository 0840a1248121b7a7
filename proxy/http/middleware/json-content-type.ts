import { createMiddleware } from 'hono/factory';
import { parseMediaType } from '../../../server-kit/media-type.ts';
import { HttpProblem } from '../http-problem.ts';

export interface JsonContentTypeOptions {
  /** The media types a body may be sent as (`application/json`, as the OpenAPI document says). */
  mediaTypes?: readonly string[];
}

const defaults = { mediaTypes: ['application/json'] };

/**
 * A body must say it is JSON: any other Content-Type, or none, is a 415 naming the type expected, as
 * the OpenAPI document promises. JSON is UTF-8 (RFC 8259), so a charset, when given, must be that.
 * A request without a body passes whatever it says. Refusing a form or `text/plain` also stops a
 * foreign page's simple (unpreflighted) POST before any route reads it.
 */
export const jsonContentType = (options: JsonContentTypeOptions = {}) => {
  const { mediaTypes } = { ...defaults, ...options };
  const expected = mediaTypes.join(' or ');
  return createMiddleware(async function jsonContentType(c, next) {
    const length = c.req.header('content-length');
    const hasBody = length === undefined ? c.req.header('transfer-encoding') !== undefined : Number(length) > 0;
    if (!hasBody) return next();
    const given = c.req.header('content-type');
    const type = given === undefined ? undefined : parseMediaType(given);
    const charset = type?.parameters.charset?.toLowerCase();
    if (type && mediaTypes.includes(type.essence) && (charset === undefined || charset === 'utf-8')) return next();
    throw new HttpProblem(
      415,
      given === undefined
        ? `Send the body as ${expected} (Content-Type is missing)`
        : `Send the body as ${expected}, UTF-8 (Content-Type ${JSON.stringify(given.slice(0, 100))} is not accepted)`,
    );
  });
};
