import { html, LitElement, nothing, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import type { ChainEntry } from '../schemas/reforge.ts';
import { bridgeCatalogs } from './bridge/bridge-catalogs.ts';
import { BridgeClient, type BridgeNetwork } from './bridge/bridge-client.ts';
import type {
  BridgeArrivedDetail,
  BridgeDelayedDetail,
  BridgeErrorDetail,
  BridgeMinedDetail,
  BridgePhase,
  BridgeRefundedDetail,
  BridgeSubmittedDetail,
  BridgeTimeouts,
} from './bridge/events.ts';
import { FormController } from './bridge/form-controller.ts';
import { HistoryController } from './bridge/history-controller.ts';
import { firstRunView, helpLink } from './bridge/first-run-view.ts';
import { detailView, historyList } from './bridge/history-views.ts';
import type { BridgeMessages } from './bridge/messages/en.ts';
import { allows } from './bridge/phases.ts';
import { BRIDGE_PROBLEMS, proxyErrorDetail, walletRefused } from './bridge/problems.ts';
import { bridgeStyles, previewStyles } from './bridge/styles.ts';
import { statusLine, type PanelState } from './bridge/status-line.ts';
import { TransferController } from './bridge/transfer-controller.ts';
import { TransferStore } from './bridge/transfer-store.ts';
import { formView, outcomeView, previewView, progressView, walletBar } from './bridge/views.ts';
import { LocaleController } from './shared/locale-controller.ts';
import type { MisconfigurationCode } from './shared/misconfiguration.ts';
import { ProblemController } from './shared/problem-controller.ts';
import { SCRIPT_ORIGIN } from './shared/proxy-client.ts';
import { fieldStyles } from './shared/field-styles.ts';
import { stepStyles } from './shared/steps-view.ts';
import { controls, statusStyles, tokens } from './shared/theme.ts';
import { actionView, loadingView, statusView, type Action } from './shared/views.ts';
import { WalletController } from './shared/wallet/wallet-controller.ts';
import { walletStyles } from './shared/wallet/wallet-styles.ts';
import { walletList } from './shared/wallet/wallet-views.ts';

export type * from './bridge/events.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-bridge': KassaBridge;
  }
  interface HTMLElementEventMap {
    'kassa-bridge-submitted': CustomEvent<BridgeSubmittedDetail>;
    'kassa-bridge-mined': CustomEvent<BridgeMinedDetail>;
    'kassa-bridge-delayed': CustomEvent<BridgeDelayedDetail>;
    'kassa-bridge-arrived': CustomEvent<BridgeArrivedDetail>;
    'kassa-bridge-refunded': CustomEvent<BridgeRefundedDetail>;
    'kassa-bridge-error': CustomEvent<BridgeErrorDetail>;
  }
}

/**
 * The wallet panel: moves a stablecoin to another chain with the user's own wallet. It lists the
 * chains and tokens the shop's Kassa proxy offers, reads the balance, has the proxy prepare the
 * burn, shows what the transaction does before anything is signed, puts the wallet on the right
 * chain, has the wallet sign and send it, and follows it to its receipt and to the tokens' arrival
 * on the destination chain. No key ever reaches the page, the proxy or Kassa: the wallet signs.
 *
 * @fires kassa-bridge-submitted - The wallet sent the transfer (`BridgeSubmittedDetail`: hash, account, chains, token, amount).
 * @fires kassa-bridge-mined - The burn is mined on the source chain (`BridgeMinedDetail`, with the block and burn id).
 * @fires kassa-bridge-delayed - Mined, but not arrived in the usual time (`BridgeDelayedDetail`); the panel follows on.
 * @fires kassa-bridge-arrived - The tokens arrived on the destination chain (`BridgeArrivedDetail`, with the mint's hash and the new balance).
 * @fires kassa-bridge-refunded - The bridge could not deliver and refunded the tokens on the source chain (`BridgeRefundedDetail`, with the refund's hash).
 * @fires kassa-bridge-error - Something stopped the panel or the transfer (`BridgeErrorDetail`: kind, stage, message).
 *
 * @csspart container - The surface around everything.
 * @csspart account - The connected wallet's bar: wallet, account, network, "Disconnect".
 * @csspart wallets - The list of wallets to connect.
 * @csspart wallet - Each wallet's button.
 * @csspart wallet-rdns - A wallet's reverse domain name, shown when another wallet announces the same name.
 * @csspart first-run - No wallet in this browser: the chains and tokens, what a wallet is, the help link.
 * @csspart help - The link to the merchant's help page (`help-url`).
 * @csspart form - The chain, token and amount fields.
 * @csspart amount - The amount field.
 * @csspart max - The "Max" button.
 * @csspart balance - The balance line under the amount.
 * @csspart preview - What the transaction does, shown before signing.
 * @csspart progress - The transfer under way: summary, steps, transaction hash.
 * @csspart steps - The steps list (sent, confirmed, arrived).
 * @csspart hash - The transaction hash.
 * @csspart receipt - A transfer's transactions (copy buttons, explorer links), balances afterwards and fee.
 * @csspart history - The account's recent transfers.
 * @csspart detail - A transfer of the history, opened.
 * @csspart status - The live status line (an aria-live region).
 * @csspart button - The main button: review, confirm, new transfer, try again.
 * @csspart secondary - The second button: back, new transfer.
 *
 * @cssprop --kassa-color-background - Surface and field colour.
 * @cssprop --kassa-color-text - Text colour.
 * @cssprop --kassa-color-muted - Secondary text, labels, field borders.
 * @cssprop --kassa-color-border - Surface border and separators.
 * @cssprop --kassa-color-primary - Main button and links.
 * @cssprop --kassa-color-on-primary - Main button text.
 * @cssprop --kassa-color-success - Arrival and finished steps.
 * @cssprop --kassa-color-danger - Failures, errors, an invalid amount.
 * @cssprop --kassa-color-focus - Keyboard focus ring.
 * @cssprop --kassa-font-family - Font.
 * @cssprop --kassa-font-size - Base font size; everything scales with it.
 * @cssprop --kassa-radius - Corner radius of the surface (buttons and fields follow).
 * @cssprop --kassa-spacing - Inner spacing.
 */
