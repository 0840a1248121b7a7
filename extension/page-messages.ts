/**
 * The wire between a page's provider (main world), the content script (isolated world) and the
 * service worker. zod's small build (`zod/mini`), because the content script runs on every page and
 * must stay thin. Every hop validates what it receives: a page can post anything to itself.
 *
 *   page ──window.postMessage {target:'kassa:content', id, method, params}──▶ content script
 *   content script ──port 'kassa-provider' {type:'request', id, method, params}──▶ service worker
 *   service worker ──{type:'response', id, result | error} / {type:'event', event, data}──▶ content script
 *   content script ──window.postMessage {target:'kassa:inpage', ...the same}──▶ page
 *
 * The origin of a request is never in a message: the service worker takes it from the port's sender.
 */
import * as z from 'zod/mini';

export const PROVIDER_PORT = 'kassa-provider';
export const TO_CONTENT = 'kassa:content';
export const TO_PAGE = 'kassa:inpage';
/** The most JSON a page may send in one request's params. */
export const MAX_PARAMS_JSON = 128 * 1024;

const requestId = z.union([z.number().check(z.int()), z.string().check(z.maxLength(100))]);
const method = z.string().check(z.minLength(1), z.maxLength(100), z.regex(/^[A-Za-z0-9_]+$/));
const params = z.optional(z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]));

/** What the page's provider posts. */
export const pageRequestSchema = z.object({ target: z.literal(TO_CONTENT), id: requestId, method, params });
export type PageRequest = z.infer<typeof pageRequestSchema>;

/** What the content script sends the service worker. */
export const portRequestSchema = z.object({
  type: z.literal('request'),
  id: requestId,
  method,
  params,
  /** The page's `<html lang>`: an approval window it opens speaks it. */
  lang: z.optional(z.string().check(z.maxLength(35))),
});
export type PortRequest = z.infer<typeof portRequestSchema>;

export const rpcErrorSchema = z.object({
  code: z.number().check(z.int()),
  message: z.string(),
  data: z.optional(z.unknown()),
});

export const PROVIDER_EVENTS = ['accountsChanged', 'chainChanged', 'connect', 'disconnect'] as const;
export type ProviderEvent = (typeof PROVIDER_EVENTS)[number];

/** What the service worker answers on the port. */
export const portReplySchema = z.union([
  z.object({
    type: z.literal('response'),
    id: requestId,
    result: z.optional(z.unknown()),
    error: z.optional(rpcErrorSchema),
  }),
  z.object({ type: z.literal('event'), event: z.enum(PROVIDER_EVENTS), data: z.unknown() }),
]);
export type PortReply = z.infer<typeof portReplySchema>;

/** What the content script posts back to the page (the port reply, addressed to the provider). */
export const pageReplySchema = z.union([
  z.object({
    target: z.literal(TO_PAGE),
    type: z.literal('response'),
    id: requestId,
    result: z.optional(z.unknown()),
    error: z.optional(rpcErrorSchema),
  }),
  z.object({ target: z.literal(TO_PAGE), type: z.literal('event'), event: z.enum(PROVIDER_EVENTS), data: z.unknown() }),
]);
export type PageReply = z.infer<typeof pageReplySchema>;
