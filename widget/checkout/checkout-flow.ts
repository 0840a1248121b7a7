import { LitElement, type PropertyDeclarations, type PropertyValues } from 'lit';
import type { PaymentStatusView } from '../../schemas/proxy-api.ts';
import { LocaleController } from '../shared/locale-controller.ts';
import type { MisconfigurationCode } from '../shared/misconfiguration.ts';
import { onDemand } from '../shared/on-demand.ts';
import { desktop } from '../shared/pointer.ts';
import { ProblemController, type Problem } from '../shared/problem-controller.ts';
import { ProxyClient, SCRIPT_ORIGIN } from '../shared/proxy-client.ts';
import type * as AmountFieldModule from './amount-field.ts';
import { AttemptStore } from './attempt-store.ts';
import { checkoutCatalogs } from './checkout-catalogs.ts';
import type { CheckoutErrorDetail, CheckoutPhase } from './events.ts';
import type { AmountField, FlowHost, Phone, Summary } from './flow-host.ts';
import type { CheckoutMessages } from './messages/en.ts';
import type * as PaymentStart from './payment-start.ts';
import type * as ReceiptModule from './receipt.ts';
import { CHECKOUT_PROBLEMS } from './problems.ts';
import { takeReturnedStatusToken } from './returned-status.ts';
import type { StatusStreamController } from './status-stream-controller.ts';

const BUSY: ReadonlySet<CheckoutPhase> = new Set(['loading', 'creating', 'redirecting', 'waiting']);
type Bounds = AmountFieldModule.Bounds;
type Receipt = InstanceType<(typeof ReceiptModule)['Receipt']>;

/**
 * What `<kassa-checkout>` does, apart from what it shows (kassa-checkout.ts): its attributes, and
 * the payment's course: read what is to be paid, start the payment once, send the customer to the
 * bank or hand the payment to their phone, and follow its status to the end.
 */
export class CheckoutFlow extends LitElement implements FlowHost {
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
    summary: { state: true },
    payment: { state: true },
    phone: { state: true },
    receipt: { state: true },
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

  // Below, what is neither protected nor private is for the checkout's chunks (payment-start.ts,
  // status-follow.ts), which start the payment and follow it; pages have no use for it.
  summary?: Summary;
  payment?: PaymentStatusView;
  /** Desktops only: what "Pay with your phone" needs, loaded as a chunk. */
  protected phone?: Phone;
  /** Open amount with no `amount` given: the field the customer types it in, loaded as a chunk. */
  field?: AmountField;
  /** The receipt of a completed payment, loaded as a chunk while a payment is followed. */
  protected receipt?: Receipt;

