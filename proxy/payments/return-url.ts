import { STATUS_QUERY_PARAM } from '../../lib/status-token.ts';
import { URL_MAX } from '../../schemas/pay.ts';
import { HttpProblem } from '../http-problem.ts';

/**
 * Where the bank sends the customer back: one of the configured return URLs (the first by default).
 * A requested URL is accepted when its origin and path are those of a configured one; its query may
 * differ (an order number, say). `kassa_status=<statusToken>` is added so that a customer who comes
 * back in another tab can still see the status.
 */
export function returnUrlFor(requested: string | undefined, allowed: readonly string[], statusToken: string): string {
  let url: URL;
  if (requested === undefined) {
    url = new URL(allowed[0]!);
  } else {
    let candidate: URL;
    try {
      candidate = new URL(requested);
    } catch {
      throw new HttpProblem(400, 'returnUrl must be an absolute URL');
    }
    const match = allowed.some((entry) => {
      const configured = new URL(entry);
      return configured.origin === candidate.origin && configured.pathname === candidate.pathname;
    });
    if (!match || candidate.username || candidate.password)
      throw new HttpProblem(400, 'returnUrl is not one of the return URLs this shop allows');
    candidate.hash = '';
    url = candidate;
  }
  url.searchParams.delete(STATUS_QUERY_PARAM);
  url.searchParams.append(STATUS_QUERY_PARAM, statusToken);
  // Checked on the URL as it will be sent: encoding and the status parameter make it longer than asked.
  if (url.href.length > URL_MAX)
    throw new HttpProblem(
      400,
      `returnUrl is too long: with the payment's status it would be ${url.href.length} characters, and at most ${URL_MAX} can be sent`,
    );
  return url.href;
}
