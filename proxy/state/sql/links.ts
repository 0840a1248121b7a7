import {
  decideUse,
  decodeLinkCursor,
  pageAfter,
  reserved,
  settled,
  type LinkKind,
  type LinkListQuery,
  type LinkPage,
  type LinkRecord,
  type LinkStore,
  type LinkUse,
  type LinkUsePage,
  type Reservation,
  type SettleEffects,
  type UseRequest,
} from '../links.ts';
import { fromJson, type Database } from './database.ts';
import { insertEvents } from './outbox.ts';
import type { EventRouting } from '../outbox.ts';
import { RecordTable } from './rows.ts';

/** Links, their kind from the column (links made before kinds have none in their JSON). */
const LINKS = new RecordTable<LinkRecord>(
  'links',
  'code kind createdAt',
  (row) => ({ ...fromJson<LinkRecord>(row.record), kind: row.kind as LinkKind }),
  'record, kind',
);
const USES = new RecordTable<LinkUse>('link_uses', 'checkoutId code state createdAt');
const NEWEST_LINKS = LINKS.newestFirst('code');
const NEWEST_USES = USES.newestFirst('checkout_id');

/**
 * Payment links in the database (tables `links` and `link_uses`): JSON records beside the columns
 * their lookups need. Each step holds the link's row (`FOR UPDATE` on PostgreSQL, the file on SQLite),
 * so reservations on one link take turns and its counters move once per use.
 */
export class SqlLinks implements LinkStore {
  constructor(
    private readonly db: Database,
    private readonly routing: EventRouting,
  ) {}

  async createLink(link: LinkRecord): Promise<void> {
    await LINKS.insert(this.db, link);
  }

  linkByCode(code: string): Promise<LinkRecord | undefined> {
    return LINKS.get(this.db, code);
  }

  async listLinks(query: LinkListQuery): Promise<LinkPage> {
    const after = query.cursor ? decodeLinkCursor(query.cursor) : undefined;
    const found = await NEWEST_LINKS.rows(this.db, after && [after.createdAt, after.id], query.limit, {
      'kind = ?': query.kind,
    });
    const page = pageAfter(found, query.limit, false, (link) => [link.createdAt, link.code]);
    return { links: page.items, nextCursor: page.nextCursor };
  }

  setLinkState(
    code: string,
    from: readonly LinkRecord['state'][],
    to: LinkRecord['state'],
    at: number,
  ): Promise<{ changed: boolean; link: LinkRecord } | undefined> {
    return this.db.transaction(async (tx) => {
      const link = await LINKS.get(tx, code, this.db.dialect.forUpdate);
      if (!link) return undefined;
      if (!from.includes(link.state)) return { changed: false, link };
      const next = { ...link, state: to, updatedAt: at };
      await LINKS.save(tx, next);
      return { changed: true, link: next };
    });
  }

  reserveUse(code: string, use: UseRequest, now: number): Promise<Reservation | undefined> {
    return this.db.transaction(async (tx): Promise<Reservation | undefined> => {
      const link = await LINKS.get(tx, code, this.db.dialect.forUpdate);
      if (!link) return undefined;
      const refusal = decideUse(link, use.amount, now);
      if (refusal) return { outcome: 'refused', link, reason: refusal };
      const next = reserved(link, use, now);
      await LINKS.save(tx, next.link);
      await USES.insert(tx, next.use);
      return { outcome: 'reserved', ...next };
    });
  }

  settleUse(
    checkoutId: string,
    to: 'paid' | 'released',
    at: number,
    effects: SettleEffects = {},
  ): Promise<{ link: LinkRecord; use: LinkUse } | undefined> {
    return this.db.transaction(async (tx) => {
      // The link's row first, then the use's: the order reserveUse takes them in.
      const code = await tx.row<{ code: string }>('SELECT code FROM link_uses WHERE checkout_id = ?', [checkoutId]);
      const link = code && (await LINKS.get(tx, code.code, this.db.dialect.forUpdate));
      const use = await USES.get(tx, checkoutId, this.db.dialect.forUpdate);
      if (!link || use?.state !== 'held') return undefined;
      const next = settled(link, use, to, at, effects.transactionId ?? null);
      await LINKS.save(tx, next.link);
      await USES.save(tx, next.use);
      if (effects.events) await insertEvents(tx, this.db.dialect, effects.events(next.link, next.use), this.routing);
      return next;
    });
  }

  useByCheckout(checkoutId: string): Promise<LinkUse | undefined> {
    return USES.get(this.db, checkoutId);
  }

  heldUses(limit: number): Promise<LinkUse[]> {
    return USES.all(this.db, "WHERE state = 'held' ORDER BY created_at, checkout_id LIMIT ?", [limit]);
  }

  async usesOf(code: string, query: { limit: number; cursor?: string | undefined }): Promise<LinkUsePage> {
    const after = query.cursor ? decodeLinkCursor(query.cursor) : undefined;
    const found = await NEWEST_USES.rows(this.db, after && [after.createdAt, after.id], query.limit, {
      'code = ?': code,
    });
    const page = pageAfter(found, query.limit, false, (use) => [use.createdAt, use.checkoutId]);
    return { uses: page.items, nextCursor: page.nextCursor };
  }
}
