import {
  decideUse,
  decodeLinkCursor,
  pageAfter,
  reserved,
  settled,
  type LinkListQuery,
  type LinkPage,
  type LinkRecord,
  type LinkState,
  type LinkStore,
  type LinkUse,
  type LinkUsePage,
  type Reservation,
  type SettleEffects,
} from '../links.ts';
import { Cas } from './cas.ts';
import { idOfMember, indexMember, parse } from './keys.ts';
import { newestFirst } from './newest-first.ts';
import { RedisRecords, unchanged, type Unchanged } from './records.ts';

/**
 * Payment links in Redis: each link a JSON value with its counters, each use one under its checkout,
 * and lexicographic indexes (every link, the links of each kind, each link's uses, the uses held). A step on a link commits
 * only if the link's value is still the one it read (cas.ts), so reservations racing for its last use
 * commit one at a time, and the others read again and are refused.
 */
export class RedisLinks extends RedisRecords implements LinkStore {
  async createLink(link: LinkRecord): Promise<void> {
    const created = await new Cas()
      .expect(this.key.link(link.code), null)
      .set(this.key.link(link.code), JSON.stringify(link))
      .zadd(this.key.linksAll(), indexMember(link.createdAt, link.code))
      .zadd(this.key.linksOfKind(link.kind), indexMember(link.createdAt, link.code))
      .commit(this.redis);
    if (!created) throw new Error(`link ${link.code} exists already`);
  }

  linkByCode(code: string): Promise<LinkRecord | undefined> {
    return this.read(this.key.link(code));
  }

  async listLinks(query: LinkListQuery): Promise<LinkPage> {
    const after = query.cursor ? decodeLinkCursor(query.cursor) : undefined;
    const found = await newestFirst<LinkRecord>(this.redis, {
      index: query.kind ? this.key.linksOfKind(query.kind) : this.key.linksAll(),
      valueKey: this.key.link,
      after: after && indexMember(after.createdAt, after.id),
      limit: query.limit,
    });
    const page = pageAfter(found, query.limit, false, (link) => [link.createdAt, link.code]);
    return { links: page.items, nextCursor: page.nextCursor };
  }

  setLinkState(
    code: string,
    from: readonly LinkState[],
    to: LinkState,
    at: number,
  ): Promise<{ changed: boolean; link: LinkRecord } | undefined> {
    return this.onLink<{ changed: boolean; link: LinkRecord }>(code, (link, cas) => {
      if (!from.includes(link.state)) return unchanged({ changed: false, link });
      const next = { ...link, state: to, updatedAt: at };
      cas.set(this.key.link(code), JSON.stringify(next));
      return { changed: true, link: next };
    });
  }

  reserveUse(
    code: string,
    use: { checkoutId: string; amount: string; reference: (n: number) => string },
    now: number,
  ): Promise<Reservation | undefined> {
    return this.onLink<Reservation>(code, (link, cas) => {
      const refusal = decideUse(link, use.amount, now);
      if (refusal) return unchanged({ outcome: 'refused', link, reason: refusal });
      const next = reserved(link, use, now);
      const member = indexMember(now, use.checkoutId);
      cas
        .set(this.key.link(code), JSON.stringify(next.link))
        .expect(this.key.linkUse(use.checkoutId), null)
        .set(this.key.linkUse(use.checkoutId), JSON.stringify(next.use))
        .zadd(this.key.linkUsesOf(code), member)
        .zadd(this.key.linkUsesHeld(), member);
      return { outcome: 'reserved', ...next };
    });
  }

  settleUse(
    checkoutId: string,
    to: 'paid' | 'released',
    at: number,
    effects: SettleEffects = {},
  ): Promise<{ link: LinkRecord; use: LinkUse } | undefined> {
    const useKey = this.key.linkUse(checkoutId);
    return this.transact(async (cas) => {
      const code = (await this.read<LinkUse>(useKey))?.code;
      if (code === undefined) return unchanged(undefined);
      // The use and its link in one read: read apart, another settle committing between the two
      // gave a held use beside a link that no longer holds it (a negative total held).
      const [rawUse = null, rawLink = null] = await this.redis.mget(useKey, this.key.link(code));
      const use = parse<LinkUse>(rawUse);
      if (use?.state !== 'held') return unchanged(undefined);
      const link = parse<LinkRecord>(rawLink);
      if (!link) return unchanged(undefined);
      const next = settled(link, use, to, at, effects.transactionId ?? null);
      cas
        .expect(useKey, rawUse)
        .expect(this.key.link(use.code), rawLink)
        .set(this.key.link(use.code), JSON.stringify(next.link))
        .set(useKey, JSON.stringify(next.use))
        .zrem(this.key.linkUsesHeld(), indexMember(use.createdAt, checkoutId));
      if (effects.events) await this.addEvents(cas, effects.events(next.link, next.use));
      return next;
    });
  }

  useByCheckout(checkoutId: string): Promise<LinkUse | undefined> {
    return this.read(this.key.linkUse(checkoutId));
  }

  async heldUses(limit: number): Promise<LinkUse[]> {
    const members = await this.redis.zrangebylex(this.key.linkUsesHeld(), '-', '+', 'LIMIT', 0, limit);
    const uses = await this.readAll<LinkUse>(members.map((member) => this.key.linkUse(idOfMember(member))));
    return uses.filter((use) => use.state === 'held');
  }

  async usesOf(code: string, query: { limit: number; cursor?: string | undefined }): Promise<LinkUsePage> {
    const after = query.cursor ? decodeLinkCursor(query.cursor) : undefined;
    const found = await newestFirst<LinkUse>(this.redis, {
      index: this.key.linkUsesOf(code),
      valueKey: this.key.linkUse,
      after: after && indexMember(after.createdAt, after.id),
      limit: query.limit,
    });
    const page = pageAfter(found, query.limit, false, (use) => [use.createdAt, use.checkoutId]);
    return { uses: page.items, nextCursor: page.nextCursor };
  }

  /**
   * One step on a link: `step` decides from the link as read, and its writes commit only if the link
   * is unchanged since (read again otherwise). Undefined when there is no link.
   */
  private onLink<T>(code: string, step: (link: LinkRecord, cas: Cas) => T | Unchanged<T>): Promise<T | undefined> {
    return this.transact<T | undefined>(async (cas) => {
      const link = await this.watch<LinkRecord>(cas, this.key.link(code));
      return link ? step(link, cas) : unchanged(undefined);
    });
  }
}
