import { html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { paymentListSchema, type OperatorPayment } from '../../schemas/proxy-api.ts';
import { formatMoney } from '../../widget/ui.ts';
import { PAYMENTS_PORT, paymentsPortMessageSchema } from '../messages.ts';
import { ask, messageOf } from './client.ts';
import { pageStyles } from './styles.ts';

const STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
const STREAM_TEXT = { live: 'Live', reconnecting: 'Reconnecting…', unavailable: 'Live status unavailable' } as const;

declare global {
  interface HTMLElementTagNameMap {
    'kassa-payments-view': KassaPaymentsView;
  }
}

/** The proxy's recent payments, newest first, with a status filter; statuses update live. */
@customElement('kassa-payments-view')
export class KassaPaymentsView extends LitElement {
  static override styles = pageStyles;

  @state() private payments: OperatorPayment[] = [];
  @state() private filter = '';
  @state() private error?: string;
  @state() private loading = true;
  @state() private stream: keyof typeof STREAM_TEXT = 'reconnecting';
  private port?: chrome.runtime.Port;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
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
    const index = this.payments.findIndex((payment) => payment.transactionId === change.transactionId);
    const matches = !this.filter || change.status === this.filter;
    if (index === -1) {
      if (matches && typeof change.status === 'string') this.payments = [change as OperatorPayment, ...this.payments];
      return;
    }
    const merged = { ...this.payments[index]!, ...change };
    this.payments = matches
      ? this.payments.map((payment, at) => (at === index ? merged : payment))
      : this.payments.filter((_, at) => at !== index);
  }

  private async load(): Promise<void> {
    this.loading = true;
    try {
      const list = paymentListSchema.parse(
        await ask({ kind: 'payments.list', status: this.filter || undefined, limit: 50 }),
      );
      this.payments = list.payments;
      this.error = undefined;
    } catch (error) {
      this.error = messageOf(error);
    } finally {
      this.loading = false;
    }
  }

  override render() {
    return html`
      <div class="row">
        <label
          >Status
          <select
            aria-label="Filter by status"
            @change=${(event: Event) => {
              this.filter = (event.target as HTMLSelectElement).value;
              void this.load();
            }}
          >
            <option value="">All</option>
            ${STATUSES.map((status) => html`<option value=${status}>${status}</option>`)}
          </select>
        </label>
        <button class="secondary small" @click=${() => void this.load()}>Refresh</button>
      </div>
      <p class="muted" aria-live="polite">${STREAM_TEXT[this.stream]}</p>
      ${this.error ? html`<p role="alert" class="error">${this.error}</p>` : nothing}
      ${
        this.loading && !this.payments.length
          ? html`<p class="muted">Loading…</p>`
          : this.payments.length === 0
            ? html`<p class="muted">No payments${this.filter ? ` with status ${this.filter}` : ''}.</p>`
            : html`<table aria-label="Payments">
                <thead>
                  <tr>
                    <th>Reference</th>
                    <th>Amount</th>
                    <th>Status</th>
                    <th>Updated</th>
                  </tr>
                </thead>
                <tbody>
                  ${this.payments.map(
                    (payment) =>
                      html`<tr data-transaction=${payment.transactionId}>
                        <td>${payment.reference}</td>
                        <td>${formatMoney(payment.amount, payment.currencyCode, navigator.language)}</td>
                        <td class="status">
                          ${payment.status}${payment.networkStatus ? html`<br /><span class="muted">${payment.networkStatus}</span>` : nothing}
                        </td>
                        <td>${new Date(payment.updatedAt).toLocaleTimeString()}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
      }
    `;
  }
}
