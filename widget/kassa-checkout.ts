import { html, nothing, type TemplateResult } from 'lit';
import type { PaymentStatusView } from '../schemas/proxy-api.ts';
import { CheckoutFlow } from './checkout/checkout-flow.ts';
import type { CheckoutErrorDetail, PaymentCreatedDetail } from './checkout/events.ts';
import type { CheckoutMessages } from './checkout/messages/en.ts';
import type { OnrampErrorDetail } from './onramp/events.ts';
import { summaryStyles } from './checkout/styles.ts';
import { formatMoney } from './shared/format.ts';
import { fill } from './shared/i18n.ts';
import { controls, statusStyles, tokens } from './shared/theme.ts';
import { actionView, loadingView, statusView, type Action, type Tone } from './shared/views.ts';

export type * from './checkout/events.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-checkout': KassaCheckout;
  }
  interface HTMLElementEventMap {
    'kassa-payment-created': CustomEvent<PaymentCreatedDetail>;
    'kassa-status': CustomEvent<PaymentStatusView>;
    'kassa-completed': CustomEvent<PaymentStatusView>;
    'kassa-failed': CustomEvent<PaymentStatusView>;
    /** From <kassa-checkout>, and from <kassa-onramp> (which also passes on its embedded checkout's). */
    'kassa-error': CustomEvent<CheckoutErrorDetail | OnrampErrorDetail>;
  }
}

const FAILURE_REASONS: Record<string, keyof CheckoutMessages> = { CANCELLED: 'cancelled', REJECTED: 'rejected' };

/**
 * A "Pay by bank" checkout. It shows the amount of a checkout the shop's server created, starts the
 * payment through the shop's Kassa proxy, sends the customer to their bank, and shows the payment's
 * live status when they come back (`kassa_status` in the address), in this tab or a new one.
 *
 * @fires kassa-payment-created - The payment exists and the customer is about to go to the bank. Cancelable: call `preventDefault()` to send them to `detail.flowUrl` yourself (an in-app browser, say).
 * @fires kassa-status - Each new status of the payment (`PaymentStatusView`), the current one first.
 * @fires kassa-completed - The payment completed (`PaymentStatusView`); also after a reload. De-duplicate on `transactionId`.
 * @fires kassa-failed - The payment failed (`PaymentStatusView`): `networkStatus` says why, `retryable` whether a new attempt may be made.
 * @fires kassa-error - The element could not go on (`CheckoutErrorDetail`): proxy unreachable, refused, rate limited...
 *
 * @csspart container - The surface around everything.
 * @csspart amount - The formatted amount.
 * @csspart badge - The sandbox badge.
 * @csspart reference - The payment reference.
 * @csspart status - The live status line (an aria-live region).
 * @csspart button - The main button: pay, continue at the bank, or try again.
 * @csspart secondary - The other way to pay: with your phone, or in this browser.
 * @csspart phone - Paying with the phone: the QR code, the link and its copy button.
 * @csspart qr - The QR code of the hand-off link (an SVG image).
 * @csspart handoff-url - The hand-off link as text.
 * @csspart qr-note - Under the QR code, when the link is on this very computer (127.0.0.1): a phone cannot open it.
 * @csspart receipt - The receipt of a completed payment: amount, reference, date, bank, and the reference to quote.
 * @csspart receipt-quote - The payment's reference to quote to the bank.
 * @csspart amount-input - Open amount: the field the customer types the amount in.
 * @csspart amount-hint - Open amount: the bounds, or why the amount typed cannot be paid.
 *
 * @cssprop --kassa-color-background - Surface colour.
 * @cssprop --kassa-color-text - Text colour.
 * @cssprop --kassa-color-muted - Secondary text (the reference).
 * @cssprop --kassa-color-border - Surface border.
 * @cssprop --kassa-color-primary - Button colour.
 * @cssprop --kassa-color-on-primary - Button text colour.
 * @cssprop --kassa-color-success - Completed status.
 * @cssprop --kassa-color-danger - Failure and error status.
 * @cssprop --kassa-color-focus - Keyboard focus ring.
 * @cssprop --kassa-color-badge-background - Sandbox badge background.
 * @cssprop --kassa-color-badge-text - Sandbox badge text.
 * @cssprop --kassa-font-family - Font.
 * @cssprop --kassa-font-size - Base font size; everything scales with it.
 * @cssprop --kassa-radius - Corner radius of the surface (the button's follows).
 * @cssprop --kassa-spacing - Inner spacing.
 */
export class KassaCheckout extends CheckoutFlow {
  static override styles = [tokens, controls, summaryStyles, statusStyles];

