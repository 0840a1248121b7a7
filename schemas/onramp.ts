/**
 * The on-ramp's wire formats: a customer pays by bank and receives newly minted stablecoins in their
 * own wallet. The proxy validates with these schemas, its OpenAPI document is generated from them,
 * and `<kassa-onramp>` and the extension import their types (types only: no zod in the browser).
 */
import { z } from 'zod';
import { chainEntrySchema } from './reforge.ts';
import { environmentSchema } from './pay.ts';
import { evmAddressSchema, STABLECOINS } from './orders.ts';
import { pageLimitSchema } from './proxy-api.ts';

/**
 * A purchase's course. `awaiting_payment`: the wallet proved it is the customer's, the checkout waits
 * for the bank; `paid`: the payment is verified COMPLETED; `minting`: the mint order is with the
 * issuer; `delivered`: the mint is on the chain. Off the happy path: `failed` (the payment failed or
 * was never made: nothing is minted), `delayed` (paid, the mint is late or failed: the operator acts;
 * the customer need do nothing), `refunded` (the operator returned the money at the bank).
 */
export const PURCHASE_STATES = [
  'awaiting_payment',
  'paid',
  'minting',
  'delivered',
  'failed',
  'delayed',
  'refunded',
] as const;
export type PurchaseState = (typeof PURCHASE_STATES)[number];
export const FINAL_PURCHASE_STATES: readonly PurchaseState[] = ['delivered', 'failed', 'refunded'];
export const isFinalPurchaseState = (state: string): boolean =>
  (FINAL_PURCHASE_STATES as readonly string[]).includes(state);

/** Whole tokens to receive: a decimal string with at most 2 decimal places (the payment currency's), or a JSON number. */
export const tokenAmountSchema = z
  .union([z.string(), z.number()], { error: 'amount must be a decimal string such as "25" or "12.50"' })
  .transform((value, ctx) => {
    const text = typeof value === 'number' ? String(value) : value.trim();
    if (!/^(?:0|[1-9]\d{0,11})(?:\.\d{1,2})?$/.test(text) || /^0(?:\.0+)?$/.test(text)) {
      ctx.addIssue({
        code: 'custom',
        message: 'amount must be a positive number of tokens with at most 2 decimal places',
      });
      return z.NEVER;
    }
    return text.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
  });

export const onrampCoinSchema = z
  .object({ currencyCode: z.string(), symbol: z.enum(STABLECOINS) })
  .meta({ id: 'OnrampCoin' });
export type OnrampCoin = z.infer<typeof onrampCoinSchema>;

/** `GET /api/onramp/config`: what a customer can buy here, and on which chains. */
export const onrampConfigSchema = z
  .object({
    environment: environmentSchema,
    coins: z.array(onrampCoinSchema),
    /** The merchant's fee, added to the payment: a percentage of the tokens' value and a fixed part. */
    fee: z.object({ percent: z.string(), fixed: z.string() }),
    /** Tokens per purchase. */
    min: z.string(),
    max: z.string(),
    /** Tokens of one coin a wallet may buy in 24 hours; null: no limit. */
    walletLimit: z.string().nullable(),
    /** The chains the issuer mints on, with only the configured coins among their tokens. */
    chains: z.array(chainEntrySchema),
  })
  .meta({ id: 'OnrampConfig' });
export type OnrampConfig = z.infer<typeof onrampConfigSchema>;

const CHAIN_ID_ERROR = 'chainId must be a chain id: a positive JSON integer';

export const quoteRequestSchema = z
  .strictObject({
    wallet: evmAddressSchema('wallet'),
    // A JSON integer, as documented: nothing else is read as one (not "31338", "0x7a6a", [31338] or true).
    chainId: z
      .number({ error: CHAIN_ID_ERROR })
      .int(CHAIN_ID_ERROR)
      .positive(CHAIN_ID_ERROR)
      .max(Number.MAX_SAFE_INTEGER, CHAIN_ID_ERROR),
    symbol: z.enum(STABLECOINS, { error: `symbol must be one of ${STABLECOINS.join(', ')}` }),
    amount: tokenAmountSchema,
  })
  .meta({ id: 'QuoteRequest' });
export type QuoteRequest = z.input<typeof quoteRequestSchema>;

/** What the customer pays: the tokens' value in the coin's currency, plus the merchant's fee. */
export const onrampPriceSchema = z
  .object({ amount: z.string(), currencyCode: z.string(), fee: z.string() })
  .meta({ id: 'OnrampPrice' });

