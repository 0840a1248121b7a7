import { html, LitElement, nothing, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import { AccountChoice } from './onramp/account-choice.ts';
import type { OnrampDeliveredDetail, OnrampErrorDetail, OnrampPhase, OnrampStatusDetail } from './onramp/events.ts';
import type { OnrampMessages } from './onramp/messages/en.ts';
import { onrampCatalogs } from './onramp/onramp-catalogs.ts';
import { OnrampClient } from './onramp/onramp-client.ts';
import { OrderForm } from './onramp/order-form.ts';
import { allows } from './onramp/phases.ts';
import { ONRAMP_PROBLEMS, proxyErrorDetail, walletRefused } from './onramp/problems.ts';
import { PurchaseController } from './onramp/purchase-controller.ts';
import { PurchasePayment } from './onramp/purchase-payment.ts';
import { statusLine, type OnrampState } from './onramp/status-line.ts';
import { onrampStyles } from './onramp/styles.ts';
import { buyLabel, costView, formView, purchaseView, walletBar } from './onramp/views.ts';
import { detailStyles } from './shared/detail-styles.ts';
import { fieldStyles } from './shared/field-styles.ts';
import { LocaleController } from './shared/locale-controller.ts';
import type { MisconfigurationCode } from './shared/misconfiguration.ts';
import { ProblemController } from './shared/problem-controller.ts';
import { SCRIPT_ORIGIN } from './shared/proxy-client.ts';
import { stepStyles } from './shared/steps-view.ts';
import { controls, statusStyles, tokens } from './shared/theme.ts';
import { actionView, loadingView, statusView, type Action } from './shared/views.ts';
import { WalletController } from './shared/wallet/wallet-controller.ts';
import { walletStyles } from './shared/wallet/wallet-styles.ts';

export type * from './onramp/events.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-onramp': KassaOnramp;
  }
  interface HTMLElementEventMap {
    'kassa-onramp-status': CustomEvent<OnrampStatusDetail>;
    'kassa-onramp-delivered': CustomEvent<OnrampDeliveredDetail>;
  }
}

