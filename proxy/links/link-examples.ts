/** The links' examples in the OpenAPI document: one link, made, paid once, and its payment. */
import type { LinkList, LinkPaymentView, LinkView, NewLinkRequest } from '../../schemas/links.ts';
import type { CheckoutView } from '../../schemas/proxy-api.ts';

export const newLinkExample: NewLinkRequest = {
  title: 'Piano lesson',
  description: 'One hour, Thursdays at 17:00',
  amount: '45.00',
  currencyCode: 'EUR',
  reference: 'LESSON-{n}',
  maxUses: 10,
  language: 'de',
};

export const linkExample: LinkView = {
  code: 'Ym9va2luZy1saW5rLWNvZGU5',
  kind: 'link',
  url: 'https://pay.shop.example/l/Ym9va2luZy1saW5rLWNvZGU5',
  qr: {
    svg: 'https://pay.shop.example/l/Ym9va2luZy1saW5rLWNvZGU5/qr.svg',
    png: 'https://pay.shop.example/l/Ym9va2luZy1saW5rLWNvZGU5/qr.png',
  },
  title: 'Piano lesson',
  description: 'One hour, Thursdays at 17:00',
  amount: '45.00',
  openAmount: null,
  currencyCode: 'EUR',
  reference: 'LESSON-{n}',
  expiresAt: null,
  maxUses: 10,
  maxTotal: null,
  language: 'de',
  returnUrl: null,
  state: 'active',
  status: 'active',
  createdBy: { kind: 'merchant-key', id: 'environment' },
  createdAt: '2026-11-23T17:00:00.000Z',
  updatedAt: '2026-11-23T17:00:00.000Z',
  payments: { count: 1, total: '45', lastPaidAt: '2026-11-23T18:01:00.000Z' },
  pending: { count: 0, total: '0' },
};

export const linkListExample: LinkList = { links: [linkExample], nextCursor: null };

export const linkCheckoutExample: CheckoutView = {
  checkoutId: 'chk_bGluay1jaGVja291dC1pZC0x',
  amount: '45.00',
  currencyCode: 'EUR',
  reference: 'LESSON-1',
  expiresAt: '2026-11-23T18:30:00.000Z',
  state: 'open',
  environment: 'sandbox',
};

export const linkPaymentExample: LinkPaymentView = {
  checkoutId: linkCheckoutExample.checkoutId,
  number: 1,
  reference: 'LESSON-1',
  amount: '45.00',
  currencyCode: 'EUR',
  state: 'paid',
  createdAt: '2026-11-23T18:00:00.000Z',
  settledAt: '2026-11-23T18:01:00.000Z',
  transactionId: 'txn_4b1f0c8e',
};
