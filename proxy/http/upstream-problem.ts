import { HttpProblem } from './http-problem.ts';
import { UpstreamError } from '../upstream/upstream-error.ts';

/**
 * How an upstream failure is told to the caller. Customers get plain words and never learn why
 * Kassa's credentials were refused (that is for the operator's health page and logs); operators and
 * the wallet panel see the service's own refusal text, which is what they need to fix their input.
 */
export function upstreamProblem(error: unknown, audience: 'customer' | 'client'): unknown {
  if (!(error instanceof UpstreamError)) return error;
  const retryAfter = Math.max(1, Math.ceil((error.details.retryAfterMs ?? 5_000) / 1000));
  switch (error.failure) {
    case 'rate_limited':
      return new HttpProblem(429, `Too many requests right now; try again in ${retryAfter} s`, {
        'Retry-After': String(retryAfter),
      });
    case 'credentials':
      return audience === 'customer'
        ? new HttpProblem(503, 'Payments are unavailable right now. Please try again later.', { 'Retry-After': '60' })
        : new HttpProblem(502, `${error.message}; the operator should check the proxy's health`);
    case 'unavailable':
      return new HttpProblem(
        502,
        audience === 'customer' ? 'The bank payment service is not answering. Please try again.' : error.message,
        { 'Retry-After': '5' },
      );
    case 'rejected':
      return audience === 'customer'
        ? new HttpProblem(502, `The payment service refused this payment: ${error.message}`)
        : new HttpProblem(400, error.message);
  }
}