/**
 * Buy stablecoins by bank: the customer connects their wallet, picks the stablecoin and the network
 * to receive it on, types the tokens they want and sees what they pay (the merchant's fee added, never
 * taken from the tokens). "Buy" has the wallet sign a message that proves the address is theirs
 * (nothing is paid before the proxy has checked it), then the customer pays through an embedded
 * `<kassa-checkout>` (the bank in this tab or a popup, or their phone) and watches the purchase to
 * its end: paid, minted, delivered, with the transaction and the new balance. A reload, another tab,
 * or the purchase's link (`?kassa_purchase=…`) shows the same purchase, days later too.
 *
 * @fires kassa-onramp-status - Each new state of the purchase (`OnrampStatusDetail`, the proxy's purchase view), the current one first; also after a reload.
 * @fires kassa-onramp-delivered - The tokens are on the chain, in the customer's wallet (`OnrampDeliveredDetail`: amount, symbol, chainId, wallet, txHash). Also after a reload: de-duplicate on `txHash`.
 * @fires kassa-error - Something stopped the element (`OnrampErrorDetail`: kind, stage, status, message): proxy unreachable or refusing, a wallet that declined. The embedded checkout's own events (`kassa-payment-created`, `kassa-status`, `kassa-completed`, `kassa-failed`, `kassa-error`) reach the page from this element too.
 *
 * @csspart container - The surface around everything.
 * @csspart account - The connected wallet's bar: wallet, account, "Disconnect".
 * @csspart wallets - The list of wallets to connect.
 * @csspart wallet - Each wallet's button.
 * @csspart wallet-rdns - A wallet's reverse domain name, shown when another wallet announces the same name.
 * @csspart first-run - No wallet in this browser: what a wallet is, the help link.
 * @csspart help - The link to the merchant's help page (`help-url`).
 * @csspart wallet-apps - No wallet here, on a phone: the wallet apps that open this page in their own browser.
 * @csspart wallet-app - Each wallet app's link.
 * @csspart qr - No wallet here, on a computer: the QR code of this page, to go on with the phone.
 * @csspart qr-note - Under the QR code, when this page is on this very computer (127.0.0.1): a phone cannot open it.
 * @csspart address - "Use an address": the field for the address the stablecoins go to.
 * @csspart sign - An address's purchase: the message to sign in a wallet app, and the field for the signature.
 * @csspart message - The message to sign (read only, with a copy button).
 * @csspart signature - The field the signature made in the wallet app is pasted in.
 * @csspart form - The stablecoin, network and amount fields.
 * @csspart coin - The stablecoin's select.
 * @csspart chain - The network's select.
 * @csspart amount - The field for the tokens to receive.
 * @csspart amount-hint - The bounds under the amount, or why the amount typed cannot be bought.
 * @csspart balance - The wallet's balance of the coin on the network.
 * @csspart cost - What the customer pays, with the fee.
 * @csspart badge - The sandbox badge beside it.
 * @csspart purchase - The purchase: what, where, its steps, the wallet, the transaction, the new balance.
 * @csspart steps - The purchase's steps (paid, minted, delivered).
 * @csspart hash - The mint's transaction hash.
 * @csspart explorer - The link to the transaction in the network's explorer.
 * @csspart checkout - The embedded `<kassa-checkout>` (it takes the same custom properties).
 * @csspart status - The live status line (an aria-live region).
 * @csspart button - The main button: buy, try again, buy more.
 * @csspart secondary - The second button: start over, use an address, look for wallets again, copy the message.
 *
 * @cssprop --kassa-color-background - Surface and field colour.
 * @cssprop --kassa-color-text - Text colour.
 * @cssprop --kassa-color-muted - Secondary text, labels, field borders.
 * @cssprop --kassa-color-border - Surface border and separators.
 * @cssprop --kassa-color-primary - Main button and links.
 * @cssprop --kassa-color-on-primary - Main button text.
 * @cssprop --kassa-color-success - Delivery and finished steps.
 * @cssprop --kassa-color-danger - Failures, errors, an amount out of bounds.
 * @cssprop --kassa-color-focus - Keyboard focus ring.
 * @cssprop --kassa-color-badge-background - The embedded checkout's sandbox badge background.
 * @cssprop --kassa-color-badge-text - The embedded checkout's sandbox badge text.
 * @cssprop --kassa-font-family - Font.
 * @cssprop --kassa-font-size - Base font size; everything scales with it.
 * @cssprop --kassa-radius - Corner radius of the surface (buttons and fields follow).
 * @cssprop --kassa-spacing - Inner spacing.
 */
export class KassaOnramp extends LitElement {
  static override styles = [
    tokens,
    controls,
    walletStyles,
    fieldStyles,
    stepStyles,
    detailStyles,
    onrampStyles,
    statusStyles,
  ];
  // Declared here rather than with decorators, as <kassa-checkout> does: no decorator code to ship.
  static override properties: PropertyDeclarations = {
    proxy: {},
    purchase: {},
    returnUrl: { attribute: 'return-url' },
    helpUrl: { attribute: 'help-url' },
    locale: {},
    mode: {},
    theme: { reflect: true },
    phase: { reflect: true },
  };

  /** The origin of the shop's Kassa proxy; by default the origin kassa.js was loaded from. */
  proxy = SCRIPT_ORIGIN;

  /** A purchase to show (its token, as in the purchase's link `?kassa_purchase=…`), rather than the form. */
  purchase = '';

  /**
   * Where the bank sends the customer back: one of the proxy's KASSA_RETURN_URLS, the page with this
   * element (the purchase's token is added to it). The proxy's first by default.
   */
  returnUrl = '';

  /** A page of the merchant's on getting a wallet, linked where the browser has none. */
  helpUrl = '';

  /** A BCP 47 locale (`de`, `fr-BE`); by default the nearest `lang` attribute, else the browser's language. */
  locale = '';

  /** `redirect` sends this tab to the bank; `popup` opens the bank in a popup (redirecting when it is blocked). */
  mode: 'redirect' | 'popup' = 'redirect';

