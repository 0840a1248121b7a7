/**
 * Wire formats of the stablecoin order service (seeds/001_*.txt). Where the seed is silent (required
 * fields, formats, bounds, the status set and its transitions) the choice is in docs/upstream.md.
 */
import { z } from 'zod';
import { getAddress, isAddress } from 'ethers';
import { isDecimal, numberToDecimal, compareDecimals } from '../lib/money.ts';

/** A rejected value as an error message may quote it: short, and readable whatever its type. */
const shownInput = (input: unknown): string =>
  (typeof input === 'string' ? input : String(JSON.stringify(input))).slice(0, 16);

export const STABLECOINS = ['eUSD', 'eEUR', 'eGBR', 'eSGD'] as const;
export type Stablecoin = (typeof STABLECOINS)[number];
export const stablecoinSchema = z.enum(STABLECOINS, {
  error: (iss) =>
    iss.input === undefined
      ? 'stableCoin is required'
      : `Invalid stableCoin: ${shownInput(iss.input)} (expected one of ${STABLECOINS.join(', ')})`,
});

export const ORDER_STATUSES = ['New', 'Processing', 'Completed', 'Failed', 'Cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const orderStatusSchema = (field: string) =>
  z.enum(ORDER_STATUSES, {
    error: (iss) =>
      iss.input === undefined
        ? `${field} is required`
        : `Invalid ${field}: ${shownInput(iss.input)} (expected one of ${ORDER_STATUSES.join(', ')})`,
  });

/** Which status may follow which; a status may always be "set" to itself (a no-op). */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  New: ['Processing', 'Cancelled'],
  Processing: ['Completed', 'Failed'],
  Completed: [],
  Failed: [],
  Cancelled: [],
};
export const canMoveOrder = (from: OrderStatus, to: OrderStatus): boolean =>
  from === to || ORDER_TRANSITIONS[from].includes(to);

export const ORDER_AMOUNT_LIMITS = { max: '1000000000', fractionDigits: 18 } as const;
export const CUSTOMER_NAME_MAX = 100;
export const CUSTOMER_ORDER_MAX = 64;

/** Amount of tokens: a positive decimal, sent as a string or a JSON number, kept as a string. */
export const orderAmountSchema = z
  .union([z.string(), z.number()], {
    error: (iss) => (iss.input === undefined ? 'amount is required' : 'amount must be a decimal string or number'),
  })
  .transform((value, ctx) => {
    const text = typeof value === 'number' ? numberToDecimal(value) : value.trim();
    if (text === undefined || !isDecimal(text, ORDER_AMOUNT_LIMITS.fractionDigits) || compareDecimals(text, '0') <= 0) {
      ctx.addIssue({
        code: 'custom',
        message: `amount must be a positive decimal with at most ${ORDER_AMOUNT_LIMITS.fractionDigits} decimal places`,
      });
      return z.NEVER;
    }
    if (compareDecimals(text, ORDER_AMOUNT_LIMITS.max) > 0) {
      ctx.addIssue({ code: 'custom', message: `amount must be at most ${ORDER_AMOUNT_LIMITS.max}` });
      return z.NEVER;
    }
    return text;
  });

/** An EVM address; mixed case must carry a valid EIP-55 checksum. Kept in checksum form. */
export const evmAddressSchema = (field: string) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .refine(
      (value) => /^0x[0-9a-fA-F]{40}$/.test(value) && isAddress(value),
      `Invalid ${field}: expected a 0x-prefixed EVM address with a valid checksum`,
    )
    .transform((value) => getAddress(value));

export const chainIdSchema = z
  .union([z.number(), z.string()], {
    error: (iss) => (iss.input === undefined ? 'chainId is required' : 'chainId must be a positive integer'),
  })
  .transform((value, ctx) => {
    const id = typeof value === 'number' ? value : /^[1-9]\d{0,15}$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(id) || id <= 0) {
      ctx.addIssue({ code: 'custom', message: 'chainId must be a positive integer' });
      return z.NEVER;
    }
    return id;
  });

const boundedText = (field: string, max: number) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(max, `${field} must be at most ${max} characters`)
    .refine((value) => !/\p{Cc}/u.test(value), `${field} must not contain control characters`);

// ---- POST /orders ----

export const createOrderRequestSchema = z
  .strictObject({
    customerName: boundedText('customerName', CUSTOMER_NAME_MAX),
    chainId: chainIdSchema,
    amount: orderAmountSchema,
    mintWallet: evmAddressSchema('mintWallet'),
    customerOrder: boundedText('customerOrder', CUSTOMER_ORDER_MAX),
    stableCoin: stablecoinSchema,
  })
  .meta({ id: 'CreateOrderRequest' });
export type CreateOrderRequest = z.input<typeof createOrderRequestSchema>;
export type CreateOrder = z.output<typeof createOrderRequestSchema>;

export const createOrderResponseSchema = z
  .object({ message: z.string(), orderId: z.string() })
  .meta({ id: 'CreatedOrder' });
export type CreateOrderResponse = z.infer<typeof createOrderResponseSchema>;

// ---- the Order resource ----

export const orderSchema = z
  .object({
    orderId: z.string(),
    customerName: z.string(),
    customerOrder: z.string(),
    stableCoin: z.string(),
    amount: z.string(),
    mintWallet: z.string(),
    chainId: z.number(),
    orderDate: z.number(),
    orderStatus: z.string(),
    lastUpdateTime: z.number(),
  })
  .meta({ id: 'Order' });
export type Order = z.infer<typeof orderSchema>;
export const orderListSchema = z.array(orderSchema).meta({ id: 'OrderList' });

// ---- PUT /orders/{orderId} ----

export const updateOrderRequestSchema = z
  .strictObject({
    amount: orderAmountSchema.optional(),
    orderStatus: orderStatusSchema('orderStatus').optional(),
  })
  .refine(
    (body) => body.amount !== undefined || body.orderStatus !== undefined,
    'Nothing to update: send amount, orderStatus or both',
  )
  .meta({ id: 'UpdateOrderRequest' });
export type UpdateOrderRequest = z.input<typeof updateOrderRequestSchema>;

export const updateOrderResponseSchema = z
  .object({
    message: z.string(),
    updatedAttributes: z.object({ amount: z.string(), orderStatus: z.string(), lastUpdateTime: z.number() }),
  })
  .meta({ id: 'UpdatedOrder' });
export type UpdateOrderResponse = z.infer<typeof updateOrderResponseSchema>;

// ---- DELETE /orders ----

export const deleteOrderResponseSchema = z.object({ message: z.string() }).meta({ id: 'DeletedOrder' });

/** Every failure the service itself answers: status 400 and one message. */
export const orderErrorSchema = z.object({ error: z.string() });
/** What the gateway in front of the service answers for a missing or unknown x-api-key (403). */
export const gatewayErrorSchema = z.object({ message: z.string() });

export const ORDER_NOT_FOUND = 'Order not found';
