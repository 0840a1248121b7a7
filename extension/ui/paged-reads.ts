import type { ReactiveControllerHost } from 'lit';

/** One page of a list, as the proxy gives it. */
export interface ReadPage<Item> {
  items: Item[];
  nextCursor: string | null;
}

export interface PagedReadsOptions<Item> {
  /** Reads the page at `cursor` (the first without one); undefined when there is nothing to read now. */
  read(cursor: string | undefined): Promise<ReadPage<Item>> | undefined;
  /** A read failed (and was still the newest). */
  failed(error: unknown): void;
}

/**
 * A list a detail pane reads a page at a time (a link's payments, a destination's deliveries): the
 * first page again on `load()`, the page after those shown on `load(true)`. Only the newest read
 * counts: an answer for an item no longer shown, or for another filter, is dropped. The host is
 * updated when a page comes.
 */
export class PagedReads<Item> {
  /** The items read so far; undefined until the first page comes. */
  items?: Item[];
  nextCursor: string | null = null;
  /** Counts reads, so that an answer to a read that was overtaken is dropped. */
  private reads = 0;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly options: PagedReadsOptions<Item>,
  ) {}

  /** Forgets the items shown (another item is shown): nothing until the next read answers. */
  clear(): void {
    this.reads++;
    this.items = undefined;
    this.nextCursor = null;
    this.host.requestUpdate();
  }

  /** Reads the first page again, or (`more`) the page after those shown. */
  async load(more = false): Promise<void> {
    const read = ++this.reads;
    const reading = this.options.read(more ? (this.nextCursor ?? undefined) : undefined);
    if (!reading) return;
    try {
      const page = await reading;
      if (read !== this.reads) return;
      this.items = more ? [...(this.items ?? []), ...page.items] : page.items;
      this.nextCursor = page.nextCursor;
      this.host.requestUpdate();
    } catch (error) {
      if (read === this.reads) this.options.failed(error);
    }
  }
}