  /** `light`, `dark`, or `auto` (the default: the system's preference). */
  theme: 'auto' | 'light' | 'dark' = 'auto';

  /** What the customer sees now (read only). */
  phase: OnrampPhase = 'loading';

  private readonly i18n = new LocaleController(this, onrampCatalogs);
  private readonly problems = new ProblemController<OnrampMessages, OnrampErrorDetail>(this, ONRAMP_PROBLEMS);
  private readonly wallet: WalletController = new WalletController(this, {
    allows: (action) => allows(this.phase, action),
    rememberAs: 'kassa-onramp-wallet:',
    origin: () => this.purchases.client?.origin,
    onConnecting: () => this.problems.clear(),
    onConnected: () => this.walletReady(),
    onRefused: (error) => walletRefused(this.problems, error, 'connect'),
    onChange: () => this.walletChanged(),
    onGone: () => this.walletChanged(),
  });
  private readonly form = new OrderForm(this, {
    account: () => this.wallet.session?.account,
    locale: () => this.i18n.locale,
    onEdit: () => this.problems.clear(),
  });
  private readonly purchases: PurchaseController = new PurchaseController(this, {
    problems: this.problems,
    wallet: this.wallet,
    form: this.form,
    locale: () => this.i18n.locale,
  });
  private readonly accounts = new AccountChoice(this, this.wallet, this.problems);
  private readonly payment = new PurchasePayment(this, this.purchases);
  /** Each load() bumps it; an offer that answers for an older one is dropped. */
  private generation = 0;

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('proxy') || changed.has('purchase')) void this.load();
  }

  /** Reads the proxy's offer afresh, then shows the purchase to resume, or the form. */
  private async load(): Promise<void> {
    const generation = ++this.generation;
    this.wallet.reset();
    this.form.list(undefined);
    this.problems.clear();
    this.phase = 'loading';
    let client: OnrampClient;
    try {
      client = new OnrampClient(this.proxy);
    } catch {
      this.purchases.open(undefined);
      return this.misconfigured('proxy-attribute', 'proxy must be the URL of the Kassa proxy');
    }
    this.purchases.open(client);
    try {
      this.form.list(await client.onrampConfig());
    } catch (error) {
      if (generation !== this.generation) return;
      const failure = this.problems.proxyFailed(error, () => void this.load());
      // The proxy's on-ramp is off (KASSA_ONRAMP_COINS): the shop's setup, said as "not available here".
      if (failure.status === 404) return this.misconfigured('onramp-off', failure.message, 404, 'notEnabled');
      this.phase = 'error';
      return this.problems.report(proxyErrorDetail(failure, 'config'));
    }
    if (generation !== this.generation) return;
    if (!this.form.coins().length) {
      this.phase = 'error';
      this.problems.show({ message: 'noChains', retry: () => void this.load() });
      const message = 'The proxy offers no network that carries its coins';
      return this.problems.report({ kind: 'unavailable', stage: 'config', status: 200, message });
    }
    if (this.purchases.resume(this.purchase)) return;
    this.phase = this.wallet.session ? 'ready' : 'connect';
    this.accounts.prepare();
    void this.form.refreshBalance();
  }

  /** The shop set it up so that it cannot work: the customer is told in friendly words, the developer what to change. */
  private misconfigured(code: MisconfigurationCode, message: string, status = 0, shown?: keyof OnrampMessages): void {
    this.phase = 'error';
    this.problems.misconfigured({ kind: 'misconfigured', stage: 'config', status, code, message }, shown);
  }

  /** A wallet connected: the form, with the balance there. */
  private walletReady(): void {
    if (this.phase === 'connect' || this.phase === 'connecting') this.phase = 'ready';
    void this.form.refreshBalance();
  }

  /**
   * The wallet changed account or network, lost or found its chains, or went away: a purchase not yet
   * signed for the account connected now is dropped (the network does not matter to a signature); the
   * balance is read again. Back on its chains, "try again once it is back" is no longer said.
   */
  private walletChanged(): void {
    if (this.wallet.session?.reachable) this.problems.clear('walletDisconnected');
    const account = this.wallet.session?.account;
    const connected = !!account;
    const asked = this.purchases.asked?.wallet;
    if ((this.phase === 'quoting' || this.phase === 'signing') && account?.toLowerCase() !== asked?.toLowerCase()) {
      this.purchases.startOver();
      if (connected) this.problems.show({ message: 'accountChanged' });
    } else if (this.phase === 'ready' && !connected) {
      this.phase = 'connect';
    }
    void this.form.refreshBalance();
  }

  /** Loading, looking for wallets for the first time (at most 400 ms), or fetching the ways without one: the empty card. */
  private get skeleton(): boolean {
    const { phase, wallet } = this;
    const looking = !wallet.settled && !wallet.lookedAgain;
    return (
      phase === 'loading' || (phase === 'connect' && !wallet.wallets.length && (looking || this.accounts.preparing))
    );
  }

  /** What the status line reads of the element (onramp/status-line.ts). */
  private state(): OnrampState {
    const { phase, problems, purchases, accounts, skeleton } = this;
    return { phase, problems, purchases, accounts, skeleton, unreachable: this.wallet.session?.reachable === false };
  }

  /** The main button, and the second one. */
  private buttons(m: OnrampMessages): Action[] {
    const { phase, purchases } = this;
    const locale = this.i18n.locale;
    const choosing = this.accounts.buttons(m, phase, locale);
    if (choosing) return choosing;
    switch (phase) {
      case 'ready': {
        // A purchase whose creation could not be confirmed is tried again as it was (the same key).
        const retry = this.problems.retryAction(m.tryAgain);
        return [retry ?? [buyLabel(this.form, m, locale), () => void purchases.buy()]];
      }
      case 'quoting':
      case 'signing':
      case 'creating':
        return [[buyLabel(this.form, m, locale), () => undefined, true]];
      case 'paying':
        return this.payment.underWay ? [] : [[m.startOver, () => purchases.startOver(), false, 'secondary']];
      case 'delivered':
        return [[m.buyMore, () => purchases.startOver()]];
      case 'failed':
        return [[m.tryAgain, () => purchases.startOver()]];
      case 'refunded':
        return [[m.newPurchase, () => purchases.startOver()]];
      case 'error': {
        const retry = this.problems.retryAction(
          this.problems.problem?.message === 'unknownPurchase' ? m.newPurchase : m.tryAgain,
        );
        return retry ? [retry] : [];
      }
      default:
        return [];
    }
  }

  /** What the phase shows between the wallet bar and the status line. */
  private body(m: OnrampMessages): TemplateResult | typeof nothing {
    const { phase } = this;
    const locale = this.i18n.locale;
    switch (phase) {
      case 'connect':
      case 'connecting':
        return this.accounts.view(m, locale, this.helpUrl);
      case 'signing':
      case 'ready':
      case 'quoting':
      case 'creating':
        // An address's purchase waits for the signature pasted from a wallet app; a wallet here signs over the form.
        return (
          this.accounts.signing(m, phase, locale) ??
          html`${walletBar(this.wallet, phase, m)}
          ${formView(this.form, phase, m, locale, () => void this.purchases.buy())} ${costView(this.form, m, locale)}`
        );
      case 'paying':
        return html`${purchaseView(this.purchases, phase, m, locale)} ${this.payment.view(this)}`;
      case 'loading':
      case 'error':
        return nothing;
      default:
        return purchaseView(this.purchases, phase, m, locale);
    }
  }

  override render(): TemplateResult {
    if (!this.i18n.ready) return loadingView();
    const m = this.i18n.messages;
    // The skeleton is an empty card, whatever has come already: what shows under it before the rest
    // arrives (the first-run view and its buttons, before the ways without a wallet) would move when it does.
    const skeleton = this.skeleton;
    return html`<div part="container" class="surface" aria-busy=${skeleton ? 'true' : 'false'}>
      ${skeleton ? nothing : this.body(m)} ${statusView(...statusLine(this.state(), m, this.i18n.locale))}
      <div class="actions">${skeleton ? nothing : this.buttons(m).map((action) => actionView(action))}</div>
    </div>`;
  }
}

customElements.define('kassa-onramp', KassaOnramp);
