/**
 * Merchant keys on a fleet of three instances sharing Redis: how long after the revocation's answer
 * each instance refuses the key (clients on every instance sending requests back to back), over 20
 * revocations; target: under a second. And what the key lookup costs a checkout read: p50/p95 of
 * `GET /api/checkouts/{id}` with KASSA_MERCHANT_KEY (no store read) and with a key made by an admin.
 */
import { startFleet } from '../test/support/fleet.ts';
import { http } from '../test/support/http.ts';
import { ms, percentile } from './stats.ts';

const REVOCATIONS = 20;
const READS = 500;

export default async function merchantKeysBench(): Promise<void> {
  const fleet = await startFleet({ instances: 3, store: 'redis', logLevel: 'warn' });
  try {
    const body = { amount: '1.00', currencyCode: 'EUR', reference: 'BENCH' };
    const refusedAfter: number[] = [];
    for (let round = 0; round < REVOCATIONS; round++) {
      const made = await fleet.operator(0, '/api/merchant-keys', {
        body: { name: `bench ${round}`, scopes: ['checkouts:read'] },
      });
      const secret = made.body.secret as string;
      const checkoutId = ((await fleet.merchant(0, '/api/checkouts', body)).body as { checkoutId: string }).checkoutId;
      let revokedAt = Infinity;
      const read = (index: number) =>
        http(`${fleet.origin(index)}/api/checkouts/${checkoutId}`, { headers: { Authorization: `Bearer ${secret}` } });
      const clients = [0, 1, 2].map(async (index) => {
        for (;;) {
          const answer = await read(index);
          if (answer.status === 401) return performance.now() - revokedAt;
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      await fleet.operator(1, `/api/merchant-keys/${made.body.key.id as string}`, { method: 'DELETE' });
      revokedAt = performance.now();
      refusedAfter.push(...(await Promise.all(clients)).map((gap) => Math.max(0, gap)));
    }
    console.log(
      `revoked key refused on every instance (3 on Redis, ${REVOCATIONS} revocations): p50 ${ms(percentile(refusedAfter, 50))}, p95 ${ms(percentile(refusedAfter, 95))}, max ${ms(Math.max(...refusedAfter))} after the DELETE's answer (target < 1 s)`,
    );
    const checkoutId = ((await fleet.merchant(0, '/api/checkouts', body)).body as { checkoutId: string }).checkoutId;
    const made = await fleet.operator(0, '/api/merchant-keys', {
      body: { name: 'reader', scopes: ['checkouts:read'] },
    });
    for (const [label, secret] of [
      ['KASSA_MERCHANT_KEY', fleet.config.merchantKey],
      ['a key made by an admin', made.body.secret as string],
    ] as const) {
      const times: number[] = [];
      for (let i = 0; i < READS; i++) {
        const started = performance.now();
        await http(`${fleet.origin(0)}/api/checkouts/${checkoutId}`, {
          headers: { Authorization: `Bearer ${secret}` },
        });
        times.push(performance.now() - started);
      }
      console.log(
        `merchant checkout read with ${label} (Redis): p50 ${ms(percentile(times, 50))}, p95 ${ms(percentile(times, 95))}`,
      );
    }
  } finally {
    await fleet.stop();
  }
}
