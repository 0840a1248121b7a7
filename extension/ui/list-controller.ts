import { html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import { messageOf } from './client.ts';

export interface ListOptions<Item, Filter> {
  /** Reads the list for a filter (through the service worker, which asks the proxy). */
  load(filter: Filter): Promise<Item[]>;
  /** The filter the list starts with. */
  filter: Filter;
  /** What a failed read or action says (a missing permission in words, say); the error's message by default. */
  describe?: (error: unknown) => string;
}

export interface ListTable<Item, Filter> {
  /** The table's accessible name ("Orders"). */
  label: string;
  /** The column headings, in order ('' for a column of buttons). */
  headings: readonly string[];
  /** The heading of a column of buttons, heard by screen readers only (a header cell needs a name). */
  actions?: string;
  /** One item's row (or rows). */
  row(item: Item): unknown;
  /** What an empty list says, for the filter it was read with ("No orders."). */
  empty(filter: Filter): string;
  /** What shows until the first answer ("Loading…"). */
  loading: string;
}

/**
 * A list an operator view reads from the proxy: read when the view connects, again on refresh and
 * when the filter changes, with its loading state and the last error, which an action on the list
 * (a save, a delete) may also report. Only the newest read counts: a slow answer for an older filter
 * never replaces a newer one. `render` draws the states around the list, as Lit's Task does.
 */
export class ListController<Item, Filter = string> implements ReactiveController {
  private current: Item[] = [];
  private chosen: Filter;
  private pending = true;
  private failure?: string;
  /** Counts reads, so that an answer to a read that was overtaken is dropped. */
  private reads = 0;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly options: ListOptions<Item, Filter>,
  ) {
    this.chosen = options.filter;
    host.addController(this);
  }

  get items(): readonly Item[] {
    return this.current;
  }

  /** Replaces the items as they are shown (a live change), until the next read. */
  set items(items: readonly Item[]) {
    this.current = [...items];
    this.host.requestUpdate();
  }

  get filter(): Filter {
    return this.chosen;
  }

  /** True while a read is under way. */
  get loading(): boolean {
    return this.pending;
  }

  get error(): string | undefined {
    return this.failure;
  }

  private describe(error: unknown): string {
    return (this.options.describe ?? messageOf)(error);
  }

  hostConnected(): void {
    void this.refresh();
  }

  /** Reads the list again with the same filter. */
  async refresh(): Promise<void> {
    const read = ++this.reads;
    this.pending = true;
    this.host.requestUpdate();
    try {
      const items = await this.options.load(this.chosen);
      if (read !== this.reads) return;
      this.current = items;
      this.failure = undefined;
    } catch (error) {
      if (read !== this.reads) return;
      this.failure = this.describe(error);
    }
    this.pending = false;
    this.host.requestUpdate();
  }

  /** Reads the list with another filter. */
  setFilter(filter: Filter): Promise<void> {
    this.chosen = filter;
    return this.refresh();
  }

  /**
   * Runs an action on the list (a save, a delete). Its failure, or a refusal it throws before asking
   * anything, is shown as the list's error; on success `done` gets its answer and the list is read again.
   */
  async act<T>(action: () => Promise<T>, done: (value: T) => void): Promise<void> {
    let value: T;
    try {
      value = await action();
    } catch (error) {
      this.failure = this.describe(error);
      this.host.requestUpdate();
      return;
    }
    this.failure = undefined;
    done(value);
    this.host.requestUpdate();
    await this.refresh();
  }

  /** The error, then "Loading…" until the first answer, the empty list's words, or the table. */
  render(table: ListTable<Item, Filter>): TemplateResult {
    const body =
      this.pending && !this.current.length
        ? html`<p class="muted">${table.loading}</p>`
        : this.current.length === 0
          ? html`<p class="muted">${table.empty(this.chosen)}</p>`
          : html`<table aria-label=${table.label}>
              <thead>
                <tr>
                  ${table.headings.map((heading) =>
                    heading
                      ? html`<th>${heading}</th>`
                      : html`<th><span class="visually-hidden">${table.actions}</span></th>`,
                  )}
                </tr>
              </thead>
              <tbody>
                ${this.current.map((item) => table.row(item))}
              </tbody>
            </table>`;
    return html`${this.failure ? html`<p role="alert" class="error" id="list-error">${this.failure}</p>` : nothing}
    ${body}`;
  }
}
