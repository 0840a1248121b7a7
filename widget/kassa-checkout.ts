import { adoptStyles, html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { CreatedPayment, CreatePaymentRequest, PaymentStatusView } from '../schemas/proxy-api.ts';
import { AttemptStore } from './checkout/attempt-store.ts';
import { isNavigableFlowUrl, openBankWindow } from './checkout/bank-page.ts';
import type * as PhoneHandoff from './checkout/phone-handoff.ts';
import { checkoutCatalogs } from './checkout/checkout-catalogs.ts';
import type { CheckoutErrorDetail, CheckoutPhase, PaymentCreatedDetail } from './checkout/events.ts';
import type { CheckoutMessages } from './checkout/messages/en.ts';
import { CHECKOUT_PROBLEMS } from './checkout/problems.ts';
import { takeReturnedStatusToken } from './checkout/returned-status.ts';
import { StatusStreamController } from './checkout/status-stream-controller.ts';
import { summaryStyles } from './checkout/styles.ts';
import { formatMoney } from './shared/format.ts';
import { fill } from './shared/i18n.ts';
import { emit } from './shared/kassa-event.ts';
import { LocaleController } from './shared/locale-controller.ts';
import { ProblemController, type Problem, type Tone } from './shared/problem-controller.ts';
import { ProxyClient, SCRIPT_ORIGIN, type ProxyError } from './shared/proxy-client.ts';
import { controls, statusStyles, tokens } from './shared/theme.ts';
import { actionView, loadingView, statusView, type Action } from './shared/views.ts';

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
    'kassa-error': CustomEvent<CheckoutErrorDetail>;
  }
}

interface Summary {
  amount: string;
  currencyCode: string;
  reference: string;
  environment: string;
}

const FAILURE_REASONS: Record<string, keyof CheckoutMessages> = { CANCELLED: 'cancelled', REJECTED: 'rejected' };
const BUSY: ReadonlySet<CheckoutPhase> = new Set(['loading', 'creating', 'redirecting', 'waiting']);
type PhoneKit = typeof PhoneHandoff;

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
@customElement('kassa-checkout')
export class KassaCheckout extends LitElement {
  static override styles = [tokens, controls, summaryStyles, statusStyles];

  /** The origin of the shop's Kassa proxy; by default the origin kassa.js was loaded from. */
  @property() proxy = SCRIPT_ORIGIN;

  /** The checkout the shop's server created (`chk_...`); the amount comes from it. */
  @property() checkout = '';

  /** Open amount only (the proxy must allow it, KASSA_OPEN_AMOUNT): the amount, a decimal string. Ignored with `checkout`. */
  @property() amount = '';

  /** Open amount only: the currency code; the proxy's open-amount currency by default. */
  @property() currency = '';

  /** Open amount only: the payment reference (1 to 35 letters, digits, spaces and / - ? : ( ) . , ' +). */
  @property() reference = '';

  /** Where the bank sends the customer back: one of the proxy's KASSA_RETURN_URLS (its first by default). */
  @property({ attribute: 'return-url' }) returnUrl = '';

  /** A BCP 47 locale (`de`, `fr-BE`); by default the nearest `lang` attribute, else the browser's language. */
  @property() locale = '';

  /** `redirect` sends this tab to the bank; `popup` opens the bank in a popup (redirecting when it is blocked). */
  @property() mode: 'redirect' | 'popup' = 'redirect';

  /** `light`, `dark`, or `auto` (the default: the system's preference). */
  @property({ reflect: true }) theme: 'auto' | 'light' | 'dark' = 'auto';

  /** What the customer sees now (read only). */
  @property({ reflect: true }) phase: CheckoutPhase = 'loading';

  @state() private summary?: Summary;
  @state() private payment?: PaymentStatusView;
  /** Desktops only: what "Pay with your phone" needs, loaded as a chunk. */
  @state() private phoneKit?: PhoneKit;
  @state() private handoff?: string;
  @state() private copied = false;

