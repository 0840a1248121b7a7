/**
 * The `{error}` answers many routes share, in the words the document gives them, and the headers
 * that come with them. A route's table picks the ones it really gives (operation.ts).
 */
import type { ApiOperation, HeaderDoc } from './operation.ts';

export const STORE_DOWN = 'Kassa cannot reach its store right now; try again after Retry-After seconds';
export const RATE_LIMITED = 'Too many requests from this client address; try again after Retry-After seconds';
export const FOREIGN_ORIGIN =
  'The request carries an Origin that is not one of the shop’s (KASSA_ALLOWED_ORIGINS): it is refused, not merely left without CORS headers';
export const OPERATOR_ONLY = 'Send Authorization: Bearer <KASSA_OPERATOR_TOKEN>';
export const BAD_BODY =
  'The body is not a JSON object, breaks a rule of the schema (the message names the first problem), nests too deep, or carries a private key';

/** What an operator route that reaches an upstream service may answer for it (error-answers.ts, upstreamProblem). */
export const UPSTREAM_FOR_CLIENTS = {
  400: 'The upstream service refused the request; the message is its own',
  429: 'The upstream service, or Kassa’s budget of requests to it, is spent for now; try again after Retry-After seconds',
  502: 'The upstream service is not answering or refuses Kassa’s credentials (see GET /api/health)',
} as const;

export const BROWSER_ERRORS = { 403: FOREIGN_ORIGIN, 429: RATE_LIMITED, 503: STORE_DOWN } as const;
export const OPERATOR_ERRORS = { 401: OPERATOR_ONLY, 503: STORE_DOWN } as const;

export const RETRY_AFTER: HeaderDoc = {
  description: 'Seconds to wait before trying again',
  schema: { type: 'integer', minimum: 1 },
};

/** Headers that come with every `{error}` answer of a status. */
export const ERROR_HEADERS: Partial<Record<keyof ApiOperation['errors'], Record<string, HeaderDoc>>> = {
  401: {
    'WWW-Authenticate': {
      description: 'The credential the route wants: `Bearer realm="<setting>"`',
      required: true,
      schema: { type: 'string' },
    },
  },
  409: { 'Retry-After': { ...RETRY_AFTER, description: 'Sent when the conflict ends by itself: try again then' } },
  429: { 'Retry-After': { ...RETRY_AFTER, required: true } },
  502: { 'Retry-After': { ...RETRY_AFTER, description: 'Sent when the service is only unreachable' } },
  503: { 'Retry-After': { ...RETRY_AFTER, required: true } },
};
