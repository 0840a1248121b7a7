import { MIN_READ_INTERVAL_MS } from '../../proxy/payments/payment-refresher.ts';
import { http } from './http.ts';

/**
 * `count` webhooks naming one payment, each a distinct delivery (so none is dropped as a repeat), sent
 * `concurrency` at a time and spread over `urls` (the webhook URLs of a fleet's instances), as anyone
 * who learnt the URL could send them. Resolves with the statuses the proxy answered.
 */
export async function webhookStorm(
  urls: string[],
  transactionId: string,
  count: number,
  concurrency = 50,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let start = 0; start < count; start += concurrency) {
    const batch = Array.from({ length: Math.min(concurrency, count - start) }, (_, offset) => start + offset);
    statuses.push(
      ...(await Promise.all(
        batch.map(
          async (i) =>
            (
              await http(urls[i % urls.length]!, {
                body: {
                  event: 'payment.status_updated',
                  transactionId,
                  networkPaymentId: `storm-${i}`,
                  status: 'COMPLETED',
                  amount: 42.5,
                  currencyCode: 'EUR',
                  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString(),
                },
              })
            ).status,
        ),
      )),
    );
  }
  return statuses;
}

/**
 * The most upstream reads of one payment the read gate lets through in `windowMs`: one, then one more
 * each time the gate opens again. Counted over the time the machine actually took, so that a slower
 * one (a longer storm) is allowed what the gate allows it, and no more.
 */
export const readsAllowedWithin = (windowMs: number) => 1 + Math.floor(windowMs / MIN_READ_INTERVAL_MS);
