import type { LitElement, ReactiveController } from 'lit';
import type { PaymentStatusView } from '../../schemas/proxy-api.ts';
import type { MisconfigurationCode } from '../shared/misconfiguration.ts';
import { onDemand } from '../shared/on-demand.ts';
import { desktop } from '../shared/pointer.ts';
import { ProblemController, type Problem } from '../shared/problem-controller.ts';
import { ProxyClient } from '../shared/proxy-client.ts';
import type * as AmountFieldModule from './amount-field.ts';
import { AttemptStore } from './attempt-store.ts';
import type { CheckoutErrorDetail, CheckoutPhase } from './events.ts';
import type { AmountField, FlowStep, PaymentEnd, PaymentFlow, Phone, Receipt, Summary } from './flow-steps.ts';
import type { CheckoutMessages } from './messages/en.ts';
import type * as PaymentStart from './payment-start.ts';
import { CHECKOUT_PROBLEMS } from './problems.ts';
import { takeReturnedStatusToken } from './returned-status.ts';
import type { StatusStreamController } from './status-stream-controller.ts';

const BUSY: ReadonlySet<CheckoutPhase> = new Set(['loading', 'creating', 'redirecting', 'waiting']);
type Bounds = AmountFieldModule.Bounds;

/** What the flow reads of `<kassa-checkout>` (its attributes) and sets on it (the phase it reflects). */
export interface CheckoutHost extends LitElement {
  readonly proxy: string;
  readonly checkout: string;
  readonly amount: string;
  readonly currency: string;
  readonly reference: string;
  readonly returnUrl: string;
  readonly locale: string;
  readonly mode: 'redirect' | 'popup';
  phase: CheckoutPhase;
}

/**
 * The course of `<kassa-checkout>`'s payment, and its state: read what is to be paid, start the
 * payment once, send the customer to the bank or hand the payment to their phone, and follow its
 * status to the end. The chunks that start and follow payments hand back what they found (FlowSteps,
 * flow-steps.ts) and only this applies them; the element (kassa-checkout.ts) shows the state.
 */
export class CheckoutFlow implements ReactiveController, PaymentFlow {
  summary?: Summary;
  payment?: PaymentStatusView;
  /** Desktops only: what "Pay with your phone" needs, loaded as a chunk. */
  phone?: Phone;
  /** Open amount with no `amount` given: the field the customer types it in, loaded as a chunk. */
  field?: AmountField;
  /** The receipt of a completed payment, a chunk the status stream loads. */
  receipt?: Receipt;
  bankWindow?: Window;
  /** What the end of a payment says and offers, a chunk the status stream brings. */
  end?: PaymentEnd;
  readonly problems: ProblemController<CheckoutMessages, CheckoutErrorDetail>;
  client?: ProxyClient;
  attempts?: AttemptStore;
  returned = false;
  generation = 0;
  private stream?: StatusStreamController;

  constructor(readonly host: CheckoutHost) {
    this.problems = new ProblemController(host, CHECKOUT_PROBLEMS);
    host.addController(this);
  }

  hostConnected(): void {
    window.addEventListener('pageshow', this.onPageShow);
    // Phones pay in the bank's app already: they never load the phone chunk.
    if (desktop()) void this.loadPhone().catch(() => undefined);
  }

  hostDisconnected(): void {
    window.removeEventListener('pageshow', this.onPageShow);
  }

  /** "Pay with your phone": a chunk for desktops only. */
  private readonly loadPhone = onDemand(async () => {
    this.phone ??= new (await import('./phone-handoff.ts')).PhoneHandoff(this.host);
    this.host.requestUpdate();
    return this.phone;
  });

  /**
   * Back from the bank through the back button, this page may come from the back/forward cache as it
   * was left. A payment being followed goes on by itself (status-stream-controller.ts); one the
   * customer left for the bank before it was followed ("redirecting") is followed now, the page as it
   * was until its status comes; anything else is shown afresh.
   */
  private readonly onPageShow = (event: PageTransitionEvent) => {
    if (!event.persisted || this.stream?.following) return;
    const token = this.host.phase === 'redirecting' ? this.attempts?.read()?.statusToken : undefined;
    void (token ? this.follow(token) : this.load());
  };

