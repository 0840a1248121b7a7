/**
 * The on-ramp's promise, timed: from the moment the proxy records a purchase's payment COMPLETED (its
 * verified re-read) to the moment the tokens are on the customer's chain (the mint seen in a block by a
 * reader of the chain), over 30 purchases with the issuer's delay at 0. Target: p95 under 500 ms.
 */
import { Wallet } from 'ethers';
import { chainProviders, token } from '../test/support/chains.ts';
import { ONRAMP_ENV, onrampCustomer } from '../test/support/onramp.ts';
import { startStack } from '../test/support/stack.ts';
import { ms, percentile } from './stats.ts';

const PURCHASES = 30;
const TARGET_P95_MS = 500;

export default async function benchOnramp(): Promise<void> {
  const stack = await startStack({ env: ONRAMP_ENV, sandbox: { mintDelayMs: 0 } });
  const providers = chainProviders(stack.sandbox.chains);
  const eEUR = token(stack.sandbox.chains[1]!, 'eEUR', providers.get(31338));
  const completedAt = new Map<string, number>();
  const unsubscribe = stack.proxy.services.coordination.bus.subscribeAll((view) => {
    if (view.status === 'COMPLETED' && view.checkoutId && !completedAt.has(view.checkoutId))
      completedAt.set(view.checkoutId, performance.now());
  });
  const latencies: number[] = [];
  try {
    for (let i = 0; i < PURCHASES; i++) {
      const wallet = Wallet.createRandom();
      const customer = onrampCustomer(stack, wallet);
      const created = await customer.purchase({ amount: '10' });
      if (created.status !== 201) throw new Error(`purchase: ${created.status} ${created.text}`);
      const checkoutId = created.body.purchase.checkoutId as string;
      const paid = await stack.pay(checkoutId);
      await stack.control(`/payments/${paid.body.transactionId as string}/outcome`, { status: 'COMPLETED' });
      // The tokens are there once a reader of the chain sees the balance (polled every 5 ms).
      for (;;) {
        if (((await eEUR.balanceOf!(wallet.address)) as bigint) > 0n) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const seen = performance.now();
      const completed = completedAt.get(checkoutId);
      if (completed === undefined) throw new Error('the proxy never published the payment COMPLETED');
      latencies.push(seen - completed);
    }
  } finally {
    unsubscribe();
    providers.destroy();
    await stack.stop();
  }
  const p95 = percentile(latencies, 95);
  console.log(
    `on-ramp, payment COMPLETED at the proxy → tokens on the chain (${PURCHASES} purchases, issuer delay 0): ` +
      `p50 ${ms(percentile(latencies, 50))}, p95 ${ms(p95)}, max ${ms(Math.max(...latencies))} ` +
      `(target p95 < ${TARGET_P95_MS} ms)${p95 > TARGET_P95_MS ? '  OVER TARGET' : ''}`,
  );
}
