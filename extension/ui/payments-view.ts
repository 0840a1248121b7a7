import { html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { paymentListSchema, type OperatorPayment } from '../../schemas/proxy-api.ts';
import { formatMoney } from '../../widget/ui.ts';
import { PAYMENTS_PORT, paymentsPortMessageSchema } from '../messages.ts';
import { ask } from './client.ts';
import type { FilterChangeDetail } from './filter-bar.ts';
import './filter-bar.ts';
import { ListController } from './list-controller.ts';
import { pageStyles } from './styles.ts';
import { fill, UiLocale } from './ui-locale.ts';

const STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
const STREAM_TEXT = {
  live: 'streamLive',
  reconnecting: 'streamReconnecting',
  unavailable: 'streamUnavailable',
} as const;
const LIMIT = 50;

declare global {
  interface HTMLElementTagNameMap {
    'kassa-payments-view': KassaPaymentsView;
  }
}

/** The proxy's recent payments, newest first, with a status filter; statuses update live. */
@customElement('kassa-payments-view')
export class KassaPaymentsView extends LitElement {
  static override styles = pageStyles;

  private readonly list = new ListController<OperatorPayment>(this, {
    filter: '',
    load: async (status) =>
      paymentListSchema.parse(await ask({ kind: 'payments.list', status: status || undefined, limit: LIMIT })).payments,
  });
  @state() private stream: keyof typeof STREAM_TEXT = 'reconnecting';
  private port?: chrome.runtime.Port;
  private readonly locale = new UiLocale(this);

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

  /** A status change: the row changes in place, or a new payment appears on top if the filter allows. */
  private apply(change: Partial<OperatorPayment>): void {
    if (typeof change.transactionId !== 'string') return;
    const payments = this.list.items;
    const index = payments.findIndex((payment) => payment.transactionId === change.transactionId);
    const matches = !this.list.filter || change.status === this.list.filter;
    if (index === -1) {
      if (matches && typeof change.status === 'string') this.list.items = [change as OperatorPayment, ...payments];
      return;
    }
    const merged = { ...payments[index]!, ...change };
    this.list.items = matches
      ? payments.map((payment, at) => (at === index ? merged : payment))
      : payments.filter((_, at) => at !== index);
  }

  override render() {
    const { m, language } = this.locale;
    return html`
      <kassa-filter-bar
        .choices=${STATUSES}
        .value=${this.list.filter}
        @kassa-filter-change=${(event: CustomEvent<FilterChangeDetail>) => void this.list.setFilter(event.detail.value)}
        @kassa-refresh=${() => void this.list.refresh()}
      ></kassa-filter-bar>
      <p class="muted" aria-live="polite">${m[STREAM_TEXT[this.stream]]}</p>
      ${this.list.render({
        label: m.payments,
        loading: m.loading,
        headings: [m.reference, m.amount, m.status, m.updated],
        row: (payment) =>
          html`<tr data-transaction=${payment.transactionId}>
            <td>${payment.reference}</td>
            <td>${formatMoney(payment.amount, payment.currencyCode, language)}</td>
            <td class="status">
              ${payment.status}${payment.networkStatus ? html`<br /><span class="muted">${payment.networkStatus}</span>` : nothing}
            </td>
            <td>${new Date(payment.updatedAt).toLocaleTimeString(language)}</td>
          </tr>`,
        empty: (filter) => (filter ? fill(m.noPaymentsWith, { status: filter }) : m.noPayments),
      })}
    `;
  }
}
