/**
 * The example bodies of the OpenAPI document. Typed by the schemas' own types, so the compiler keeps
 * them in shape, and checked against the generated schemas by the linter (no-invalid-media-type-examples).
 * The checkout and payment are the ones docs/events.md signs with its example secret.
 */
import type { EventDetail, EventList, EventSummary, KassaEventOf, KassaEventType } from '../../../schemas/events.ts';
import type { CreateOrderRequest, CreateOrderResponse, Order, UpdateOrderResponse } from '../../../schemas/orders.ts';
import type {
  BridgePrepareRequest,
  CheckoutView,
  CreateCheckoutRequest,
  CreatedPayment,
  CreatePaymentRequest,
  Handoff,
  Health,
  MerchantCheckout,
  OperatorPayment,
  PaymentList,
  PaymentStatusView,
  PublicConfig,
  UnverifiablePayment,
} from '../../../schemas/proxy-api.ts';
import type { ChainEntry } from '../../../schemas/reforge.ts';
import type { EventEndpointView } from '../../../schemas/event-endpoint.ts';
import { eventEndpoint } from '../../events/event-endpoint.ts';
import { linkCheckoutExample, linkExample } from '../../links/link-examples.ts';
import { ONRAMP_EVENT_EXAMPLES } from '../../onramp/onramp-examples.ts';

/** An example KASSA_WEBHOOK_SECRET (the path token of the payment service's webhook). */
export const webhookSecretExample = 'hK3v9QmZx2Lr7TgWb4NsYc8PdJf6Ea1U';

export const createCheckoutExample: CreateCheckoutRequest = {
  amount: '42.50',
  currencyCode: 'EUR',
  reference: 'ORDER-1042',
  metadata: { orderId: 1042 },
};

export const checkoutExample: CheckoutView = {
  checkoutId: 'chk_Q2hlY2tvdXQgaWRzIGFyZSByYW5k',
  amount: '42.50',
  currencyCode: 'EUR',
  reference: 'ORDER-1042',
  expiresAt: '2026-11-24T18:00:00.000Z',
  state: 'open',
  environment: 'sandbox',
};

export const merchantCheckoutExample: MerchantCheckout = {
  ...checkoutExample,
  metadata: { orderId: 1042 },
  createdAt: '2026-11-23T18:00:00.000Z',
  transactionId: null,
  paidAt: null,
};

export const paidCheckoutExample: MerchantCheckout = {
  ...merchantCheckoutExample,
  state: 'paid',
  transactionId: 'txn_4b1f0c8e',
  paidAt: '2026-11-23T18:01:00.000Z',
};

export const createPaymentExample: CreatePaymentRequest = {
  checkoutId: checkoutExample.checkoutId,
  returnUrl: 'https://shop.example/thanks?order=1042',
};

export const createdPaymentExample: CreatedPayment = {
  transactionId: 'txn_4b1f0c8e',
  flowUrl: 'https://bank-flow.example/pay/txn_4b1f0c8e',
  status: 'PENDING',
  statusToken: 'ldMyZgTGq2L1IB_zBsJdhkRlAP63KtBrZmFoeBAwZ1E',
  environment: 'sandbox',
};

export const paymentStatusExample: PaymentStatusView = {
  transactionId: 'txn_4b1f0c8e',
  status: 'COMPLETED',
  networkStatus: 'PAYMENT_EXECUTED_CREDITED',
  amount: '42.50',
  currencyCode: 'EUR',
  reference: 'ORDER-1042',
  environment: 'sandbox',
  checkoutId: checkoutExample.checkoutId,
  retryable: false,
  initiatedAt: '2026-11-23T18:00:30.000Z',
  updatedAt: '2026-11-23T18:01:00.000Z',
  completedAt: '2026-11-23T18:01:00.000Z',
  providerId: 'bank_xyz',
  bankName: 'XYZ Bank',
  networkPaymentId: 'NP050366817E0E0A3EA0B6',
  endToEndId: 'E2ECC91965A8BB3D83B32D7047B',
};

export const operatorPaymentExample: OperatorPayment = {
  ...paymentStatusExample,
  paymentRail: 'SepaCreditTransfer',
  lastCheckedAt: '2026-11-23T18:01:00.500Z',
};

export const paymentListExample: PaymentList = { payments: [operatorPaymentExample], nextCursor: null };

const pendingPayment: OperatorPayment = {
  ...operatorPaymentExample,
  status: 'PENDING',
  networkStatus: null,
  completedAt: null,
  updatedAt: operatorPaymentExample.initiatedAt,
};

export const unverifiableListExample: { payments: UnverifiablePayment[] } = {
  payments: [
    {
      payment: pendingPayment,
      reason: 'The payment service refuses to show this payment to the current credentials',
      since: '2026-11-23T19:00:00.000Z',
      lastWebhook: {
        receivedAt: '2026-11-23T18:01:00.000Z',
        event: { event: 'payment.status_updated', transactionId: 'txn_4b1f0c8e', status: 'COMPLETED' },
      },
    },
  ],
};

export const resolveExample = { status: 'COMPLETED', note: 'Credited on the statement of 24 November, line 17' };

export const resolvedExample = {
  payment: { ...operatorPaymentExample, updatedAt: '2026-11-25T09:00:00.000Z' },
  resolutions: [{ previousStatus: 'PENDING', ...resolveExample, resolvedAt: '2026-11-25T09:00:00.000Z' }],
};

export const handoffExample: Handoff = {
  code: 'AEp_k7KygUFZh1Z_JoDlUX08R1SHf2j4kQ',
  expiresAt: '2026-11-23T18:30:30.000Z',
};