/** `POST /api/onramp/quotes`: the price, and the message the wallet signs to prove it is the customer's. */
export const quoteSchema = z
  .object({
    quoteId: z.string(),
    /** EIP-4361 text for `personal_sign`, exactly as it must be signed. */
    message: z.string(),
    expiresAt: z.string(),
    tokens: z.object({ amount: z.string(), symbol: z.string(), chainId: z.number().int() }),
    payment: onrampPriceSchema,
  })
  .meta({ id: 'Quote' });
export type Quote = z.infer<typeof quoteSchema>;

export const createPurchaseRequestSchema = z
  .strictObject({
    quoteId: z
      .string({ error: 'quoteId is required' })
      .regex(/^quo_[A-Za-z0-9_-]{16,64}$/, 'quoteId is not one Kassa issued'),
    signature: z
      .string({ error: 'signature is required' })
      .regex(/^0x(?:[0-9a-fA-F]{2}){1,4096}$/, 'signature must be hex bytes (0x…)'),
  })
  .meta({ id: 'CreatePurchaseRequest' });
export type CreatePurchaseRequest = z.input<typeof createPurchaseRequestSchema>;

/** What the customer (and anyone holding its purchase token) sees of a purchase. */
export const purchaseSchema = z
  .object({
    purchaseId: z.string(),
    state: z.enum(PURCHASE_STATES),
    symbol: z.string(),
    /** Whole tokens. */
    amount: z.string(),
    chainId: z.number().int(),
    chainName: z.string(),
    wallet: z.string(),
    payment: onrampPriceSchema.extend({
      /** The payment's status once one is started (PENDING, COMPLETED, FAILED). */
      status: z.string().nullable(),
    }),
    checkoutId: z.string(),
    /** The mint on the chain, once delivered. */
    txHash: z.string().nullable(),
    blockNumber: z.number().int().nullable(),
    /** The transaction on the chain's explorer, when the chain has one. */
    explorerUrl: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    deliveredAt: z.string().nullable(),
  })
  .meta({ id: 'Purchase' });
export type PurchaseView = z.infer<typeof purchaseSchema>;

/** `POST /api/onramp/purchases`: the purchase, the capability to read it, and the checkout to pay. */
export const createdPurchaseSchema = z
  .object({ purchase: purchaseSchema, purchaseToken: z.string() })
  .meta({ id: 'CreatedPurchase' });
export type CreatedPurchase = z.infer<typeof createdPurchaseSchema>;

// ---- operator ----

export const purchaseOrderSchema = z
  .object({
    orderId: z.string(),
    customerOrder: z.string(),
    /** The order service's status when last read. */
    orderStatus: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'PurchaseOrder' });

export const purchaseAuditSchema = z
  .object({
    action: z.enum(['retry-mint', 'refund']),
    note: z.string().nullable(),
    at: z.string(),
    previousState: z.enum(PURCHASE_STATES),
    state: z.enum(PURCHASE_STATES),
    requestId: z.string().nullable(),
  })
  .meta({ id: 'PurchaseAudit' });
export type PurchaseAudit = z.infer<typeof purchaseAuditSchema>;

/** The operator's view (also the `data` of on-ramp events): the customer's, with the payment and the mint order. */
export const operatorPurchaseSchema = purchaseSchema
  .extend({
    transactionId: z.string().nullable(),
    order: purchaseOrderSchema.nullable(),
    /** How many mint orders were made (a retry makes another). */
    orderAttempts: z.number().int(),
    /** Why it is delayed, in words. */
    delayedReason: z.string().nullable(),
    paidAt: z.string().nullable(),
  })
  .meta({ id: 'OperatorPurchase' });
export type OperatorPurchase = z.infer<typeof operatorPurchaseSchema>;

export const purchaseDetailSchema = operatorPurchaseSchema
  .extend({ audit: z.array(purchaseAuditSchema) })
  .meta({ id: 'PurchaseDetail' });
export type PurchaseDetail = z.infer<typeof purchaseDetailSchema>;

export const purchaseListQuerySchema = z.object({
  state: z.enum(PURCHASE_STATES, { error: `state must be one of ${PURCHASE_STATES.join(', ')}` }).optional(),
  wallet: evmAddressSchema('wallet').optional(),
  limit: pageLimitSchema,
  cursor: z.string().max(200).optional(),
});
export type PurchaseListQuery = z.input<typeof purchaseListQuerySchema>;

export const purchaseListSchema = z
  .object({ purchases: z.array(operatorPurchaseSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'PurchaseList' });
export type PurchaseList = z.infer<typeof purchaseListSchema>;

export const refundPurchaseRequestSchema = z
  .strictObject({
    note: z
      .string({ error: 'note is required: say how and when the money was returned' })
      .trim()
      .min(3, 'note is required: say how and when the money was returned')
      .max(500, 'note must be at most 500 characters'),
  })
  .meta({ id: 'RefundPurchaseRequest' });
