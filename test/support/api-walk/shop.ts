import assert from 'node:assert/strict';
import { http, type Json } from '../http.ts';
import { openSse } from '../sse-client.ts';
import type { Walk } from './walk.ts';

/** The merchant's server and the shop's browser: checkouts, payments, their status, the bridge and the webhook. */
export async function walkShop({ stack, origin, conformance }: Walk): Promise<{ payment: Json }> {
  const bad = { Origin: 'https://evil.example' };
  const checkoutId = await stack.checkout();
  await stack.merchant('/api/checkouts', { body: { amount: 'x' } });
  await http(`${origin}/api/checkouts`, { body: {} });
  const key = { 'Idempotency-Key': 'openapi-walk-1' };
  await stack.merchant('/api/checkouts', {
    body: { amount: '1', currencyCode: 'EUR', reference: 'A' },
    headers: key,
  });
  await stack.merchant('/api/checkouts', {
    body: { amount: '2', currencyCode: 'EUR', reference: 'A' },
    headers: key,
  });
  await stack.browser(`/api/checkouts/${checkoutId}`);
  await stack.merchant(`/api/checkouts/${checkoutId}`);
  await stack.browser(`/api/checkouts/${checkoutId}`, { headers: { Authorization: 'Bearer wrong' } });
  await stack.browser('/api/checkouts/chk_unknown');
  await stack.browser(`/api/checkouts/${checkoutId}`, { headers: bad });
  await stack.browser('/api/config');
  const payment = (await stack.pay(checkoutId)).body;
  await stack.pay(checkoutId);
  await stack.browser('/api/payments', { body: { checkoutId } });
  await stack.pay('chk_unknown');
  await stack.browser('/api/payments', { body: { amount: '5', currencyCode: 'EUR', reference: 'X' }, headers: key });
  await stack.browser(`/api/payments/status/${payment.statusToken}`);
  await stack.browser(`/api/payments/status/${payment.statusToken}`);
  await stack.browser('/api/payments/status/unknown');
  const handoff = (await stack.browser(`/api/payments/status/${payment.statusToken}/handoff`)).body;
  await stack.browser('/api/payments/status/unknown/handoff');
  await http(`${origin}/p/${handoff.code}`);
  await http(`${origin}/p/not-a-code`);
  await http(`${origin}/p/not-a-code`, { headers: { Accept: 'text/html' } });
  await http(`${origin}/r/${payment.statusToken}`);
  await stack.browser('/api/bridge/chains');
  await stack.browser('/api/bridge/chains?network=moon');
  await stack.browser('/api/bridge/prepare', { body: { sourceAmount: 'x' } });
  const [source, destination] = stack.sandbox.chains;
  await stack.browser('/api/bridge/prepare', {
    body: {
      sourceAmount: '12.5',
      sourceToken: source!.tokens.eUSD.address,
      destinationToken: destination!.tokens.eUSD.address,
      destinationChainId: destination!.chainId,
    },
  });
  const stream = openSse(`${origin}/api/payments/status/${payment.statusToken}/events`);
  await stream.waitForEvents(1);
  stream.close();
  assert.equal(stream.headers['content-type'], 'text/event-stream; charset=utf-8');
  assert.equal(conformance.invalid('PaymentStatus', stream.data()[0]), undefined);
  await http(stack.webhookUrl(), { body: { event: 'payment.status_updated', transactionId: payment.transactionId } });
  await http(`${origin}/hooks/payments/wrong-secret`, { body: {} });
  return { payment };
}