export class KassaBridge extends LitElement {
  static override styles = [
    tokens,
    controls,
    walletStyles,
    fieldStyles,
    bridgeStyles,
    stepStyles,
    statusStyles,
    previewStyles,
  ];
  // Declared here rather than with decorators, as <kassa-checkout> does: no decorator code to ship.
  static override properties: PropertyDeclarations = {
    proxy: {},
    network: {},
    locale: {},
    helpUrl: { attribute: 'help-url' },
    theme: { reflect: true },
    timeouts: { attribute: false },
    phase: { reflect: true },
  };

  /** The origin of the shop's Kassa proxy; by default the origin kassa.js was loaded from. */
  proxy = SCRIPT_ORIGIN;

  /** Which chains: `test` (the default) or `main` networks, as the proxy lists them. */
  network: BridgeNetwork = 'test';

  /** A BCP 47 locale (`de`, `fr-BE`); by default the nearest `lang` attribute, else the browser's language. */
  locale = '';

  /** A page of the merchant's on getting a wallet, linked where the browser has none. */
  helpUrl = '';

  /** `light`, `dark`, or `auto` (the default: the system's preference). */
  theme: 'auto' | 'light' | 'dark' = 'auto';

  /** How long each step may take before the panel says so, in milliseconds (`{mined, dropped, arrival}`); generous defaults. */
  timeouts: Partial<BridgeTimeouts> = {};

  /** What the user sees now (read only). */
  phase: BridgePhase = 'loading';

