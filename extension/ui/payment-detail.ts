import { css, html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { OperatorPayment } from '../../schemas/proxy-api.ts';
import { formatMoney } from '../../widget/ui.ts';
import { paneHeader } from './pane-header.ts';
import { pageStyles } from './styles.ts';
import { fill, UiLocale, type ExtensionMessages } from './ui-locale.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-payment-detail': KassaPaymentDetail;
  }
}

/** The network statuses the payment service reports, each with its words. */
const NETWORK_WORDS = {
  INITIATED: 'networkInitiated',
  AUTHORISED: 'networkAuthorised',
  PAYMENT_EXECUTED_CREDITED: 'networkCredited',
  CANCELLED: 'networkCancelled',
  REJECTED: 'networkRejected',
} as const satisfies Record<string, keyof ExtensionMessages>;

/** A payment's network status in words, in the user's language; an unknown one by its code. */
export function networkStatusWords(status: string | null | undefined, m: ExtensionMessages): string {
  if (!status) return m.networkNone;
  const key = (NETWORK_WORDS as Record<string, keyof ExtensionMessages | undefined>)[status];
  return key ? m[key] : fill(m.networkOther, { code: status });
}

/**
 * One payment as the operator looks it up: its transaction id (with Copy), reference, amount, bank,
 * checkout, its dates in the user's language and its network status in words. A payment only
 * announced on the live stream so far shows what the stream said.
 *
 * @fires kassa-close - The Close button was pressed.
 *
 * @csspart copy - The Copy button.
 */
@customElement('kassa-payment-detail')
export class KassaPaymentDetail extends LitElement {
  static override styles = [
    ...pageStyles,
    css`
      :host {
        display: block;
      }
      .id {
        display: flex;
        gap: 0.5rem;
        align-items: start;
      }
      .id span {
        flex: 1;
        min-width: 0;
      }
    `,
  ];

  /** The payment shown. */
  @property({ attribute: false }) payment?: Partial<OperatorPayment> & { transactionId: string };
  @state() private copied?: 'ok' | 'failed';

  private readonly locale = new UiLocale(this);

  protected override willUpdate(changed: Map<string, unknown>): void {
    const before = changed.get('payment') as { transactionId?: string } | undefined;
    if (changed.has('payment') && before?.transactionId !== this.payment?.transactionId) this.copied = undefined;
  }

  private async copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(this.payment!.transactionId);
      this.copied = 'ok';
    } catch {
      this.copied = 'failed';
    }
  }

  override render() {
    const payment = this.payment;
    if (!payment) return nothing;
    const { m, language } = this.locale;
    const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString(language) : '—');
    const bank = [payment.providerId, payment.paymentRail].filter(Boolean).join(' · ');
    return html`<section class="card" aria-label=${fill(m.paymentLabel, { reference: payment.reference ?? '' })}>
      ${paneHeader(this, payment.reference ?? m.payment, m.close)}
      <dl>
        <dt>${m.transactionId}</dt>
        <dd class="id">
          <span class="mono" id="transaction-id">${payment.transactionId}</span>
          <button part="copy" class="secondary small" @click=${() => void this.copy()}>${m.copy}</button>
        </dd>
        <dt>${m.amount}</dt>
        <dd>${payment.amount ? formatMoney(payment.amount, payment.currencyCode ?? 'EUR', language) : '—'}</dd>
        <dt>${m.status}</dt>
        <dd class="status">${payment.status ?? '—'}</dd>
        <dt>${m.networkStatus}</dt>
        <dd id="network-status">${networkStatusWords(payment.networkStatus, m)}</dd>
        <dt>${m.bank}</dt>
        <dd>${bank || '—'}</dd>
        <dt>${m.checkout}</dt>
        <dd class="mono">${payment.checkoutId ?? '—'}</dd>
        <dt>${m.networkPaymentId}</dt>
        <dd class="mono">${payment.networkPaymentId ?? '—'}</dd>
        <dt>${m.started}</dt>
        <dd>${when(payment.initiatedAt)}</dd>
        <dt>${m.updated}</dt>
        <dd>${when(payment.updatedAt)}</dd>
        <dt>${m.completedAt}</dt>
        <dd>${when(payment.completedAt)}</dd>
        <dt>${m.lastChecked}</dt>
        <dd>${when(payment.lastCheckedAt)}</dd>
      </dl>
      ${
        this.copied
          ? html`<p role="status" class=${this.copied === 'ok' ? 'ok' : 'error'}>
              ${this.copied === 'ok' ? m.copied : m.copyFailed}
            </p>`
          : nothing
      }
    </section>`;
  }
}