  protected readonly i18n = new LocaleController(this, checkoutCatalogs);
  readonly problems = new ProblemController<CheckoutMessages, CheckoutErrorDetail>(this, CHECKOUT_PROBLEMS);
  private stream?: StatusStreamController;
  client?: ProxyClient;
  attempts?: AttemptStore;
  /** The customer has been to the bank and back for the current payment. */
  returned = false;
  bankWindow?: Window;
  /** Each load() bumps it; answers that arrive for an older one are dropped. */
  generation = 0;

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('pageshow', this.onPageShow);
    // Phones pay in the bank's app already: they never load the phone chunk.
    if (desktop()) void this.loadPhone().catch(() => undefined);
  }

  /** "Pay with your phone": a chunk for desktops only. */
  private readonly loadPhone = onDemand(
    async () => (this.phone ??= new (await import('./phone-handoff.ts')).PhoneHandoff(this)),
  );

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('pageshow', this.onPageShow);
  }

  /**
   * Back from the bank through the back button, this page may come from the back/forward cache as it
   * was left. A payment being followed goes on by itself (status-stream-controller.ts); one the
   * customer left for the bank before it was followed ("redirecting") is followed now, the page as it
   * was until its status comes; anything else is shown afresh.
   */
  private readonly onPageShow = (event: PageTransitionEvent) => {
    if (!event.persisted || this.stream?.following) return;
    const token = this.phase === 'redirecting' ? this.attempts?.read()?.statusToken : undefined;
    void (token ? this.follow(token) : this.load());
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
  async load(): Promise<void> {
    const generation = ++this.generation;
    this.stream?.stop();
    this.closeBankWindow();
    this.summary = this.payment = undefined;
    if (this.checkout || this.amount) this.field = undefined;
    this.problems.clear();
    this.phase = 'loading';
    try {
      this.client = new ProxyClient(this.proxy);
    } catch {
      return this.misconfigured('proxy-attribute', 'proxy must be the URL of the Kassa proxy');
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
      if (attempt.phone && !attempt.returned && desktop()) void this.resumePhone(attempt.statusToken);
      else void this.follow(attempt.statusToken);
      // Back from the bank with an open amount: the field is there for "Start again".
      if (!this.checkout && !this.amount)
        void this.client.config().then(
          (config) => this.addField(config.openAmount),
          () => undefined,
        );
      return;
    }
    if (!this.checkout && !this.reference)
      return this.misconfigured('checkout-attribute', 'set checkout (or, with open amounts, reference)');
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
        const open = config.openAmount;
        if (!open) return this.misconfigured('open-amount-off', 'the proxy takes no open amounts', 'notAllowed');
        if (this.currency && this.currency !== open.currencyCode)
          return this.misconfigured('currency-not-accepted', `the proxy takes ${open.currencyCode} only`, 'notAllowed');
        if (!this.amount) await this.addField(open);
        if (generation !== this.generation) return;
        this.summary = {
          amount: this.amount,
          currencyCode: open.currencyCode,
          reference: this.reference,
          environment: config.environment,
        };
      }
      this.phase = 'ready';
      // Only a click starts a payment: its code comes now, after the first render, for when it does.
      void this.loadStart().catch(() => undefined);
    } catch (error) {
      if (generation === this.generation) this.fail(error, () => void this.load());
    }
  }

  /** Open amount with no `amount` given: the customer's own field, once. */
  private async addField(bounds: Bounds | null): Promise<void> {
    if (!bounds || this.field) return;
    const { AmountField } = await import('./amount-field.ts');
    this.field ??= new AmountField(
      this,
      bounds,
      () => this.attempts?.clear(),
      () => void this.pay(),
    );
    this.requestUpdate();
  }

  /** Whether a payment may be started now: not while one is under way (double clicks do nothing). */
  private idle(): boolean {
    return !!this.client && !!this.attempts && !!this.summary && !BUSY.has(this.phase);
  }

  /** Starts the payment (or finds it) and sends the customer to the bank, in this tab or a popup. */
  async pay(): Promise<void> {
    if (!this.idle()) return;
    if (this.field && !this.field.amount) return this.field.touch();
    // Opened in the click itself, or the browser blocks it.
    const popup = this.mode === 'popup' ? openBankWindow() : undefined;
    await (await this.starting(() => void this.pay(), popup))?.payAtBank(this, popup);
  }

  /** Starts the payment (or finds it) and shows the QR code of its hand-off link for the customer's phone. */
  async payOnPhone(): Promise<void> {
    const { phone } = this;
    if (!phone || !this.idle()) return;
    if (this.field && !this.field.amount) return this.field.touch();
    await (await this.starting(() => void this.payOnPhone()))?.payOnPhone(this, phone);
  }

  /** A reload while the QR code showed: the QR code again (its chunks first). */
  private async resumePhone(statusToken: string): Promise<void> {
    const generation = this.generation;
    try {
      const [phone, start] = await Promise.all([this.loadPhone(), this.loadStart()]);
      if (generation === this.generation) await start.resumePhone(this, phone, statusToken);
    } catch (error) {
      if (generation === this.generation) this.fail(error, () => void this.load());
    }
  }

  /** Starting a payment takes a click: a chunk, fetched once the checkout is ready. */
  private readonly loadStart = onDemand(() => import('./payment-start.ts'));

  /** The chunk that starts payments (busy meanwhile, so a second click does nothing); undefined if it cannot load. */
  private async starting(retry: () => void, popup?: Window): Promise<typeof PaymentStart | undefined> {
    const generation = this.generation;
    this.phase = 'creating';
    try {
      const start = await this.loadStart();
      if (generation === this.generation) return start;
    } catch (error) {
      if (generation === this.generation) this.fail(error, retry);
    }
    popup?.close();
    return undefined;
  }

  /** A new attempt after a failed payment: a new key, so a new payment. */
  protected payAgain(): void {
    this.attempts?.clear();
    this.payment = undefined;
    this.phase = 'ready';
    void this.pay();
  }

  /** The status stream: a chunk, since the first render has no payment to follow. */
  readonly loadStream: () => Promise<StatusStreamController> = onDemand(
    async () => (this.stream = (await import('./status-follow.ts')).statusStream(this)),
  );

  /** Follows the payment's status until it is final (with the receipt's chunk on its way for the end). */
  async follow(statusToken: string): Promise<void> {
    const client = this.client!;
    const generation = this.generation;
    void this.loadReceipt().catch(() => undefined);
    try {
      const stream = await this.loadStream();
      if (generation === this.generation) stream.follow(client, statusToken);
    } catch (error) {
      if (generation === this.generation) this.fail(error, () => void this.load());
    }
  }

  async loadReceipt(): Promise<void> {
    if (this.receipt) return;
    const { Receipt } = await import('./receipt.ts');
    this.receipt ??= new Receipt(this);
  }

  fail(error: unknown, retry: () => void): void {
    const { kind, status, message, retryAfter } = this.problems.proxyFailed(error, retry);
    this.phase = 'error';
    this.problems.report({ kind, status, message, retryAfter });
  }

  private misconfigured(code: MisconfigurationCode, message: string, shown?: keyof CheckoutMessages): void {
    this.phase = 'error';
    this.problems.misconfigured({ kind: 'misconfigured', code, status: 0, message }, shown);
  }

  show(problem: Problem<CheckoutMessages>): void {
    this.problems.show(problem);
    this.phase = 'error';
  }

  closeBankWindow(): void {
    this.bankWindow?.close();
    this.bankWindow = undefined;
  }
}

/**
 * A popup for the bank's pages (mode="popup"). Browsers allow a popup only in the click itself, not
 * after awaiting the proxy, so it opens blank and is sent to the flowUrl once known. Undefined when
 * the browser blocked it: the element then redirects instead. The popup keeps its opener: without
 * it the shop's page could no longer close the popup once the bank has answered, and the pages it
 * shows are the vouched-for bank host and the shop's own return page.
 */
function openBankWindow(): Window | undefined {
  return window.open('', 'kassa-bank', 'popup,width=500,height=720') ?? undefined;
}
