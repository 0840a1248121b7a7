import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import { onrampCustomer } from '../onramp.ts';
import { openSse } from '../sse-client.ts';
import { eventually, SHOP_ORIGIN } from '../stack.ts';
import type { Walk } from './walk.ts';

/**
 * The on-ramp: a customer's purchase from quote to stream, and the operator's two actions on
 * purchases whose order the issuer (here, by hand) cancelled.
 */
export async function walkOnramp({ stack, origin, conformance }: Walk): Promise<void> {
  const wallet = Wallet.createRandom();
  const customer = onrampCustomer(stack, wallet);
  await stack.browser('/api/onramp/config');
  await customer.quote({ amount: '0' });
  await customer.quote({ amount: '501' });
  await stack.browser('/api/onramp/purchases', { body: { quoteId: 'quo_unknownquoteunknown', signature: '0x00' } });
  await customer.purchase({}, Wallet.createRandom());
  const delayed: string[] = [];
  for (const amount of ['3', '4']) {
    const { purchaseToken, purchaseId } = await customer.buyAndPay({ amount });
    const { order } = await eventually(async () => {
      const detail = (await stack.operator(`/api/onramp/purchases/${purchaseId}`)).body;
      return detail.order ? detail : undefined;
    });
    await stack.approved(
      stack.operator(`/api/orders/${order.orderId}`, { method: 'PUT', body: { orderStatus: 'Cancelled' } }),
    );
    await customer.until(purchaseToken, 'delayed');
    const purchaseStream = openSse(`${origin}/api/onramp/status/${purchaseToken}/events`, { Origin: SHOP_ORIGIN });
    await purchaseStream.waitForEvents(1);
    purchaseStream.close();
    assert.equal(conformance.invalid('Purchase', purchaseStream.data()[0]), undefined);
    delayed.push(purchaseId);
  }
  await stack.browser('/api/onramp/status/unknown');
  await stack.operator('/api/onramp/purchases?state=delayed');
  await stack.operator('/api/onramp/purchases?state=lost');
  await stack.operator('/api/onramp/purchases/pur_00000000000000000000');
  await stack.approved(stack.operator(`/api/onramp/purchases/${delayed[0]!}/retry-mint`, { body: {} }));
  await stack.operator(`/api/onramp/purchases/${delayed[1]!}/refund`, { body: {} });
  await stack.approved(
    stack.operator(`/api/onramp/purchases/${delayed[1]!}/refund`, { body: { note: 'Returned by SEPA' } }),
  );
}
