import { createPaymentExample, webhookSecretExample } from '../../../proxy/http/openapi/examples.ts';
import { ONRAMP_ENV } from '../onramp.ts';
import { SHOP_ORIGIN } from '../stack.ts';

/** The events' signing secret docs/events.md gives as its example. */
export const EVENTS_SECRET = 'whsec_a2Fzc2EtZXhhbXBsZS1zZWNyZXQtZG8tbm90LXVzZSE=';

/** A proxy with every part on, so that each operation of its document can be called. */
export const OPENAPI_STACK_ENV = {
  KASSA_API_DOCS: '1',
  KASSA_EVENTS_URL: 'http://127.0.0.1:9/events',
  KASSA_EVENTS_SECRET: EVENTS_SECRET,
  ...ONRAMP_ENV,
  KASSA_COUNTER: '0.50..1000 EUR',
  // The payment service's webhook and the return page, as the document's examples name them.
  KASSA_WEBHOOK_SECRET: webhookSecretExample,
  KASSA_RETURN_URLS: `${SHOP_ORIGIN}/return,${new URL(createPaymentExample.returnUrl!).origin}/thanks`,
};
