/**
 * The extension's requests about payment links, part of messages.ts's: the links (filtered by what
 * their status says), one link, making one, pausing, resuming and ending it, its payments, their CSV
 * and its QR code; each request's schema, and what the service worker answers to it
 * (background/link-handlers.ts). The proxy judges each by the operator's permissions.
 */
import { z } from 'zod';
import { LINK_STATUSES, type LinkList, type linkPaymentListSchema, type LinkView } from '../schemas/links.ts';

const code = z.string().regex(/^[\w-]{1,64}$/, 'Not a link’s code');
export const LINK_MOVES = ['pause', 'resume', 'end'] as const;
export type LinkMove = (typeof LINK_MOVES)[number];

export const LINK_REQUESTS = [
  /** `status`: only the links whose status is this one (the proxy lists them all; the worker keeps these). */
  z.object({
    kind: z.literal('links.list'),
    status: z.enum(LINK_STATUSES).optional(),
    cursor: z.string().max(200).optional(),
  }),
  z.object({ kind: z.literal('links.get'), code }),
  // The link is validated in full (newLinkSchema) by the worker: its words, naming the field, are the page's error.
  z.object({ kind: z.literal('links.create'), link: z.record(z.string(), z.unknown()) }),
  z.object({ kind: z.literal('links.move'), code, move: z.enum(LINK_MOVES) }),
  z.object({ kind: z.literal('links.payments'), code, cursor: z.string().max(200).optional() }),
  z.object({ kind: z.literal('links.export'), code }),
  z.object({ kind: z.literal('links.qr'), code }),
] as const;

export interface LinkAnswers {
  'links.list': LinkList;
  'links.get': LinkView;
  'links.create': LinkView;
  'links.move': LinkView;
  'links.payments': z.infer<typeof linkPaymentListSchema>;
  'links.export': { filename: string; csv: string };
  /** The link's QR code as an SVG `data:` URL, for an `<img>`. */
  'links.qr': { svg: string };
}

/** What a person does here (a form sent, a button pressed): activity, for the wallet's idle lock. */
export const LINK_ACTIONS = ['links.create', 'links.move', 'links.export'] as const;
