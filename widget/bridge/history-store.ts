import type { TransferRecord } from './transfer-store.ts';

/** Where a transfer is: sent, mined on the source chain, minted on the destination, late, refunded, or failed for good. */
export type HistoryState = 'submitted' | 'confirmed' | 'arrived' | 'delayed' | 'refunded' | 'failed';

/** States a transfer may still leave: opening the panel follows such a transfer again. */
export const UNDER_WAY: readonly HistoryState[] = ['submitted', 'confirmed', 'delayed'];

/**
 * One transfer in the browser's history. Public facts only (hashes, addresses, amounts), as the
 * chains show them to anyone; kept per proxy and network (`scope`) and account.
 */
export interface HistoryEntry {
  /** The transfer's first hash: it stays its name after a wallet's speed-up changes `record.hash`. */
  id: string;
  scope: string;
  /** Lower case, as the index compares it. */
  account: string;
  state: HistoryState;
  record: TransferRecord;
  sentAt: number;
  updatedAt: number;
  /** The relayer's mint on the destination chain, or its refund on the source chain. */
  destinationHash?: string;
  refundHash?: string;
  /** The account's token balances on both chains once it arrived (or was refunded), base units. */
  sourceBalance?: string;
  destinationBalance?: string;
  /** What the burn cost in the source chain's native coin, base units (gas used × price paid). */
  fee?: string;
  /** The failure's kind (`reverted`, `dropped`...), when failed. */
  failure?: string;
}

const DB = 'kassa-bridge';
const STORE = 'transfers';
const BY_ACCOUNT = 'scope-account-sent';
const BY_SCOPE = 'scope-sent';

const done = <T>(request: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });

/**
 * The transfer history in IndexedDB, so it outlives the tab and the browser session. Where the
 * browser refuses storage (private modes, blocked cookies) it is kept in memory for the page's life.
 */
export class HistoryStore {
  private db?: Promise<IDBDatabase | undefined>;
  private readonly memory = new Map<string, HistoryEntry>();

  constructor(private readonly name = DB) {}

  private open(): Promise<IDBDatabase | undefined> {
    this.db ??= new Promise<IDBDatabase | undefined>((resolve) => {
      let request: IDBOpenDBRequest;
      try {
        request = indexedDB.open(this.name, 1);
      } catch {
        return resolve(undefined);
      }
      request.onupgradeneeded = () => {
        const store = request.result.createObjectStore(STORE, { keyPath: 'id' });
        store.createIndex(BY_ACCOUNT, ['scope', 'account', 'sentAt']);
        store.createIndex(BY_SCOPE, ['scope', 'sentAt']);
      };
      request.onsuccess = () => {
        const db = request.result;
        // Another tab (or a test) deleting or upgrading the database must not wait on this one.
        db.onversionchange = () => {
          db.close();
          this.db = undefined;
        };
        resolve(db);
      };
      request.onerror = () => resolve(undefined);
      request.onblocked = () => resolve(undefined);
    });
    return this.db;
  }

  async put(entry: HistoryEntry): Promise<void> {
    this.memory.set(entry.id, entry);
    const db = await this.open();
    if (!db) return;
    try {
      const tx = db.transaction(STORE, 'readwrite');
      tx.objectStore(STORE).put(entry);
      await new Promise<void>((resolve, reject) => {
        tx.oncomplete = () => resolve();
        tx.onerror = tx.onabort = () => reject(tx.error ?? new Error('IndexedDB write failed'));
      });
      this.memory.delete(entry.id);
    } catch {
      // Kept in memory: the history shows it for this page's life.
    }
  }

  /** The account's transfers in `scope`, newest first, at most `limit`. */
  async list(scope: string, account: string, limit = 10): Promise<HistoryEntry[]> {
    const who = account.toLowerCase();
    const range = IDBKeyRange.bound([scope, who, -Infinity], [scope, who, Infinity]);
    const kept = [...this.memory.values()].filter((entry) => entry.scope === scope && entry.account === who);
    return this.merge(await this.read(BY_ACCOUNT, range, limit), kept, limit);
  }

  /** The newest transfer in `scope` still under way, of any account (after a browser restart, before a wallet connects). */
  async underWay(scope: string): Promise<HistoryEntry | undefined> {
    const range = IDBKeyRange.bound([scope, -Infinity], [scope, Infinity]);
    const kept = [...this.memory.values()].filter((entry) => entry.scope === scope);
    const entries = this.merge(await this.read(BY_SCOPE, range, 20), kept, 20);
    return entries.find((entry) => UNDER_WAY.includes(entry.state));
  }

  private merge(stored: HistoryEntry[], kept: HistoryEntry[], limit: number): HistoryEntry[] {
    const byId = new Map(stored.map((entry) => [entry.id, entry]));
    for (const entry of kept) byId.set(entry.id, entry);
    return [...byId.values()].sort((a, b) => b.sentAt - a.sentAt).slice(0, limit);
  }

  private async read(index: string, range: IDBKeyRange, limit: number): Promise<HistoryEntry[]> {
    const db = await this.open();
    if (!db) return [];
    try {
      const request = db.transaction(STORE).objectStore(STORE).index(index).openCursor(range, 'prev');
      const entries: HistoryEntry[] = [];
      return await new Promise<HistoryEntry[]>((resolve, reject) => {
        request.onsuccess = () => {
          const cursor = request.result;
          if (!cursor || entries.length >= limit) return resolve(entries);
          entries.push(cursor.value as HistoryEntry);
          cursor.continue();
        };
        request.onerror = () => reject(request.error ?? new Error('IndexedDB read failed'));
      });
    } catch {
      return [];
    }
  }

  /** Forgets everything (tests, and a user's "clear history"). */
  async clear(): Promise<void> {
    this.memory.clear();
    const db = await this.open();
    if (db) await done(db.transaction(STORE, 'readwrite').objectStore(STORE).clear()).catch(() => undefined);
  }
}
