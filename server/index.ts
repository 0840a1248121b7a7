/**
 * kassa/server: for the merchant's backend (Node 20, or any runtime with fetch and WebCrypto).
 * Create and read checkouts with {@link createKassaClient}; accept the proxy's signed events with
 * {@link verifyEvent}.
 */
export { createKassaClient } from './kassa-client.ts';
export type { CreateCheckoutOptions, KassaClient, KassaClientOptions } from './kassa-client.ts';
export { EVENT_TOLERANCE_SECONDS, verifyEvent } from './verify-event.ts';
export type { EventHeaders } from './verify-event.ts';
export { KassaError, KassaEventError } from './kassa-error.ts';
export type { KassaEventErrorReason } from './kassa-error.ts';
export { EVENT_TYPES } from '../schemas/events.ts';
export type { KassaEvent, KassaEventOf, KassaEventType } from '../schemas/events.ts';
export type { CheckoutState, CreateCheckoutRequest, MerchantCheckout } from '../schemas/proxy-api.ts';