  private readonly i18n = new LocaleController(this, checkoutCatalogs);
  private readonly problems = new ProblemController<CheckoutMessages, CheckoutErrorDetail>(this, CHECKOUT_PROBLEMS);
  private readonly stream = new StatusStreamController(this, {
    onStatus: (view) => this.showStatus(view),
    onFailure: (error) => {
      if (error.status === 404) this.attempts?.clear();
      this.fail(error, () => void this.load());
    },
  });
  private client?: ProxyClient;
  private attempts?: AttemptStore;
  /** The customer has been to the bank and back for the current payment. */
  private returned = false;
  private bankWindow?: Window;
  /** Each load() bumps it; answers that arrive for an older one are dropped. */
  private generation = 0;

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('pageshow', this.onPageShow);
    // Phones (no fine pointer that hovers) pay in the bank's app already: they never load the chunk.
    if (!this.phoneKit && matchMedia('(pointer: fine) and (hover: hover)').matches)
      import('./checkout/phone-handoff.ts').then(
        (kit) => {
          this.phoneKit = kit;
          adoptStyles(this.renderRoot as ShadowRoot, [...KassaCheckout.elementStyles, kit.phoneStyles]);
        },
        () => undefined,
      );
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('pageshow', this.onPageShow);
  }

  /** Back from the bank through the back button, this page may come from the back/forward cache as it was left ("redirecting"). */
  private readonly onPageShow = (event: PageTransitionEvent) => {
    if (event.persisted) void this.load();
  };

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (
      changed.has('proxy') ||
      changed.has('checkout') ||
      changed.has('amount') ||
      changed.has('currency') ||
      changed.has('reference')
    )
      void this.load();
  }

  /** Shows the checkout afresh: resumes this tab's payment if there is one, else reads what is to be paid. */
  private async load(): Promise<void> {
    const generation = ++this.generation;
    this.stream.stop();
    this.closeBankWindow();
    this.summary = this.payment = undefined;
    this.problems.clear();
    this.phase = 'loading';
    try {
      this.client = new ProxyClient(this.proxy);
    } catch {
      return this.misconfigured('proxy must be the URL of the Kassa proxy');
    }
    // The amount comes from the checkout when there is one: amount attributes next to it are ignored.
    this.attempts = new AttemptStore(
      `${this.client.origin} ${this.checkout || `${this.amount} ${this.currency} ${this.reference}`}`,
    );
    const returned = takeReturnedStatusToken();
    if (returned) this.attempts.returnedWith(returned);
    const attempt = this.attempts.read();
    if (attempt?.statusToken) {
      this.returned = !!attempt.returned;
      this.stream.follow(this.client, attempt.statusToken);
      return;
    }
    if (!this.checkout && !this.amount)
      return this.misconfigured('set checkout (or, with open amounts, amount and reference)');
    try {
      if (this.checkout) {
        const checkout = await this.client.checkout(this.checkout);
        if (generation !== this.generation) return;
        this.summary = checkout;
        if (checkout.state === 'paid') return this.show({ message: 'paid' });
        if (checkout.state === 'expired') return this.show({ message: 'expired' });
      } else {
        const config = await this.client.config();
        if (generation !== this.generation) return;
        if (!config.openAmount) return this.show({ message: 'notAllowed' });
        this.summary = {
          amount: this.amount,
          currencyCode: this.currency || config.openAmount.currencyCode,
          reference: this.reference,
          environment: config.environment,
        };
      }
      this.phase = 'ready';
    } catch (error) {
      if (generation === this.generation) this.fail(error, () => void this.load());
    }
  }

  /** Whether a payment may be started now: not while one is under way (double clicks do nothing). */
  private idle(): boolean {
    return !!this.client && !!this.attempts && !!this.summary && !BUSY.has(this.phase);
  }

  /**
   * Starts the payment, or, with the attempt's key, finds the one already started: paying with the
   * phone and then in this browser (or the other way round) is one payment.
   */
  private async start(
    retry: () => void,
    popup?: Window,
  ): Promise<(CreatedPayment & { replayed: boolean }) | undefined> {
    const client = this.client!;
    const attempts = this.attempts!;
    const generation = this.generation;
    const attempt = attempts.begin();
    this.problems.clear();
    this.phase = 'creating';
    let created;
    try {
      created = await client.createPayment(this.request(this.summary!), attempt.key);
    } catch (error) {
      popup?.close();
      if (generation !== this.generation) return;
      // The key went with another request (the checkout's attributes changed): start a new attempt.
      if ((error as ProxyError).status === 422) attempts.clear();
      this.fail(error, retry);
      return;
    }
    if (generation !== this.generation) return void popup?.close();
    if (!isNavigableFlowUrl(created.flowUrl, client.origin)) {
      popup?.close();
      attempts.clear();
      this.show({ message: 'untrusted' });
      this.problems.report({
        kind: 'untrusted-flow-url',
        status: 0,
        message: `Refused to open the payment page ${created.flowUrl}`,
      });
      return;
    }
    attempts.save({ key: attempt.key, statusToken: created.statusToken });
    this.returned = false;
    return created;
  }

  /** Starts the payment (or finds it) and sends the customer to the bank, in this tab or a popup. */
  private async pay(): Promise<void> {
    if (!this.idle()) return;
    // Opened in the click itself, or the browser blocks it.
    const popup = this.mode === 'popup' ? openBankWindow() : undefined;
    const created = await this.start(() => void this.pay(), popup);
    if (!created) return;
    const { transactionId, environment, flowUrl, replayed } = created;
    const proceed = emit<PaymentCreatedDetail>(
      this,
      'kassa-payment-created',
      { transactionId, checkoutId: this.checkout || null, environment, flowUrl, replayed },
      true,
    );
    if (proceed && !popup) {
      this.phase = 'redirecting';
      await this.updateComplete;
      location.assign(flowUrl);
      return;
    }
    if (popup && proceed) {
      this.bankWindow = popup;
      popup.location.href = flowUrl;
    } else {
      popup?.close();
    }
    this.phase = 'authorising';
    this.stream.follow(this.client!, created.statusToken);
  }

  /**
   * Starts the payment (or finds it) and shows the QR code of its hand-off link: the phone opens the
   * bank, and this element follows the payment live and shows the result with nothing to do here.
   */
  private async payOnPhone(): Promise<void> {
    const kit = this.phoneKit;
    if (!kit || !this.idle()) return;
    const retry = () => void this.payOnPhone();
    const generation = this.generation;
    const created = await this.start(retry);
    if (!created) return;
    let url;
    try {
      url = await kit.handoffUrl(this.client!.origin, created.statusToken);
    } catch (error) {
      if (generation === this.generation) this.fail(error, retry);
      return;
    }
    if (generation !== this.generation) return;
    this.handoff = url;
    this.copied = false;
    this.phase = 'phone';
    this.stream.follow(this.client!, created.statusToken);
  }

  private request(summary: Summary): CreatePaymentRequest {
    const returnUrl = this.returnUrl || undefined;
    return this.checkout
      ? { checkoutId: this.checkout, returnUrl }
      : { amount: summary.amount, currencyCode: summary.currencyCode, reference: summary.reference, returnUrl };
  }

  /** A new attempt after a failed payment: a new key, so a new payment. */
  private payAgain(): void {
    this.attempts?.clear();
    this.payment = undefined;
    this.phase = 'ready';
    void this.pay();
  }

  private showStatus(view: PaymentStatusView): void {
    this.payment = view;
    this.summary = view;
    emit(this, 'kassa-status', view);
    if (view.status === 'COMPLETED' || view.status === 'FAILED') {
      this.closeBankWindow();
      this.phase = view.status === 'COMPLETED' ? 'completed' : 'failed';
      emit(this, view.status === 'COMPLETED' ? 'kassa-completed' : 'kassa-failed', view);
      return;
    }
    // Until the bank answers (INITIATED), the customer has yet to authorise, unless they came back.
    const answered = this.returned || (view.networkStatus !== null && view.networkStatus !== 'INITIATED');
    if (answered) this.closeBankWindow();
    this.phase = answered ? 'waiting' : this.phase === 'phone' ? 'phone' : 'authorising';
  }

  private fail(error: unknown, retry: () => void): void {
    const { kind, status, message, retryAfter } = this.problems.proxyFailed(error, retry);
    this.phase = 'error';
    this.problems.report({ kind, status, message, retryAfter });
  }

  private misconfigured(message: string): void {
    this.phase = 'error';
    this.problems.misconfigured({ kind: 'misconfigured', status: 0, message });
  }

  private show(problem: Problem<CheckoutMessages>): void {
    this.problems.show(problem);
    this.phase = 'error';
  }

  private closeBankWindow(): void {
    this.bankWindow?.close();
    this.bankWindow = undefined;
  }

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
        return [this.phoneKit!.phoneMessages(this.i18n.locale).scan, '', false];
      case 'completed':
        return [m.completed, 'success', false];
      case 'failed': {
        const reason = m[FAILURE_REASONS[this.payment?.networkStatus ?? ''] ?? 'bankError'];
        return [`${m.failed} ${reason}${this.canPayAgain() ? '' : ` ${m.contactShop}`}`, 'danger', false];
      }
      case 'error':
        return [...this.problems.line(m, this.i18n.locale), false];
      default:
        return ['', '', this.phase === 'loading'];
    }
  }

  /** The proxy says whether a failed payment may be followed by a new one; an open amount also needs its attributes here. */
  private canPayAgain(): boolean {
    return !!this.payment?.retryable && (this.payment.checkoutId !== null || !!this.amount);
  }

  /** The one button: its label, what it does, and whether it is busy. */
  private button(m: CheckoutMessages): Action | undefined {
    switch (this.phase) {
      case 'ready':
      case 'creating':
      case 'redirecting':
        return [m.pay, () => void this.pay(), this.phase !== 'ready'];
      case 'authorising':
        return [m.continue, () => void this.pay()];
      case 'phone':
        return [this.phoneKit!.phoneMessages(this.i18n.locale).payInBrowser, () => void this.pay()];
      case 'failed':
        return this.canPayAgain() ? [m.tryAgain, () => this.payAgain()] : undefined;
      case 'error':
        return this.problems.retryAction(m.tryAgain);
      default:
        return undefined;
    }
  }

  private phoneView(): TemplateResult | typeof nothing {
    const { phoneKit: kit, handoff } = this;
    if (!kit || !handoff || this.phase !== 'phone') return nothing;
    return kit.phoneView(handoff, kit.phoneMessages(this.i18n.locale), this.copied, () => {
      void navigator.clipboard?.writeText(handoff).then(() => (this.copied = true));
    });
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
                <span part="amount" class="amount"
                  >${formatMoney(summary.amount, summary.currencyCode, this.i18n.locale)}</span
                >
                ${summary.environment === 'sandbox' ? html`<span part="badge" class="badge">${m.sandbox}</span>` : nothing}
              </div>
              ${summary.reference ? html`<p part="reference" class="reference">${fill(m.reference, { reference: summary.reference })}</p>` : nothing}`
          : nothing
      }
      ${statusView(...this.statusLine(m))} ${this.phoneView()} ${button ? actionView(button) : nothing}
      ${this.phoneKit && this.phase === 'ready' ? actionView([this.phoneKit.phoneMessages(this.i18n.locale).payWithPhone, () => void this.payOnPhone(), false, 'secondary']) : nothing}
    </div>`;
  }
}
