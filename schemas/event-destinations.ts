/**
 * The merchant's event destinations (docs/events.md#destinations): several receivers, each with its
 * own address, Standard Webhooks secret, event types and on/off switch, and a delivery log each.
 */
import { z } from 'zod';
import { isHttpsOrLoopback } from '../lib/url-rules.ts';
import { EVENT_TYPES } from './events.ts';
import { pageLimitSchema } from './proxy-api.ts';

/** `*` for every type, present and future. */
export const ENABLED_EVENT_CHOICES = ['*', ...EVENT_TYPES] as const;

const noControls = (value: string) => !/[\p{Cc}\p{Cf}]/u.test(value);

export const destinationUrlSchema = z
  .string({ error: 'url is required' })
  .max(2048, 'url must be at most 2,048 characters')
  .refine(isHttpsOrLoopback, 'url must be an absolute https URL without credentials (plain http only for loopback)')
  .transform((value) => new URL(value).href);

const enabledEventsSchema = z
  .array(
    z.enum(ENABLED_EVENT_CHOICES, { error: `each of enabledEvents must be * or one of ${EVENT_TYPES.join(', ')}` }),
  )
  .min(1, 'enabledEvents must name at least one type (or *)')
  .max(ENABLED_EVENT_CHOICES.length)
  .transform((types) => [...new Set(types)]);

const descriptionSchema = z
  .string()
  .trim()
  .max(200, 'description must be at most 200 characters')
  .refine(noControls, 'description must not contain control characters');

export const newDestinationSchema = z
  .object({
    url: destinationUrlSchema,
    description: descriptionSchema.default(''),
    enabledEvents: enabledEventsSchema.default(['*']),
    enabled: z.boolean().default(true),
  })
  .strict()
  .meta({ id: 'NewEventDestination' });
export type NewDestination = z.output<typeof newDestinationSchema>;

export const destinationChangeSchema = z
  .object({
    url: destinationUrlSchema.optional(),
    description: descriptionSchema.optional(),
    enabledEvents: enabledEventsSchema.optional(),
    enabled: z.boolean().optional(),
  })
  .strict()
  .refine((change) => Object.keys(change).length > 0, 'the body must change url, description, enabledEvents or enabled')
  .meta({ id: 'EventDestinationChange' });
export type DestinationChange = z.output<typeof destinationChangeSchema>;

/** At most a week: the overlap lets a receiver take the new secret, not keep two for good. */
export const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;
export const rotateSecretSchema = z
  .object({
    /** How long the old secret keeps signing beside the new one (24 hours); 0 ends it now. */
    expiresInSeconds: z
      .number({ error: 'expiresInSeconds must be a whole number of seconds' })
      .int('expiresInSeconds must be a whole number of seconds')
      .min(0, 'expiresInSeconds must not be negative')
      .max(MAX_OVERLAP_SECONDS, `expiresInSeconds must be at most ${MAX_OVERLAP_SECONDS} (a week)`)
      .default(86_400),
  })
  .strict()
  .meta({ id: 'RotateDestinationSecret' });

export const destinationSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string(),
    /** `environment`: KASSA_EVENTS_URL, changed only there; `api`: added through this API. */
    kind: z.enum(['environment', 'api']),
    enabledEvents: z.array(z.enum(ENABLED_EVENT_CHOICES)),
    enabled: z.boolean(),
    disabledAt: z.string().nullable(),
    /** Why events stopped going there: an operator, or repeated 410 Gone answers. */
    disabledReason: z.string().nullable(),
    createdAt: z.string().nullable(),
    /** While a rotation overlaps: when the previous secret stops signing. */
    previousSecretExpiresAt: z.string().nullable(),
    /** Deliveries waiting (pending) for this destination. */
    pending: z.number().int(),
  })
  .meta({ id: 'EventDestination' });
export type DestinationView = z.infer<typeof destinationSchema>;

export const destinationListSchema = z
  .object({ destinations: z.array(destinationSchema) })
  .meta({ id: 'EventDestinationList' });

/** The answer that carries a secret: at creation and rotation, the only time it is shown. */
export const destinationWithSecretSchema = z
  .object({ destination: destinationSchema, secret: z.string() })
  .meta({ id: 'EventDestinationWithSecret' });

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const deliverySchema = z
  .object({
    eventId: z.string(),
    type: z.enum(EVENT_TYPES),
    status: z.enum(DELIVERY_STATUSES),
    createdAt: z
      .string()
      .describe(
        'Its place in the queue: when the event was made, or just after the delivery written before it when that one was written first though made later',
      ),
    attempts: z.number().int(),
    nextAttemptAt: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    lastAttemptAt: z.string().nullable(),
    lastStatusCode: z.number().int().nullable(),
    /** How long the last attempt took, in milliseconds. */
    lastDurationMs: z.number().nullable(),
    lastError: z.string().nullable(),
  })
  .meta({ id: 'EventDelivery' });
export type DeliveryView = z.infer<typeof deliverySchema>;

export const deliveryLogQuerySchema = z.object({
  status: z.enum(DELIVERY_STATUSES, { error: `status must be one of ${DELIVERY_STATUSES.join(', ')}` }).optional(),
  limit: pageLimitSchema,
  cursor: z.string().max(200).optional(),
});

export const deliveryLogSchema = z
  .object({ deliveries: z.array(deliverySchema), nextCursor: z.string().nullable() })
  .meta({ id: 'EventDeliveryLog' });

export const skipResultSchema = z.object({ skipped: z.number().int() }).meta({ id: 'SkipResult' });

export const testDeliverySchema = z
  .object({
    eventId: z.string(),
    statusCode: z.number().int().nullable(),
    durationMs: z.number(),
    error: z.string().nullable(),
  })
  .meta({ id: 'TestDelivery' });
