/**
 * The extension's requests about the merchant's integration, part of messages.ts's: where events go
 * (event destinations, each with its delivery log) and the keys the merchant's servers call Kassa
 * with (merchant keys); each request's schema, and what the service worker answers to it
 * (background/integration-handlers.ts). A secret is in the answer that makes or rotates it, only there.
 */
import { z } from 'zod';
import {
  DELIVERY_STATUSES,
  ENABLED_EVENT_CHOICES,
  MAX_OVERLAP_SECONDS,
  type deliveryLogSchema,
  type destinationListSchema,
  type destinationWithSecretSchema,
  type DestinationView,
  type skipResultSchema,
  type testDeliverySchema,
} from '../schemas/event-destinations.ts';
import {
  MERCHANT_SCOPES,
  type merchantKeyListSchema,
  type MerchantKeyView,
  type merchantKeyWithSecretSchema,
} from '../schemas/merchant-keys.ts';

const destinationId = z.string().regex(/^(dest|ep)_[\w-]{1,64}$/, 'Not an event destination’s id');
const keyId = z.string().regex(/^mkey_[\w-]{1,64}$/, 'Not a merchant key’s id');
/** How long an old secret or key keeps working beside the new one, in seconds. */
const overlap = (max: number) => z.number().int().min(0).max(max);

export const INTEGRATION_REQUESTS = [
  z.object({ kind: z.literal('destinations.list') }),
  // The destination is validated in full (newDestinationSchema) by the worker: its words are the page's error.
  z.object({
    kind: z.literal('destinations.create'),
    url: z.string().max(2048),
    description: z.string().max(200),
    enabledEvents: z.array(z.enum(ENABLED_EVENT_CHOICES)).max(ENABLED_EVENT_CHOICES.length),
  }),
  z.object({ kind: z.literal('destinations.setEnabled'), id: destinationId, enabled: z.boolean() }),
  z.object({
    kind: z.literal('destinations.rotateSecret'),
    id: destinationId,
    expiresInSeconds: overlap(MAX_OVERLAP_SECONDS),
  }),
  z.object({ kind: z.literal('destinations.skip'), id: destinationId }),
  z.object({ kind: z.literal('destinations.test'), id: destinationId }),
  z.object({ kind: z.literal('destinations.remove'), id: destinationId }),
  z.object({
    kind: z.literal('destinations.deliveries'),
    id: destinationId,
    status: z.enum(DELIVERY_STATUSES).optional(),
    cursor: z.string().max(200).optional(),
  }),
  z.object({ kind: z.literal('merchantKeys.list') }),
  z.object({
    kind: z.literal('merchantKeys.create'),
    name: z.string().max(200),
    scopes: z.array(z.enum(MERCHANT_SCOPES)).max(MERCHANT_SCOPES.length),
    expiresInDays: z.number().int().optional(),
  }),
  z.object({ kind: z.literal('merchantKeys.roll'), id: keyId, expiresInSeconds: overlap(30 * 86_400) }),
  z.object({ kind: z.literal('merchantKeys.revoke'), id: keyId }),
] as const;

export interface IntegrationAnswers {
  'destinations.list': z.infer<typeof destinationListSchema>;
  'destinations.create': z.infer<typeof destinationWithSecretSchema>;
  'destinations.setEnabled': DestinationView;
  'destinations.rotateSecret': z.infer<typeof destinationWithSecretSchema>;
  'destinations.skip': z.infer<typeof skipResultSchema>;
  'destinations.test': z.infer<typeof testDeliverySchema>;
  'destinations.remove': { done: true };
  'destinations.deliveries': z.infer<typeof deliveryLogSchema>;
  'merchantKeys.list': z.infer<typeof merchantKeyListSchema>;
  'merchantKeys.create': z.infer<typeof merchantKeyWithSecretSchema>;
  'merchantKeys.roll': z.infer<typeof merchantKeyWithSecretSchema>;
  'merchantKeys.revoke': MerchantKeyView;
}

/** What a person does here (a form sent, a button pressed): activity, for the wallet's idle lock. */
export const INTEGRATION_ACTIONS = [
  'destinations.create',
  'destinations.setEnabled',
  'destinations.rotateSecret',
  'destinations.skip',
  'destinations.test',
  'destinations.remove',
  'merchantKeys.create',
  'merchantKeys.roll',
  'merchantKeys.revoke',
] as const;