  /** Shows the checkout afresh: resumes this tab's payment if there is one, else reads what is to be paid. */
  async load(): Promise<void> {
    const { host } = this;
    const generation = ++this.generation;
    this.stream?.stop();
    this.bankWindow?.close();
    this.summary = this.payment = this.bankWindow = undefined;
    if (host.checkout || host.amount) this.field = undefined;
    this.problems.clear();
    host.phase = 'loading';
    try {
      this.client = new ProxyClient(host.proxy);
    } catch {
      return this.misconfigured('proxy-attribute', 'proxy must be the URL of the Kassa proxy');
    }
    // The amount comes from the checkout when there is one: amount attributes next to it are ignored.
    this.attempts = new AttemptStore(
      `${this.client.origin} ${host.checkout || `${host.amount} ${host.currency} ${host.reference}`}`,
    );
    const returned = takeReturnedStatusToken();
    if (returned) this.attempts.returnedWith(returned);
    const attempt = this.attempts.read();
    const statusToken = attempt?.statusToken;
    if (statusToken) {
      this.returned = !!attempt.returned;
      // A reload while the QR code showed: the QR code again (its chunks first).
      if (attempt.phone && !attempt.returned && desktop())
        void Promise.all([this.loadPhone(), this.loadStart()]).then(
          ([phone, start]) => {
            if (generation === this.generation) return start.resumePhone(this, phone, statusToken);
          },
          (error: unknown) => generation === this.generation && this.fail(error, () => void this.load()),
        );
      else void this.follow(statusToken);
      // Back from the bank with an open amount: the field is there for "Start again".
      if (!host.checkout && !host.amount)
        void this.client.config().then(
          (config) => this.addField(config.openAmount),
          () => undefined,
        );
      return;
    }
    if (!host.checkout && !host.reference)
      return this.misconfigured('checkout-attribute', 'set checkout (or, with open amounts, reference)');
    try {
      if (host.checkout) {
        const checkout = await this.client.checkout(host.checkout);
        if (generation !== this.generation) return;
        this.summary = checkout;
        if (checkout.state === 'paid') return this.show({ message: 'paid' });
        if (checkout.state === 'expired') return this.show({ message: 'expired' });
      } else {
        const config = await this.client.config();
        if (generation !== this.generation) return;
        const open = config.openAmount;
        if (!open) return this.misconfigured('open-amount-off', 'the proxy takes no open amounts', 'notAllowed');
        if (host.currency && host.currency !== open.currencyCode)
          return this.misconfigured('currency-not-accepted', `the proxy takes ${open.currencyCode} only`, 'notAllowed');
        if (!host.amount) await this.addField(open);
        if (generation !== this.generation) return;
        this.summary = {
          amount: host.amount,
          currencyCode: open.currencyCode,
          reference: host.reference,
          environment: config.environment,
        };
      }
      host.phase = 'ready';
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
      this.host,
      bounds,
      () => this.attempts?.clear(),
      () => void this.pay(),
    );
    this.host.requestUpdate();
  }

  /** Whether a payment may be started now: not while one is under way (double clicks do nothing). */
  private idle(): boolean {
    return !!this.client && !!this.attempts && !!this.summary && !BUSY.has(this.host.phase);
  }

  /**
   * Starts the payment (or finds it) and sends the customer to the bank, in this tab or a popup; or,
   * `onPhone`, shows the QR code of its hand-off link for the customer's phone.
   */
  async pay(onPhone = false): Promise<void> {
    const { phone, field } = this;
    if (!this.idle() || (onPhone && !phone)) return;
    if (field && !field.amount) return field.touch();
    // Opened in the click itself, or the browser blocks it.
    const popup = !onPhone && this.host.mode === 'popup' ? openBankWindow() : undefined;
    const start = await this.starting(() => void this.pay(onPhone), popup);
    await (onPhone ? start?.payOnPhone(this, phone!) : start?.payAtBank(this, popup));
  }

  /** Starting a payment takes a click: a chunk, fetched once the checkout is ready. */
  private readonly loadStart = onDemand(() => import('./payment-start.ts'));

  /**
   * A payment is being started (so the customer has not been to the bank for it): busy while the
   * chunk that starts payments comes, so a second click does nothing; undefined if it cannot load.
   */
  private async starting(retry: () => void, popup?: Window): Promise<typeof PaymentStart | undefined> {
    const generation = this.generation;
    this.returned = false;
    this.problems.clear();
    this.host.phase = 'creating';
    try {
      const start = await this.loadStart();
      if (generation === this.generation) return start;
    } catch (error) {
      if (generation === this.generation) this.fail(error, retry);
    }
    popup?.close();
    return undefined;
  }

  /** Open amount: a new payment, from the field (emptied after a completed one, so a page can take another). */
  startAgain(empty = true): void {
    this.attempts?.clear();
    if (empty) this.field!.text = '';
    void this.load();
  }

  /** Takes a step a chunk found, unless it answers for an older load(). */
  apply({ phase, follow, ...shown }: FlowStep, generation = this.generation): void {
    if (generation !== this.generation) return;
    Object.assign(this, shown);
    if (phase) this.host.phase = phase;
    this.host.requestUpdate();
    if (follow) void this.follow(follow);
  }

  /** The status stream: a chunk, since the first render has no payment to follow. */
  readonly loadStream: () => Promise<StatusStreamController> = onDemand(
    async () => (this.stream = (await import('./status-follow.ts')).statusStream(this)),
  );

  /** Follows the payment's status until it is final. */
  async follow(statusToken: string): Promise<void> {
    const client = this.client!;
    const generation = this.generation;
    try {
      const stream = await this.loadStream();
      if (generation === this.generation) stream.follow(client, statusToken);
    } catch (error) {
      if (generation === this.generation) this.fail(error, () => void this.load());
    }
  }

  fail(error: unknown, retry: () => void): void {
    const { kind, status, message, retryAfter } = this.problems.proxyFailed(error, retry);
    this.host.phase = 'error';
    this.problems.report({ kind, status, message, retryAfter });
  }

  misconfigured(code: MisconfigurationCode, message: string, shown?: keyof CheckoutMessages, status = 0): void {
    this.host.phase = 'error';
    this.problems.misconfigured({ kind: 'misconfigured', code, status, message }, shown);
  }

  show(problem: Problem<CheckoutMessages>): void {
    this.problems.show(problem);
    this.host.phase = 'error';
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
