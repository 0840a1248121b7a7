import { html, LitElement, nothing, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import type { PaymentStatusView } from '../schemas/proxy-api.ts';
import { checkoutCatalogs } from './checkout/checkout-catalogs.ts';
import { CheckoutFlow } from './checkout/checkout-flow.ts';
import type { CheckoutErrorDetail, CheckoutPhase, PaymentCreatedDetail } from './checkout/events.ts';
import type { CheckoutMessages } from './checkout/messages/en.ts';
import type { OnrampErrorDetail } from './onramp/events.ts';
import { summaryStyles } from './checkout/styles.ts';
import { formatMoney } from '../lib/format-money.ts';
import { fill } from './shared/i18n.ts';
import { LocaleController } from './shared/locale-controller.ts';
import { SCRIPT_ORIGIN } from './shared/proxy-client.ts';
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
export class KassaCheckout extends LitElement {
  static override styles = [tokens, controls, summaryStyles, statusStyles];

  // Declared here rather than with decorators: Lit's decorators would add their code to kassa.js.
  static override properties: PropertyDeclarations = {
    proxy: {},
    checkout: {},
    amount: {},
    currency: {},
    reference: {},
    returnUrl: { attribute: 'return-url' },
    locale: {},
    mode: {},
    theme: { reflect: true },
    phase: { reflect: true },
  };

  /** The origin of the shop's Kassa proxy; by default the origin kassa.js was loaded from. */
  proxy = SCRIPT_ORIGIN;

  /** The checkout the shop's server created (`chk_...`); the amount comes from it. */
  checkout = '';

  /** Open amount only (the proxy must allow it, KASSA_OPEN_AMOUNT): the amount, a decimal string. Ignored with `checkout`. */
  amount = '';

  /** Open amount only: the currency code; the proxy's open-amount currency by default. */
  currency = '';

  /** Open amount only: the payment reference (1 to 35 letters, digits, spaces and / - ? : ( ) . , ' +). */
  reference = '';

  /** Where the bank sends the customer back: one of the proxy's KASSA_RETURN_URLS (its first by default). */
  returnUrl = '';

  /** A BCP 47 locale (`de`, `fr-BE`); by default the nearest `lang` attribute, else the browser's language. */
  locale = '';

  /** `redirect` sends this tab to the bank; `popup` opens the bank in a popup (redirecting when it is blocked). */
  mode: 'redirect' | 'popup' = 'redirect';

  /** `light`, `dark`, or `auto` (the default: the system's preference). */
  theme: 'auto' | 'light' | 'dark' = 'auto';

  /** What the customer sees now (read only). */
  phase: CheckoutPhase = 'loading';

  private readonly i18n = new LocaleController(this, checkoutCatalogs);
  /** The payment's course and its state (checkout/checkout-flow.ts): this element shows it. */
  private readonly flow = new CheckoutFlow(this);

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (
      changed.has('proxy') ||
      changed.has('checkout') ||
      changed.has('amount') ||
      changed.has('currency') ||
      changed.has('reference')
    )
      void this.flow.load();
  }

  /** The status line: its text, tone and whether a spinner shows. */
  private statusLine(m: CheckoutMessages): [text: string, tone: Tone, busy: boolean] {
    const { flow } = this;
    switch (this.phase) {
      case 'creating':
      case 'redirecting':
      case 'waiting':
        return [m[this.phase], '', true];
      case 'authorising':
        return [m.authorising, '', false];
      case 'phone':
        return [flow.phone!.m(this.i18n.locale).scan, '', false];
      case 'completed':
        return [m.completed, 'success', false];
      case 'failed':
        return [flow.end!.failedLine(m), 'danger', false];
      case 'error':
        return [...flow.problems.line(m, this.i18n.locale), false];
      default:
        // Loading: the skeleton's own busy sign (theme.ts), nothing in this line that could move.
        return ['', '', false];
    }
  }

  /** Open amount: what was typed cannot be paid, so neither way to pay can be used yet (they say so, and stay focusable). */
  private get unpayable(): false | 'disabled' {
    const { field } = this.flow;
    return !!field && !field.amount && 'disabled';
  }

  /** The one button: its label, what it does, and whether it is busy. */
  private button(m: CheckoutMessages): Action | undefined {
    const { flow } = this;
    switch (this.phase) {
      case 'ready':
      case 'creating':
      case 'redirecting':
        return [m.pay, () => void flow.pay(), this.phase !== 'ready' || this.unpayable];
      case 'authorising':
        return [m.continue, () => void flow.pay()];
      case 'phone':
        return [flow.phone!.m(this.i18n.locale).payInBrowser, () => void flow.pay()];
      case 'error':
        return flow.problems.retryAction(m.tryAgain) ?? this.changeAmount('button');
      case 'failed':
      case 'completed':
        return flow.end!.button(m, this.i18n.locale);
      default:
        return undefined;
    }
  }

  /** Open amount: back to the field, for another amount (a new attempt). */
  private changeAmount(part: 'button' | 'secondary'): Action | undefined {
    const { flow } = this;
    const { field } = flow;
    const locale = this.i18n.locale;
    return (
      field && [
        field.m(locale).changeAmount,
        () => (field.prefill(flow.payment?.amount, locale), flow.startAgain(false)),
        false,
        part,
      ]
    );
  }

  override render(): TemplateResult {
    if (!this.i18n.ready) return loadingView();
    const m = this.i18n.messages;
    const { summary, field, phone, receipt, payment } = this.flow;
    const button = this.button(m);
    return html`<div part="container" class="surface" aria-busy=${this.phase === 'loading' ? 'true' : 'false'}>
      ${
        summary
          ? html`<div class="summary">
                ${
                  field && this.phase === 'ready'
                    ? field.view(this.i18n.locale)
                    : html`<span part="amount" class="amount"
                        >${formatMoney(summary.amount, summary.currencyCode, this.i18n.locale)}</span
                      >`
                }
                ${summary.environment === 'sandbox' ? html`<span part="badge" class="badge">${m.sandbox}</span>` : nothing}
              </div>
              ${summary.reference ? html`<p part="reference" class="reference">${fill(m.reference, { reference: summary.reference })}</p>` : nothing}`
          : nothing
      }
      ${statusView(...this.statusLine(m))} ${this.phase === 'phone' ? phone!.view(this.i18n.locale) : nothing}
      ${this.phase === 'completed' && receipt && payment ? receipt.view(payment, this.i18n.locale) : nothing}
      ${button ? actionView(button) : nothing}
      ${this.phase === 'failed' && field ? actionView(this.changeAmount('secondary')!) : nothing}
      ${phone && this.phase === 'ready' ? actionView([phone.m(this.i18n.locale).payWithPhone, () => void this.flow.pay(true), this.unpayable, 'secondary']) : nothing}
    </div>`;
  }
}

customElements.define('kassa-checkout', KassaCheckout);