  private readonly i18n = new LocaleController(this, bridgeCatalogs);
  private readonly problems = new ProblemController<BridgeMessages, BridgeErrorDetail>(this, BRIDGE_PROBLEMS);
  private readonly wallet: WalletController = new WalletController(this, {
    allows: (action) => allows(this.phase, action),
    rememberAs: 'kassa-bridge-wallet:',
    origin: () => this.client?.origin,
    onConnecting: () => this.problems.clear(),
    onConnected: (focusInside) => this.transfer.walletConnected(focusInside),
    onRefused: (error) => walletRefused(this.problems, error),
    onChange: () => this.transfer.walletChanged(),
    onGone: () => this.transfer.walletLost(),
  });
  private readonly form = new FormController(this, {
    problems: this.problems,
    account: () => this.wallet.session?.account,
    locale: () => this.i18n.locale,
  });
  private readonly history = new HistoryController(this, { account: () => this.wallet.session?.account });
  private readonly transfer: TransferController = new TransferController(this, {
    problems: this.problems,
    wallet: this.wallet,
    form: this.form,
    history: this.history,
    locale: () => this.i18n.locale,
  });
  private client?: BridgeClient;
  /** Each load() bumps it; a listing that answers for an older one is dropped. */
  private generation = 0;

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('proxy') || changed.has('network')) void this.load();
  }

  /** Lists the proxy's chains afresh, then follows the transfer this tab kept, or shows the form. */
  private async load(): Promise<void> {
    const generation = ++this.generation;
    this.wallet.reset();
    this.transfer.reset();
    this.form.list([]);
    this.phase = 'loading';
    if (this.network !== 'test' && this.network !== 'main')
      return this.misconfigured('network-attribute', 'network must be test or main');
    let client: BridgeClient;
    try {
      client = this.client = new BridgeClient(this.proxy);
    } catch {
      return this.misconfigured('proxy-attribute', 'proxy must be the URL of the Kassa proxy');
    }
    let chains: ChainEntry[];
    try {
      chains = await client.chains(this.network);
    } catch (error) {
      if (generation !== this.generation) return;
      const failure = this.problems.proxyFailed(error, () => void this.load());
      this.phase = 'error';
      return this.problems.report(proxyErrorDetail(failure, 'chains'));
    }
    if (generation !== this.generation) return;
    if (chains.length < 2) {
      this.phase = 'error';
      this.problems.show({ message: 'noChains', retry: () => void this.load() });
      return this.problems.report({
        kind: 'no-chains',
        stage: 'chains',
        message: `The proxy lists ${chains.length} ${this.network} chain(s); a transfer needs two`,
      });
    }
    this.form.list(chains);
    this.form.pick(this.wallet.session?.chainId);
    const scope = `${client.origin} ${this.network}`;
    this.history.open(scope);
    void this.transfer.resume(client, new TransferStore(scope));
  }

  private misconfigured(code: MisconfigurationCode, message: string): void {
    this.phase = 'error';
    this.problems.misconfigured({ kind: 'misconfigured', stage: 'chains', code, message });
  }

  /** Loading, or looking for wallets for the first time (at most 400 ms): the panel shows its skeleton. */
  private get skeleton(): boolean {
    const { phase, wallet } = this;
    return (
      phase === 'loading' || (phase === 'connect' && !wallet.wallets.length && !wallet.settled && !wallet.lookedAgain)
    );
  }

  /** What the status line reads of the panel (bridge/status-line.ts). */
  private panelState(): PanelState {
    const { phase, problems, transfer, form, wallet, timeouts, skeleton } = this;
    return { phase, problems, transfer, form, wallet, timeouts, skeleton };
  }

  /** The main button, and the second one. */
  private buttons(m: BridgeMessages): Action[] {
    const { phase, transfer } = this;
    if (this.history.selected && allows(phase, 'edit')) return [[m.back, () => this.history.close()]];
    switch (phase) {
      case 'ready':
      case 'preparing':
        return [[m.review, () => void transfer.review(), phase === 'preparing']];
      case 'review':
      case 'switching':
      case 'signing': {
        const busy = phase !== 'review';
        return [
          [m.confirm, () => void transfer.confirm(), busy],
          [m.back, () => transfer.back(), busy, 'secondary'],
        ];
      }
      case 'submitted':
      case 'mined':
      case 'delayed':
        return [[m.inProgress, () => undefined, true]];
      case 'arrived':
      case 'refunded':
        return [[m.newTransfer, () => transfer.startOver()]];
      case 'failed': {
        const kind = transfer.failure?.kind;
        return kind === 'timeout' || kind === 'rpc'
          ? [
              [m.keepWaiting, () => transfer.retry()],
              [m.newTransfer, () => transfer.startOver(), false, 'secondary'],
            ]
          : [[m.tryAgain, () => transfer.retry()]];
      }
      case 'connect':
        return !this.wallet.wallets.length && this.wallet.settled
          ? [[m.lookAgain, () => this.wallet.lookAgain(), false, 'secondary']]
          : [];
      case 'error': {
        const retry = this.problems.retryAction(m.tryAgain);
        return retry ? [retry] : [];
      }
      default:
        return [];
    }
  }

  /** What the phase shows between the wallet bar and the status line. */
  private body(m: BridgeMessages): TemplateResult | typeof nothing {
    const { phase, transfer, form } = this;
    const locale = this.i18n.locale;
    switch (phase) {
      case 'connect':
      case 'connecting':
        return !this.wallet.wallets.length && this.wallet.settled
          ? firstRunView(form, m, locale, helpLink(this.helpUrl, document.baseURI))
          : walletList(this.wallet, m);
      case 'ready':
      case 'preparing': {
        const { selected } = this.history;
        if (selected && phase === 'ready') return detailView(selected, form, this.history, m, locale);
        return html`${formView(form, phase, m, locale, () => void transfer.review())}
        ${historyList(this.history, form, m, locale)}`;
      }
      case 'review':
      case 'switching':
      case 'signing':
        return transfer.prepared
          ? previewView(transfer.prepared.preview, m, locale, this.wallet.session?.chainId)
          : nothing;
      case 'submitted':
      case 'mined':
      case 'delayed':
      case 'arrived':
      case 'refunded':
      case 'failed':
        return progressView(transfer, form, phase, m, locale);
      default:
        return nothing;
    }
  }

  override render(): TemplateResult {
    if (!this.i18n.ready) return loadingView();
    const m = this.i18n.messages;
    return html`<div part="container" class="surface" aria-busy=${this.skeleton ? 'true' : 'false'}>
      ${walletBar(this.wallet, this.form, this.history, this.phase, m)} ${this.body(m)}
      ${statusView(...statusLine(this.panelState(), m, this.i18n.locale))}
      ${this.phase === 'arrived' || this.phase === 'refunded' ? outcomeView(this.transfer, this.form, this.history, m, this.i18n.locale) : nothing}
      <div class="actions">${this.buttons(m).map((action) => actionView(action))}</div>
    </div>`;
  }
}

customElements.define('kassa-bridge', KassaBridge);
