/**
 * The shop's event endpoint, as a merchant writes theirs with kassa/server: every event is verified
 * against the raw body before anything is believed, duplicates (same `webhook-id`) and stale events
 * (a lower `sequence`) are dropped, and an order counts as paid only on a verified `checkout.paid`.
 */
import type { Context } from 'hono';
import { KassaEventError, verifyEvent, type KassaEvent } from '../server/index.ts';

/** Bigger bodies are not Kassa's events; refused before they are read. */
const MAX_BODY_BYTES = 64 * 1024;
/** How many delivered ids are remembered for dropping a repeat; older repeats are caught by `sequence`. */
const REMEMBERED_IDS = 10_000;

export interface ConfirmedPayment {
  transactionId: string | null;
  paidAt: string | null;
}

export function shopEvents(options: { secret: () => string | readonly string[] }) {
  /** The highest `sequence` handled per checkout, and the orders confirmed paid. */
  const sequences = new Map<string, number>();
  const paid = new Map<string, ConfirmedPayment>();
  const seen = new Set<string>();

  const apply = (event: KassaEvent) => {
    if (event.type !== 'checkout.paid' && event.type !== 'checkout.expired') return;
    const { checkoutId } = event.data;
    if ((sequences.get(checkoutId) ?? -1) >= event.sequence) return;
    sequences.set(checkoutId, event.sequence);
    // Fulfil here: this is the only place an order becomes paid.
    if (event.type === 'checkout.paid')
      paid.set(checkoutId, { transactionId: event.data.transactionId, paidAt: event.data.paidAt });
  };

  return {
    /** POST /kassa/events: 204 once handled (or already handled), 400 for what must not be believed. */
    async receive(c: Context): Promise<Response> {
      const length = Number(c.req.header('Content-Length') ?? 0);
      if (length > MAX_BODY_BYTES) return c.json({ error: 'Too large for an event' }, 413);
      const raw = await c.req.text();
      if (raw.length > MAX_BODY_BYTES) return c.json({ error: 'Too large for an event' }, 413);
      let event: KassaEvent;
      try {
        event = verifyEvent(raw, c.req.raw.headers, options.secret());
      } catch (error) {
        if (!(error instanceof KassaEventError)) throw error;
        console.error(`demo shop: refused an event (${error.reason}): ${error.message}`);
        return c.json({ error: error.message }, 400);
      }
      const id = c.req.header('webhook-id')!;
      if (!seen.has(id)) {
        apply(event);
        seen.add(id);
        if (seen.size > REMEMBERED_IDS) seen.delete(seen.values().next().value!);
      }
      return c.body(null, 204);
    },
    /** The order's payment, once the shop's server has a verified `checkout.paid` for it. */
    confirmed(checkoutId: string): ConfirmedPayment | undefined {
      return paid.get(checkoutId);
    },
  };
}
