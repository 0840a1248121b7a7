/** The on-ramp's examples in the OpenAPI document: one purchase, seen at each step. */
import type {
  CreatedPurchase,
  CreatePurchaseRequest,
  OnrampConfig,
  OperatorPurchase,
  PurchaseDetail,
  PurchaseList,
  PurchaseView,
  Quote,
  QuoteRequest,
} from '../../schemas/onramp.ts';
import type { KassaEventOf } from '../../schemas/events.ts';

const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

export const onrampConfigExample: OnrampConfig = {
  environment: 'sandbox',
  coins: [
    { currencyCode: 'EUR', symbol: 'eEUR' },
    { currencyCode: 'GBP', symbol: 'eGBR' },
  ],
  fee: { percent: '0', fixed: '0.00' },
  min: '1',
  max: '500',
  walletLimit: '1000',
  chains: [
    {
      name: 'Kassa Local Two',
      chainId: 31338,
      rpcUrl: 'https://rpc.chain-two.example',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      blockExplorerUrl: 'https://explorer.chain-two.example',
      tokens: {
        eEUR: {
          address: '0x8464135c8F25Da09e49BC8782676a84730C318bC',
          decimals: 18,
          symbol: 'eEUR',
          name: 'Kassa Sandbox Euro',
        },
      },
    },
  ],
};

export const quoteRequestExample: QuoteRequest = { wallet: WALLET, chainId: 31338, symbol: 'eEUR', amount: '25' };

export const quoteExample: Quote = {
  quoteId: 'quo_Xk2m9QdPz4Lw7aTyB3nV8cEr',
  message: [
    'shop.example wants you to sign in with your Ethereum account:',
    WALLET,
    '',
    'Buy 25 eEUR on Kassa Local Two for 25.00 EUR, delivered to this address.',
    '',
    'URI: https://shop.example',
    'Version: 1',
    'Chain ID: 31338',
    'Nonce: k3Jd9XqPz2LmW8aTyB4nV7cE',
    'Issued At: 2026-11-25T10:00:00.000Z',
    'Expiration Time: 2026-11-25T10:10:00.000Z',
    'Request ID: quo_Xk2m9QdPz4Lw7aTyB3nV8cEr',
  ].join('\n'),
  expiresAt: '2026-11-25T10:10:00.000Z',
  tokens: { amount: '25', symbol: 'eEUR', chainId: 31338 },
  payment: { amount: '25.00', currencyCode: 'EUR', fee: '0.00' },
};

export const createPurchaseExample: CreatePurchaseRequest = {
  quoteId: quoteExample.quoteId,
  signature: `0x${'a1'.repeat(65)}`,
};

export const purchaseExample: PurchaseView = {
  purchaseId: 'pur_8Hq2ZkLm4Tn7Pw3Rx9Vb',
  state: 'delivered',
  symbol: 'eEUR',
  amount: '25',
  chainId: 31338,
  chainName: 'Kassa Local Two',
  wallet: WALLET,
  payment: { amount: '25.00', currencyCode: 'EUR', fee: '0.00', status: 'COMPLETED' },
  checkoutId: 'chk_5qX2mZ8RkPq1Lw0aTyB4nV7cE3dF',
  txHash: '0x4a9ec04c8b8d8b6d7d1c3f25e9a7b9c2d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1',
  blockNumber: 412,
  explorerUrl:
    'https://explorer.chain-two.example/tx/0x4a9ec04c8b8d8b6d7d1c3f25e9a7b9c2d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1',
  createdAt: '2026-11-25T10:00:05.000Z',
  updatedAt: '2026-11-25T10:01:12.000Z',
  deliveredAt: '2026-11-25T10:01:12.000Z',
};

export const createdPurchaseExample: CreatedPurchase = {
  purchase: {
    ...purchaseExample,
    state: 'awaiting_payment',
    payment: { ...purchaseExample.payment, status: null },
    txHash: null,
    blockNumber: null,
    explorerUrl: null,
    updatedAt: purchaseExample.createdAt,
    deliveredAt: null,
  },
  purchaseToken: 'Qm7Fv2yXn4KpZ9wR1tLc8bHs6dGj3eAu5iOqMxNyWzE',
};

export const operatorPurchaseExample: OperatorPurchase = {
  ...purchaseExample,
  transactionId: '7c4f2b9e-3a1d-4e8b-9f6a-2d5c8e1b4a7f',
  order: {
    orderId: '0d23490c-a311-4f40-9747-a9a654adf947',
    customerOrder: 'kassa-onramp-pur_8Hq2ZkLm4Tn7Pw3Rx9Vb-1',
    orderStatus: 'Completed',
    createdAt: '2026-11-25T10:01:10.000Z',
  },
  orderAttempts: 1,
  delayedReason: null,
  paidAt: '2026-11-25T10:01:09.000Z',
};

export const delayedPurchaseExample: OperatorPurchase = {
  ...operatorPurchaseExample,
  state: 'delayed',
  txHash: null,
  blockNumber: null,
  explorerUrl: null,
  deliveredAt: null,
  order: { ...operatorPurchaseExample.order!, orderStatus: 'Failed' },
  delayedReason: 'the issuer ended the mint order Failed',
};

export const purchaseListExample: PurchaseList = { purchases: [operatorPurchaseExample], nextCursor: null };

export const purchaseDetailExample: PurchaseDetail = {
  ...operatorPurchaseExample,
  orderAttempts: 2,
  audit: [
    {
      action: 'retry-mint',
      note: null,
      at: '2026-11-25T10:20:00.000Z',
      previousState: 'delayed',
      state: 'paid',
      requestId: 'req_3f9a2b7c1d',
    },
  ],
};

export const refundExample = { note: 'Returned 25.00 EUR by SEPA on 25 November, reference R-991' };

export const ONRAMP_EVENT_EXAMPLES: {
  [Type in 'onramp.paid' | 'onramp.delivered' | 'onramp.failed']: KassaEventOf<Type>;
} = {
  'onramp.paid': {
    type: 'onramp.paid',
    timestamp: '2026-11-25T10:01:09.000Z',
    sequence: 2,
    data: {
      ...operatorPurchaseExample,
      state: 'paid',
      order: null,
      txHash: null,
      blockNumber: null,
      explorerUrl: null,
      deliveredAt: null,
    },
  },
  'onramp.delivered': {
    type: 'onramp.delivered',
    timestamp: '2026-11-25T10:01:12.000Z',
    sequence: 4,
    data: operatorPurchaseExample,
  },
  'onramp.failed': {
    type: 'onramp.failed',
    timestamp: '2026-11-25T10:30:05.000Z',
    sequence: 2,
    data: {
      ...operatorPurchaseExample,
      state: 'failed',
      payment: { ...operatorPurchaseExample.payment, status: null },
      transactionId: null,
      order: null,
      txHash: null,
      blockNumber: null,
      explorerUrl: null,
      deliveredAt: null,
      paidAt: null,
    },
  },
};
