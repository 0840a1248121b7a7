import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { HistoryStore, type HistoryEntry, type HistoryState } from './history-store.ts';
import type { TransferRecord } from './transfer-store.ts';

/** What a state change adds to a transfer's entry. */
export type HistoryChange = Partial<Omit<HistoryEntry, 'id' | 'scope' | 'account' | 'record' | 'sentAt'>> & {
  state: HistoryState;
};

const COPIED_MS = 2_000;

/**
 * The panel's transfer history: the connected account's recent transfers (read again when the
 * account changes), the one whose receipt is open, and the entry of each transfer the panel sends
 * or follows, written at every change of state so that it outlives the page.
 */
export class HistoryController implements ReactiveController {
  /** The account's transfers, newest first (empty while not connected). */
  entries: HistoryEntry[] = [];
  /** The transfer whose receipt is open. */
  selected?: HistoryEntry;
  /** What was just copied (a hash, an address), for "Copied" beside its button. */
  copied?: string;
  private scope = '';
  private account?: string;
  private generation = 0;
  private copiedTimer?: ReturnType<typeof setTimeout>;
  /** The entries written by this page, by id: each change builds on the last. */
  private readonly current = new Map<string, HistoryEntry>();

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly options: { account(): string | undefined; store?: HistoryStore },
    private readonly store = options.store ?? new HistoryStore(),
  ) {
    host.addController(this);
  }

  hostUpdate(): void {
    const account = this.options.account()?.toLowerCase();
    if (account !== this.account) {
      this.account = account;
      this.selected = undefined;
      void this.reload();
    }
  }

  hostDisconnected(): void {
    clearTimeout(this.copiedTimer);
  }

  /** A new listing: the history of this proxy and network. */
  open(scope: string): void {
    this.scope = scope;
    this.current.clear();
    this.selected = undefined;
    void this.reload();
  }

  /** The newest transfer of this proxy and network still under way, to follow again (after a browser restart). */
  async underWay(): Promise<TransferRecord | undefined> {
    const entry = await this.store.underWay(this.scope);
    if (entry) this.current.set(entry.id, entry);
    return entry?.record;
  }

  /** The transfer's entry as this page last wrote it. */
  entryOf(record: TransferRecord): HistoryEntry | undefined {
    return this.current.get(record.id ?? record.hash);
  }

  /** Writes a transfer's new state (and what came with it) to the history. */
  async update(record: TransferRecord, change: HistoryChange): Promise<void> {
    const id = record.id ?? record.hash;
    const before = this.current.get(id);
    const entry: HistoryEntry = {
      ...before,
      ...change,
      id,
      scope: before?.scope ?? this.scope,
      account: record.from.toLowerCase(),
      record: { ...record },
      sentAt: record.sentAt,
      updatedAt: Date.now(),
    };
    this.current.set(id, entry);
    if (this.selected?.id === id) this.selected = entry;
    const index = this.entries.findIndex((kept) => kept.id === id);
    if (index >= 0) this.entries[index] = entry;
    else if (entry.account === this.account && entry.scope === this.scope) this.entries.unshift(entry);
    this.host.requestUpdate();
    await this.store.put(entry);
  }

  show(id: string): void {
    this.selected = this.entries.find((entry) => entry.id === id);
    this.host.requestUpdate();
  }

  close(): void {
    this.selected = undefined;
    this.host.requestUpdate();
  }

  /** Copies `text` to the clipboard, and says so beside the button for a moment. */
  async copy(text: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      return; // Refused (no permission, not focused): the text stays selectable.
    }
    this.copied = text;
    clearTimeout(this.copiedTimer);
    this.copiedTimer = setTimeout(() => {
      this.copied = undefined;
      this.host.requestUpdate();
    }, COPIED_MS);
    this.host.requestUpdate();
  }

  private async reload(): Promise<void> {
    const generation = ++this.generation;
    const { scope, account } = this;
    const entries = account && scope ? await this.store.list(scope, account) : [];
    if (generation !== this.generation) return;
    this.entries = entries.map((entry) => this.current.get(entry.id) ?? entry);
    this.host.requestUpdate();
  }
}
