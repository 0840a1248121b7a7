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
} from '../links.ts';
import { fromJson, type Database, type Sql } from './database.ts';
import { insertEvents } from './outbox.ts';
import type { EventRouting } from '../outbox.ts';
import { NewestFirst, recordOf, recordsOf, type RecordRow } from './rows.ts';

const LINKS = new NewestFirst<LinkRow>('SELECT record, kind FROM links', 'code');

/** A link's row: its record, and its kind from the column (links made before kinds have none in their JSON). */
type LinkRow = RecordRow & { kind: LinkKind };
const linkOf = (row: LinkRow | undefined): LinkRecord | undefined =>
  row && { ...fromJson<LinkRecord>(row.record), kind: row.kind };
const USES = new NewestFirst<RecordRow>('SELECT record FROM link_uses', 'checkout_id');

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
    await this.db.run('INSERT INTO links (code, kind, created_at, record) VALUES (?, ?, ?, ?)', [
      link.code,
      link.kind,
      link.createdAt,
      JSON.stringify(link),
    ]);
  }

  async linkByCode(code: string): Promise<LinkRecord | undefined> {
    return linkOf(await this.db.row<LinkRow>('SELECT record, kind FROM links WHERE code = ?', [code]));
  }

  async listLinks(query: LinkListQuery): Promise<LinkPage> {
    const after = query.cursor ? decodeLinkCursor(query.cursor) : undefined;
    const rows = await LINKS.rows(this.db, after && [after.createdAt, after.id], query.limit, {
      'kind = ?': query.kind,
    });
    const found = rows.map((row) => linkOf(row)!);
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
      const link = await this.held(tx, code);
      if (!link) return undefined;
      if (!from.includes(link.state)) return { changed: false, link };
      const next = { ...link, state: to, updatedAt: at };
      await this.save(tx, next);
      return { changed: true, link: next };
    });
  }

  reserveUse(
    code: string,
    use: { checkoutId: string; amount: string; reference: (n: number) => string },
    now: number,
  ): Promise<Reservation | undefined> {
    return this.db.transaction(async (tx): Promise<Reservation | undefined> => {
      const link = await this.held(tx, code);
      if (!link) return undefined;
      const refusal = decideUse(link, use.amount, now);
      if (refusal) return { outcome: 'refused', link, reason: refusal };
      const next = reserved(link, use, now);
      await this.save(tx, next.link);
      await tx.run('INSERT INTO link_uses (checkout_id, code, state, created_at, record) VALUES (?, ?, ?, ?, ?)', [
        next.use.checkoutId,
        code,
        next.use.state,
        next.use.createdAt,
        JSON.stringify(next.use),
      ]);
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
      const link = code && (await this.held(tx, code.code));
      const use = recordOf<LinkUse>(
        await tx.row<RecordRow>(`SELECT record FROM link_uses WHERE checkout_id = ?${this.db.dialect.forUpdate}`, [
          checkoutId,
        ]),
      );
      if (!link || use?.state !== 'held') return undefined;
      const next = settled(link, use, to, at, effects.transactionId ?? null);
      await this.save(tx, next.link);
      await tx.run('UPDATE link_uses SET state = ?, record = ? WHERE checkout_id = ?', [
        next.use.state,
        JSON.stringify(next.use),
        checkoutId,
      ]);
      if (effects.events) await insertEvents(tx, this.db.dialect, effects.events(next.link, next.use), this.routing);
      return next;
    });
  }

  async useByCheckout(checkoutId: string): Promise<LinkUse | undefined> {
    return recordOf(await this.db.row<RecordRow>('SELECT record FROM link_uses WHERE checkout_id = ?', [checkoutId]));
  }

  async heldUses(limit: number): Promise<LinkUse[]> {
    return recordsOf(
      await this.db.rows<RecordRow>(
        "SELECT record FROM link_uses WHERE state = 'held' ORDER BY created_at, checkout_id LIMIT ?",
        [limit],
      ),
    );
  }

  async usesOf(code: string, query: { limit: number; cursor?: string | undefined }): Promise<LinkUsePage> {
    const after = query.cursor ? decodeLinkCursor(query.cursor) : undefined;
    const found = recordsOf<LinkUse>(
      await USES.rows(this.db, after && [after.createdAt, after.id], query.limit, { 'code = ?': code }),
    );
    const page = pageAfter(found, query.limit, false, (use) => [use.createdAt, use.checkoutId]);
    return { uses: page.items, nextCursor: page.nextCursor };
  }

  /** A link's record with its row held until the transaction ends. */
  private async held(tx: Sql, code: string): Promise<LinkRecord | undefined> {
    return linkOf(
      await tx.row<LinkRow>(`SELECT record, kind FROM links WHERE code = ?${this.db.dialect.forUpdate}`, [code]),
    );
  }

  private async save(tx: Sql, link: LinkRecord): Promise<void> {
    await tx.run('UPDATE links SET record = ? WHERE code = ?', [JSON.stringify(link), link.code]);
  }
}