  /** The status line: its text, tone and whether a spinner shows. */
  private statusLine(m: CheckoutMessages): [text: string, tone: Tone, busy: boolean] {
    switch (this.phase) {
      case 'creating':
      case 'redirecting':
      case 'waiting':
        return [m[this.phase], '', true];
      case 'authorising':
        return [m.authorising, '', false];
      case 'phone':
        return [this.phone!.m(this.i18n.locale).scan, '', false];
      case 'completed':
        return [m.completed, 'success', false];
      case 'failed': {
        const reason = m[FAILURE_REASONS[this.payment?.networkStatus ?? ''] ?? 'bankError'];
        return [`${m.failed} ${reason}${this.canPayAgain() ? '' : ` ${m.contactShop}`}`, 'danger', false];
      }
      case 'error':
        return [...this.problems.line(m, this.i18n.locale), false];
      default:
        // Loading: the skeleton's own busy sign (theme.ts), nothing in this line that could move.
        return ['', '', false];
    }
  }

  /** Open amount: what was typed cannot be paid, so neither way to pay can be used yet (they say so, and stay focusable). */
  private get unpayable(): false | 'disabled' {
    return !!this.field && !this.field.amount && 'disabled';
  }

  /** The proxy says whether a failed payment may be followed by a new one; an open amount also needs its attributes here. */
  private canPayAgain(): boolean {
    return !!this.payment?.retryable && (this.payment.checkoutId !== null || !!this.amount || !!this.field);
  }

  /** The one button: its label, what it does, and whether it is busy. */
  private button(m: CheckoutMessages): Action | undefined {
    switch (this.phase) {
      case 'ready':
      case 'creating':
      case 'redirecting':
        return [m.pay, () => void this.pay(), this.phase !== 'ready' || this.unpayable];
      case 'authorising':
        return [m.continue, () => void this.pay()];
      case 'phone':
        return [this.phone!.m(this.i18n.locale).payInBrowser, () => void this.pay()];
      case 'failed':
        return this.canPayAgain()
          ? [this.payment?.networkStatus === 'REJECTED' ? m.anotherBank : m.tryAgain, () => this.payAgain()]
          : undefined;
      case 'error':
        return this.problems.retryAction(m.tryAgain) ?? this.changeAmount('button');
      case 'completed':
        return this.field && [this.field.m(this.i18n.locale).startAgain, () => this.startAgain()];
      default:
        return undefined;
    }
  }

  /** Open amount: back to the field, for another amount (a new attempt). */
  private changeAmount(part: 'button' | 'secondary'): Action | undefined {
    const { field } = this;
    const locale = this.i18n.locale;
    return (
      field && [
        field.m(locale).changeAmount,
        () => (field.prefill(this.payment?.amount, locale), this.startAgain(false)),
        false,
        part,
      ]
    );
  }

  /** Open amount: a new payment, from the field (emptied after a completed one, so a page can take another). */
  private startAgain(empty = true): void {
    this.attempts?.clear();
    if (empty) this.field!.text = '';
    void this.load();
  }

  override render(): TemplateResult {
    if (!this.i18n.ready) return loadingView();
    const m = this.i18n.messages;
    const { summary } = this;
    const button = this.button(m);
    return html`<div part="container" class="surface" aria-busy=${this.phase === 'loading' ? 'true' : 'false'}>
      ${
        summary
          ? html`<div class="summary">
                ${
                  this.field && this.phase === 'ready'
                    ? this.field.view(this.i18n.locale)
                    : html`<span part="amount" class="amount"
                        >${formatMoney(summary.amount, summary.currencyCode, this.i18n.locale)}</span
                      >`
                }
                ${summary.environment === 'sandbox' ? html`<span part="badge" class="badge">${m.sandbox}</span>` : nothing}
              </div>
              ${summary.reference ? html`<p part="reference" class="reference">${fill(m.reference, { reference: summary.reference })}</p>` : nothing}`
          : nothing
      }
      ${statusView(...this.statusLine(m))} ${this.phase === 'phone' ? this.phone!.view(this.i18n.locale) : nothing}
      ${this.phase === 'completed' && this.receipt && this.payment ? this.receipt.view(this.payment, this.i18n.locale) : nothing}
      ${button ? actionView(button) : nothing}
      ${this.phase === 'failed' && this.field ? actionView(this.changeAmount('secondary')!) : nothing}
      ${this.phone && this.phase === 'ready' ? actionView([this.phone.m(this.i18n.locale).payWithPhone, () => void this.payOnPhone(), this.unpayable, 'secondary']) : nothing}
    </div>`;
  }
}

customElements.define('kassa-checkout', KassaCheckout);
