/**
 * The events the proxy sends to the merchant's server (Standard Webhooks: headers `webhook-id`,
 * `webhook-timestamp`, `webhook-signature`; body `{type, timestamp, sequence, data}`), and the
 * operator's view of the outbox they are delivered from. One schema per event type; the proxy's
 * OpenAPI document lists them under `webhooks`, and kassa/server's `verifyEvent` parses with them.
 */
import { z } from 'zod';
import { eventEndpointSchema } from './event-endpoint.ts';
import { linkSchema } from './links.ts';
import { operatorPurchaseSchema } from './onramp.ts';
import { merchantCheckoutSchema, operatorPaymentSchema, pageLimitSchema } from './proxy-api.ts';

export const EVENT_TYPES = [
  'checkout.paid',
  'checkout.expired',
  'payment.completed',
  'payment.failed',
  'onramp.paid',
  'onramp.delivered',
  'onramp.failed',
  'link.paid',
] as const;
export type KassaEventType = (typeof EVENT_TYPES)[number];

const envelope = <Type extends KassaEventType, Data extends z.ZodType>(
  type: Type,
  dataSchema: Data,
  description: string,
) =>
  z
    .object({
      type: z.literal(type),
      /** When the change happened (ISO 8601). */
      timestamp: z.string(),
      /**
       * Orders the events of one object: a receiver that has handled a higher number for the same
       * payment (checkout, purchase) drops a lower one. Payment and purchase events count the object's
       * changes; for a checkout, `checkout.paid` (2) supersedes `checkout.expired` (1), as money received
       * always wins.
       */
      sequence: z.number().int().nonnegative(),
      data: dataSchema,
    })
    .meta({ id: `Event_${type.replace('.', '_')}`, description });

export const checkoutPaidEventSchema = envelope(
  'checkout.paid',
  merchantCheckoutSchema,
  'A checkout was paid: its payment completed. Fulfil the order on this event.',
);
export const checkoutExpiredEventSchema = envelope(
  'checkout.expired',
  merchantCheckoutSchema,
  'A checkout expired unpaid. A payment that completes later still sends checkout.paid.',
);
export const paymentCompletedEventSchema = envelope(
  'payment.completed',
  operatorPaymentSchema,
  'A payment completed: the money is on its way to the merchant.',
);
export const paymentFailedEventSchema = envelope(
  'payment.failed',
  operatorPaymentSchema,
  'A payment failed (cancelled, rejected or expired at the bank); a checkout stays open for another attempt.',
);

export const onrampPaidEventSchema = envelope(
  'onramp.paid',
  operatorPurchaseSchema,
  'A stablecoin purchase was paid (its payment verified COMPLETED): the mint is being ordered. Nothing to do yet.',
);
export const onrampDeliveredEventSchema = envelope(
  'onramp.delivered',
  operatorPurchaseSchema,
  "A stablecoin purchase was delivered: the mint to the customer's wallet is on the chain (txHash).",
);
export const onrampFailedEventSchema = envelope(
  'onramp.failed',
  operatorPurchaseSchema,
  'A stablecoin purchase ended unpaid (its checkout expired with no completed payment): nothing was minted.',
);

export const linkPaidEventSchema = envelope(
  'link.paid',
  z.object({ link: linkSchema, payment: operatorPaymentSchema }),
  'A payment link was paid: the link (with its count and total) and the payment, which also sends payment.completed and checkout.paid.',
);

export const EVENT_SCHEMAS = {
  'checkout.paid': checkoutPaidEventSchema,
  'checkout.expired': checkoutExpiredEventSchema,
  'payment.completed': paymentCompletedEventSchema,
  'payment.failed': paymentFailedEventSchema,
  'onramp.paid': onrampPaidEventSchema,
  'onramp.delivered': onrampDeliveredEventSchema,
  'onramp.failed': onrampFailedEventSchema,
  'link.paid': linkPaidEventSchema,
} as const;

export const kassaEventSchema = z.discriminatedUnion('type', [
  checkoutPaidEventSchema,
  checkoutExpiredEventSchema,
  paymentCompletedEventSchema,
  paymentFailedEventSchema,
  onrampPaidEventSchema,
  onrampDeliveredEventSchema,
  onrampFailedEventSchema,
  linkPaidEventSchema,
]);
export type KassaEvent = z.infer<typeof kassaEventSchema>;
export type KassaEventOf<Type extends KassaEventType> = Extract<KassaEvent, { type: Type }>;

// ---- the outbox, as the operator sees it ----

export const EVENT_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

export const eventSummarySchema = z
  .object({
    /** The `webhook-id`: the same on every attempt, so a receiver can drop a duplicate. */
    id: z.string(),
    type: z.enum(EVENT_TYPES),
    /** pending: not yet delivered, retried on schedule; delivered: a 2xx was received; failed: given up. */
    status: z.enum(EVENT_STATUSES),
    sequence: z.number().int(),
    transactionId: z.string().nullable(),
    checkoutId: z.string().nullable(),
    createdAt: z.string(),
    attempts: z.number().int(),
    nextAttemptAt: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    /** The last failed attempt's status code or error, in words. */
    lastError: z.string().nullable(),
  })
  .meta({ id: 'EventSummary' });
export type EventSummary = z.infer<typeof eventSummarySchema>;

export const eventAttemptSchema = z
  .object({
    at: z.string(),
    durationMs: z.number(),
    /** The receiver's status code; null when no answer came (refused, reset, timed out). */
    statusCode: z.number().int().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'EventAttempt' });
export type EventAttempt = z.infer<typeof eventAttemptSchema>;

export const eventDetailSchema = eventSummarySchema
  .extend({ payload: kassaEventSchema, attemptLog: z.array(eventAttemptSchema) })
  .meta({ id: 'EventDetail' });
export type EventDetail = z.infer<typeof eventDetailSchema>;

export const eventListQuerySchema = z.object({
  status: z.enum(EVENT_STATUSES, { error: `status must be one of ${EVENT_STATUSES.join(', ')}` }).optional(),
  type: z.enum(EVENT_TYPES, { error: `type must be one of ${EVENT_TYPES.join(', ')}` }).optional(),
  limit: pageLimitSchema,
  cursor: z.string().max(200).optional(),
});
export type EventListQuery = z.input<typeof eventListQuerySchema>;

export const eventListSchema = z
  .object({
    events: z.array(eventSummarySchema),
    nextCursor: z.string().nullable(),
    /** Where events are sent (KASSA_EVENTS_URL); null when the proxy sends none. */
    endpoint: z.string().nullable(),
    /** Where events are sent, each with whether they go there now; empty when the proxy sends none. */
    endpoints: z.array(eventEndpointSchema),
  })
  .meta({ id: 'EventList' });
export type EventList = z.infer<typeof eventListSchema>;

export const bulkRedeliverRequestSchema = z
  .object({
    status: z.literal('failed', { error: 'status must be "failed": only failed events are replayed in bulk' }),
    since: z.iso.datetime({ offset: true, error: 'since must be an ISO 8601 date and time' }),
  })
  .strict()
  .meta({ id: 'BulkRedeliverRequest' });

export const redeliverResultSchema = z.object({ redelivered: z.number().int() }).meta({ id: 'RedeliverResult' });