export const publicConfigExample: PublicConfig = {
  environment: 'sandbox',
  openAmount: { min: '1', max: '500', currencyCode: 'EUR' },
};

/** Where the example proxy sends events (KASSA_EVENTS_URL), and events go there. */
export const eventEndpointExample: EventEndpointView = {
  ...eventEndpoint('https://shop.example/kassa/events'),
  enabled: true,
  disabledAt: null,
  disabledReason: null,
};

export const healthExample: Health = {
  status: 'ok',
  version: '0.1.0',
  uptimeSeconds: 86400,
  store: 'ok',
  payments: {
    state: 'ok',
    environment: 'sandbox',
    detail: null,
    freezeReason: null,
    frozenAt: null,
    since: '2026-11-23T00:00:00.000Z',
  },
  orders: { state: 'ok', detail: null },
  reforge: { state: 'unknown', detail: null },
  events: { endpoints: [eventEndpointExample] },
  budgets: { tokenRequests: { used: 1, limit: 10 }, paymentRequests: { used: 12, limit: 100 } },
};

export const chainsExample: ChainEntry[] = [
  {
    name: 'Kassa Local One',
    chainId: 31337,
    rpcUrl: 'https://rpc.chain-one.example',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    blockExplorerUrl: 'https://explorer.chain-one.example',
    tokens: {
      eUSD: {
        address: '0x304cE234c545f67B5EaF487ED38921e18F02420d',
        decimals: 18,
        symbol: 'eUSD',
        name: 'Kassa Sandbox US Dollar',
      },
    },
  },
];

export const bridgePrepareExample: BridgePrepareRequest = {
  sourceAmount: '12.5',
  sourceToken: '0x304cE234c545f67B5EaF487ED38921e18F02420d',
  destinationToken: '0x533fCc0D2d4Cd518267eE62f6260De270DB60356',
  destinationChainId: 31338,
};

export const bridgePreparedExample = { tx: '0x02f8b1827a6980843b9aca00850ba43b7400830186a094' };

export const createOrderExample: CreateOrderRequest = {
  customerName: 'Ada Lovelace',
  chainId: 31337,
  amount: '25',
  mintWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  customerOrder: 'PO-77',
  stableCoin: 'eUSD',
};

export const createdOrderExample: CreateOrderResponse = {
  message: 'Order created successfully',
  orderId: '0d23490c-a311-4f40-9747-a9a654adf947',
};

export const orderExample: Order = {
  orderId: createdOrderExample.orderId,
  customerName: 'Ada Lovelace',
  customerOrder: 'PO-77',
  stableCoin: 'eUSD',
  amount: '25',
  mintWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  chainId: 31337,
  orderDate: 1795456800000,
  orderStatus: 'New',
  lastUpdateTime: 1795456800000,
};

export const updatedOrderExample: UpdateOrderResponse = {
  message: 'Order updated successfully',
  updatedAttributes: { amount: '25', orderStatus: 'Processing', lastUpdateTime: 1795456860000 },
};

export const checkoutPaidEventExample: KassaEventOf<'checkout.paid'> = {
  type: 'checkout.paid',
  timestamp: '2026-11-23T18:01:00.000Z',
  sequence: 2,
  data: paidCheckoutExample,
};

/** What each event type's body looks like, for `webhooks`. */
export const EVENT_EXAMPLES = {
  'checkout.paid': checkoutPaidEventExample,
  'checkout.expired': {
    type: 'checkout.expired',
    timestamp: '2026-11-24T18:00:00.000Z',
    sequence: 1,
    data: { ...merchantCheckoutExample, state: 'expired' },
  },
  'payment.completed': {
    type: 'payment.completed',
    timestamp: '2026-11-23T18:01:00.000Z',
    sequence: 2,
    data: operatorPaymentExample,
  },
  'payment.failed': {
    type: 'payment.failed',
    timestamp: '2026-11-23T18:01:00.000Z',
    sequence: 2,
    data: {
      ...operatorPaymentExample,
      status: 'FAILED',
      networkStatus: 'CANCELLED',
      completedAt: null,
      retryable: true,
    },
  },
  ...ONRAMP_EVENT_EXAMPLES,
  'link.paid': {
    type: 'link.paid',
    timestamp: '2026-11-23T18:01:00.000Z',
    sequence: 1,
    data: {
      link: linkExample,
      payment: {
        ...operatorPaymentExample,
        checkoutId: linkCheckoutExample.checkoutId,
        reference: 'LESSON-1',
        amount: '45.00',
      },
    },
  },
} satisfies { [Type in KassaEventType]: KassaEventOf<Type> };

export const eventSummaryExample: EventSummary = {
  id: 'evt_mM1y2nVYPq4DqX1dZ5t3Cg',
  type: 'checkout.paid',
  status: 'delivered',
  sequence: 2,
  transactionId: 'txn_4b1f0c8e',
  checkoutId: checkoutExample.checkoutId,
  createdAt: '2026-11-23T18:01:00.000Z',
  attempts: 1,
  nextAttemptAt: null,
  deliveredAt: '2026-11-23T18:01:00.120Z',
  lastError: null,
};

export const eventListExample: EventList = {
  events: [eventSummaryExample],
  nextCursor: null,
  endpoint: eventEndpointExample.url,
  endpoints: [eventEndpointExample],
};

export const eventDetailExample: EventDetail = {
  ...eventSummaryExample,
  payload: checkoutPaidEventExample,
  attemptLog: [{ at: '2026-11-23T18:01:00.100Z', durationMs: 20.4, statusCode: 200, error: null }],
};
