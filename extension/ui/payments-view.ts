import { css, html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { paymentListSchema, type OperatorPayment } from '../../schemas/proxy-api.ts';
import { formatMoney } from '../../widget/ui.ts';
import { PAYMENTS_PORT, paymentsPortMessageSchema, type PaymentSearch } from '../messages.ts';
import { ask, messageOf } from './client.ts';
import { ListController } from './list-controller.ts';
import './payment-detail.ts';
import { matchesSearch, type SearchDetail } from './payment-search.ts';
import './payment-search.ts';
import { outsideText } from './outside-text.ts';
import { fittedTable, pageStyles, rowLinks } from './styles.ts';
import { refusalText } from './refusal.ts';
import { saveFile } from './save-file.ts';
import { SessionController } from './session-controller.ts';
import { fill, UiLocale } from './ui-locale.ts';
import type { ResolvedDetail } from './unverifiable-payments.ts';
import './unverifiable-payments.ts';

const STREAM_TEXT = {
  live: 'streamLive',
  reconnecting: 'streamReconnecting',
  unavailable: 'streamUnavailable',
} as const;
const LIMIT = 50;

/** A payment as listed, or as the live stream announced it (without the operator's fields yet). */
type ListedPayment = Partial<OperatorPayment> & { transactionId: string };

declare global {
  interface HTMLElementTagNameMap {
    'kassa-payments-view': KassaPaymentsView;
  }
}

/**
 * The proxy's payments, newest first, searched by status, reference, checkout, days and amounts:
 * new payments appear and statuses change live, one payment opens in a detail pane, the search
 * downloads as CSV (for a role with `payments:export`), and the payments Kassa can no longer verify
 * are listed above for the operator to resolve. Fits a 360 px side panel without sideways scrolling.
 */
@customElement('kassa-payments-view')
export class KassaPaymentsView extends LitElement {
  static override styles = [
    ...pageStyles,
    fittedTable,
    rowLinks,
    css`
      th:nth-child(2),
      th:nth-child(3) {
        inline-size: 24%;
      }
      th:nth-child(4) {
        inline-size: 22%;
      }
    `,
  ];

  /** Where the next page of the list starts; null when there is none. */
  @state() private nextCursor: string | null = null;
  private readonly list = new ListController<ListedPayment, PaymentSearch>(this, {
    filter: {},
    load: async (search) => {
      const page = paymentListSchema.parse(await ask({ kind: 'payments.list', ...search, limit: LIMIT }));
      this.nextCursor = page.nextCursor;
      return page.payments;
    },
  });
  @state() private stream: keyof typeof STREAM_TEXT = 'reconnecting';
  @state() private selected?: string;
  @state() private notice?: string;
  @state() private error?: string;
  @state() private busy = false;
  private port?: chrome.runtime.Port;
  private readonly locale = new UiLocale(this);
  private readonly session = new SessionController(this);

  override connectedCallback(): void {
    super.connectedCallback();
    this.port = chrome.runtime.connect({ name: PAYMENTS_PORT });
    this.port.onMessage.addListener((message: unknown) => {
      const parsed = paymentsPortMessageSchema.safeParse(message);
      if (!parsed.success) return;
      if (parsed.data.type === 'stream') this.stream = parsed.data.state;
      else this.apply(parsed.data.payment);
    });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.port?.disconnect();
  }

  /**
   * A payment announced live: a known row changes in place (or leaves a search it no longer
   * matches); an unknown one, a new payment, appears on top when the search allows.
   */
  private apply(change: Partial<OperatorPayment>): void {
    if (typeof change.transactionId !== 'string' || typeof change.status !== 'string') return;
    const payments = this.list.items;
    const index = payments.findIndex((payment) => payment.transactionId === change.transactionId);
    const merged: ListedPayment = { ...payments[index], ...change, transactionId: change.transactionId };
    const matches = matchesSearch(merged, this.list.filter);
    if (index === -1) {
      if (matches) this.list.items = [merged, ...payments];
      return;
    }
    this.list.items = matches
      ? payments.map((payment, at) => (at === index ? merged : payment))
      : payments.filter((_, at) => at !== index);
  }

  private async more(): Promise<void> {
    if (!this.nextCursor) return;
    this.busy = true;
    try {
      const page = paymentListSchema.parse(
        await ask({ kind: 'payments.list', ...this.list.filter, limit: LIMIT, cursor: this.nextCursor }),
      );
      const known = new Set(this.list.items.map((payment) => payment.transactionId));
      this.list.items = [...this.list.items, ...page.payments.filter((payment) => !known.has(payment.transactionId))];
      this.nextCursor = page.nextCursor;
    } catch (error) {
      this.error = messageOf(error);
    } finally {
      this.busy = false;
    }
  }

  /** The worker reads the export; the page saves it through a link to it (no downloads permission needed). */
  private async download(): Promise<void> {
    this.busy = true;
    this.notice = this.error = undefined;
    try {
      const { filename, csv } = await ask({ kind: 'payments.export', ...this.list.filter });
      saveFile(this.renderRoot, { filename, text: csv, type: 'text/csv;charset=utf-8' });
      this.notice = fill(this.locale.m.csvDownloaded, { file: filename });
    } catch (error) {
      this.error = refusalText(error, this.locale);
    } finally {
      this.busy = false;
    }
  }

  /** Reads the list and the unverifiable payments again. */
  private readonly refresh = (): void => {
    void this.list.refresh();
    void this.renderRoot.querySelector('kassa-unverifiable-payments')?.load();
  };

  private readonly onResolved = (event: CustomEvent<ResolvedDetail>): void => this.apply(event.detail.payment);

  private row(payment: ListedPayment) {
    const { m, language } = this.locale;
    const reference = payment.reference ?? payment.transactionId;
    return html`<tr
      data-transaction=${payment.transactionId}
      aria-selected=${this.selected === payment.transactionId ? 'true' : 'false'}
    >
      <td>
        <button
          aria-label=${fill(m.detailsOf, { id: reference })}
          @click=${() => (this.selected = payment.transactionId)}
        >
          ${outsideText(reference)}
        </button>
      </td>
      <td>
        ${payment.amount ? outsideText(formatMoney(payment.amount, payment.currencyCode ?? 'EUR', language)) : ''}
      </td>
      <td class="status">${outsideText(payment.status)}</td>
      <td>
        ${
          payment.updatedAt
            ? new Date(payment.updatedAt).toLocaleString(language, { dateStyle: 'short', timeStyle: 'short' })
            : ''
        }
      </td>
    </tr>`;
  }

  override render() {
    const { m } = this.locale;
    const selected = this.list.items.find((payment) => payment.transactionId === this.selected);
    return html`
      <kassa-unverifiable-payments @kassa-resolved=${this.onResolved}></kassa-unverifiable-payments>
      <kassa-payment-search
        .value=${this.list.filter}
        @kassa-search=${(event: CustomEvent<SearchDetail>) => void this.list.setFilter(event.detail.search)}
      ></kassa-payment-search>
      <div class="row">
        <p class="muted" aria-live="polite">${m[STREAM_TEXT[this.stream]]}</p>
        <button class="secondary small" @click=${this.refresh}>${m.refresh}</button>
        ${
          this.session.can('payments:export')
            ? html`<button class="secondary small" ?disabled=${this.busy} @click=${() => void this.download()}>
                ${m.downloadCsv}
              </button>`
            : nothing
        }
      </div>
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
      ${this.error ? html`<p role="alert" class="error">${this.error}</p>` : nothing}
      ${
        selected
          ? html`<kassa-payment-detail
              .payment=${selected}
              @kassa-close=${() => (this.selected = undefined)}
            ></kassa-payment-detail>`
          : nothing
      }
      ${this.list.render({
        label: m.payments,
        loading: m.loading,
        headings: [m.reference, m.amount, m.status, m.updated],
        row: (payment) => this.row(payment),
        empty: (search) =>
          search.status && Object.keys(search).length === 1
            ? fill(m.noPaymentsWith, { status: search.status })
            : Object.keys(search).length
              ? m.noPaymentsFound
              : m.noPayments,
      })}
      ${
        this.nextCursor
          ? html`<button class="secondary small" ?disabled=${this.busy} @click=${() => void this.more()}>
              ${m.loadMore}
            </button>`
          : nothing
      }
    `;
  }
}
