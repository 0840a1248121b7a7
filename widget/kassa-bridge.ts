import { Transaction } from 'ethers';
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { fromUnits } from '../lib/money.ts';
import { describeTransfer, PreviewError, type TransferPreview } from '../lib/transfer-preview.ts';
import type { ChainEntry, TokenInfo } from '../schemas/reforge.ts';
import { exampleAmount, readAmount, tokenAmount, unitsAsInput, type AmountProblem } from './bridge/amount.ts';
import { bridgeCatalogs } from './bridge/bridge-catalogs.ts';
import { BridgeClient, type BridgeNetwork } from './bridge/bridge-client.ts';
import { ChainRpc } from './bridge/chain-rpc.ts';
import { BridgeError, type BridgeErrorKind, type BridgeStage } from './bridge/errors.ts';
import type {
  BridgeArrivedDetail,
  BridgeErrorDetail,
  BridgeMinedDetail,
  BridgePhase,
  BridgeSubmittedDetail,
  BridgeTransferDetail,
} from './bridge/events.ts';
import type { BridgeMessages } from './bridge/messages/en.ts';
import { ensureChain, sendThroughWallet } from './bridge/send-transfer.ts';
import { bridgeStyles, previewStyles } from './bridge/styles.ts';
import {
  DEFAULT_TIMEOUTS,
  followToArrival,
  followToReceipt,
  type Arrived,
  type BridgeTimeouts,
  type Mined,
} from './bridge/transfer-follower.ts';
import { TransferStore, type TransferRecord } from './bridge/transfer-store.ts';
import { previewView, shorten, stepsView, walletIcon, type StepState } from './bridge/views.ts';
import { INJECTED_RDNS, WalletDiscovery, WalletSession, type DiscoveredWallet } from './bridge/wallets.ts';
import { formatDuration } from './shared/format.ts';
import { fill } from './shared/i18n.ts';
import { emit } from './shared/kassa-event.ts';
import { LocaleController } from './shared/locale-controller.ts';
import { ProxyError } from './shared/proxy-client.ts';
import { controls, statusStyles, tokens } from './shared/theme.ts';

export type {
  BridgeArrivedDetail,
  BridgeErrorDetail,
  BridgeErrorKind,
  BridgeMinedDetail,
  BridgePhase,
  BridgeStage,
  BridgeSubmittedDetail,
  BridgeTimeouts,
  BridgeTransferDetail,
} from './bridge/events.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-bridge': KassaBridge;
  }
  interface HTMLElementEventMap {
    'kassa-bridge-submitted': CustomEvent<BridgeSubmittedDetail>;
    'kassa-bridge-mined': CustomEvent<BridgeMinedDetail>;
    'kassa-bridge-arrived': CustomEvent<BridgeArrivedDetail>;
    'kassa-bridge-error': CustomEvent<BridgeErrorDetail>;
  }
}

interface Problem {
  message: keyof BridgeMessages;
  values?: Record<string, string>;
  /** Seconds the proxy asked to wait. */
  wait?: number;
  /** What "Try again" does, where the phase has no button of its own. */
  retry?: () => void;
}

interface Prepared {
  tx: Transaction;
  preview: TransferPreview;
  source: ChainEntry;
  destination: ChainEntry;
}

const SCRIPT_ORIGIN = new URL(import.meta.url).origin;
const WALLET_KEY = 'kassa-bridge-wallet:';
/** Phases in which a transfer is being made or followed: nothing else may start. */
const UNDER_WAY: ReadonlySet<BridgePhase> = new Set(['preparing', 'switching', 'signing', 'submitted', 'mined']);
const AMOUNT_MESSAGES: Record<Exclude<AmountProblem, 'empty'>, keyof BridgeMessages> = {
  invalid: 'amountInvalid',
  decimals: 'amountDecimals',
  zero: 'amountZero',
  insufficient: 'insufficientBalance',
};
/** What the user is told for each error kind (those with a message of their own). */
const KIND_MESSAGES: Partial<Record<BridgeErrorKind, keyof BridgeMessages>> = {
  'wallet-rejected': 'walletRejected',
  'wallet-unauthorized': 'walletUnauthorized',
  'wallet-disconnected': 'walletDisconnected',
  'wallet-busy': 'walletBusy',
  'wallet-error': 'walletError',
  'wrong-chain': 'wrongChain',
  'preview-refused': 'previewRefused',
  reverted: 'reverted',
  dropped: 'dropped',
  replaced: 'replaced',
  rpc: 'rpcError',
  'no-chains': 'noChains',
  misconfigured: 'misconfigured',
};

/**
 * The wallet panel: moves a stablecoin to another chain with the user's own wallet. It lists the
 * chains and tokens the shop's Kassa proxy offers, reads the balance, has the proxy prepare the
 * burn, shows what the transaction does before anything is signed, puts the wallet on the right
 * chain, has the wallet sign and send it, and follows it to its receipt and to the tokens' arrival
 * on the destination chain. No key ever reaches the page, the proxy or Kassa: the wallet signs.
 *
 * @fires kassa-bridge-submitted - The wallet sent the transfer (`BridgeSubmittedDetail`: hash, account, chains, token, amount).
 * @fires kassa-bridge-mined - The burn is mined on the source chain (`BridgeMinedDetail`, with the block and burn id).
 * @fires kassa-bridge-arrived - The tokens arrived on the destination chain (`BridgeArrivedDetail`, with the mint's hash and the new balance).
 * @fires kassa-bridge-error - Something stopped the panel or the transfer (`BridgeErrorDetail`: kind, stage, message).
 *
 * @csspart container - The surface around everything.
 * @csspart account - The connected wallet's bar: wallet, account, network, "Disconnect".
 * @csspart wallets - The list of wallets to connect.
 * @csspart wallet - Each wallet's button.
 * @csspart form - The chain, token and amount fields.
 * @csspart amount - The amount field.
 * @csspart max - The "Max" button.
 * @csspart balance - The balance line under the amount.
 * @csspart preview - What the transaction does, shown before signing.
 * @csspart progress - The transfer under way: summary, steps, transaction hash.
 * @csspart steps - The steps list (sent, confirmed, arrived).
 * @csspart hash - The transaction hash.
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
@customElement('kassa-bridge')
export class KassaBridge extends LitElement {
  static override styles = [tokens, controls, bridgeStyles, statusStyles, previewStyles];

  /** The origin of the shop's Kassa proxy; by default the origin kassa.js was loaded from. */
  @property() proxy = SCRIPT_ORIGIN;

  /** Which chains: `test` (the default) or `main` networks, as the proxy lists them. */
  @property() network: BridgeNetwork = 'test';

  /** A BCP 47 locale (`de`, `fr-BE`); by default the nearest `lang` attribute, else the browser's language. */
  @property() locale = '';

  /** `light`, `dark`, or `auto` (the default: the system's preference). */
  @property({ reflect: true }) theme: 'auto' | 'light' | 'dark' = 'auto';

  /** How long each step may take before the panel says so, in milliseconds (`{mined, dropped, arrival}`); generous defaults. */
  @property({ attribute: false }) timeouts: Partial<BridgeTimeouts> = {};

  /** What the user sees now (read only). */
  @property({ reflect: true }) phase: BridgePhase = 'loading';

  @state() private chains: ChainEntry[] = [];
  @state() private session?: WalletSession;
  @state() private connectingTo?: DiscoveredWallet;
  @state() private sourceId = 0;
  @state() private destinationId = 0;
  @state() private symbol = '';
  @state() private amountText = '';
  @state() private touched = false;
  /** The token balance on the source chain: undefined while read, null when it cannot be. */
  @state() private balance?: bigint | null;
  @state() private prepared?: Prepared;
  @state() private transfer?: TransferRecord;
  @state() private mined?: Mined;
  @state() private arrived?: Arrived;
  @state() private failure?: BridgeError;
  @state() private problem?: Problem;
  @state() private coolingDown = false;

  private readonly i18n = new LocaleController(this, bridgeCatalogs);
  private readonly discovery = new WalletDiscovery(this);
  private client?: BridgeClient;
  private store?: TransferStore;
  private readonly rpcs = new Map<number, ChainRpc>();
  /** Each load() bumps it; answers for an older one are dropped. */
  private generation = 0;
  private balanceGeneration = 0;
  private following?: AbortController;
  /** Wallets already tried for a silent reconnect in this load. */
  private readonly restoreTried = new Set<string>();
  private coolDownTimer?: ReturnType<typeof setTimeout>;

  override connectedCallback(): void {
    super.connectedCallback();
    // Put back into the page while a transfer was being followed: follow it again.
    if (this.transfer && !this.following && (this.phase === 'submitted' || this.phase === 'mined'))
      this.follow(this.transfer);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.following?.abort();
    this.following = undefined;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('proxy') || changed.has('network')) void this.load();
  }

  protected override updated(): void {
    // After this update, not during it: connecting changes state.
    void Promise.resolve().then(() => this.restoreWallet());
  }

  // ---- loading and wallets ----

  private async load(): Promise<void> {
    const generation = ++this.generation;
    this.following?.abort();
    this.following = undefined;
    this.chains = [];
    this.rpcs.clear();
    this.prepared = this.transfer = this.mined = this.arrived = this.failure = this.problem = undefined;
    this.phase = 'loading';
    if (this.network !== 'test' && this.network !== 'main') return this.misconfigured('network must be test or main');
    try {
      this.client = new BridgeClient(this.proxy);
    } catch {
      return this.misconfigured('proxy must be the URL of the Kassa proxy');
    }
    this.store = new TransferStore(`${this.client.origin} ${this.network}`);
    let chains: ChainEntry[];
    try {
      chains = await this.client.chains(this.network);
    } catch (error) {
      if (generation === this.generation) this.proxyFailed(error, 'chains', () => void this.load());
      return;
    }
    if (generation !== this.generation) return;
    if (chains.length < 2) {
      this.phase = 'error';
      this.problem = { message: 'noChains', retry: () => void this.load() };
      emit<BridgeErrorDetail>(this, 'kassa-bridge-error', {
        kind: 'no-chains',
        stage: 'chains',
        message: `The proxy lists ${chains.length} ${this.network} chain(s); a transfer needs two`,
      });
      return;
    }
    this.chains = chains;
    this.pickChains(this.session?.chainId);
    const kept = this.store.read();
    if (
      kept &&
      chains.some((chain) => chain.chainId === kept.sourceChainId) &&
      chains.some((chain) => chain.chainId === kept.destinationChainId)
    ) {
      this.sourceId = kept.sourceChainId;
      this.destinationId = kept.destinationChainId;
      this.symbol = kept.symbol;
      this.follow(kept);
      return;
    }
    this.store.clear();
    this.phase = this.session ? 'ready' : 'connect';
    if (this.session) void this.refreshBalance();
  }

  /** Source, destination and token defaults: the wallet's chain as the source when it is listed. */
  private pickChains(walletChain?: number): void {
    const ids = this.chains.map((chain) => chain.chainId);
    if (!ids.includes(this.sourceId))
      this.sourceId = walletChain !== undefined && ids.includes(walletChain) ? walletChain : ids[0]!;
    if (!ids.includes(this.destinationId) || this.destinationId === this.sourceId)
      this.destinationId = ids.find((id) => id !== this.sourceId)!;
    const symbols = this.symbols();
    if (!symbols.includes(this.symbol)) this.symbol = symbols[0] ?? '';
  }

  private chain(chainId: number): ChainEntry | undefined {
    return this.chains.find((chain) => chain.chainId === chainId);
  }

  /** The tokens both chosen chains carry. */
  private symbols(): string[] {
    const destination = this.chain(this.destinationId);
    return Object.keys(this.chain(this.sourceId)?.tokens ?? {}).filter((symbol) => destination?.tokens[symbol]);
  }

  private token(chainId: number, symbol = this.symbol): TokenInfo | undefined {
    return this.chain(chainId)?.tokens[symbol];
  }

  private rpc(chain: ChainEntry): ChainRpc {
    let rpc = this.rpcs.get(chain.chainId);
    if (!rpc) this.rpcs.set(chain.chainId, (rpc = new ChainRpc(chain)));
    return rpc;
  }

  private walletName(wallet: DiscoveredWallet): string {
    return wallet.info.rdns === INJECTED_RDNS && !wallet.info.name
      ? this.i18n.messages.browserWallet
      : wallet.info.name;
  }

  private async connect(wallet: DiscoveredWallet, silently = false): Promise<void> {
    if (
      this.session ||
      this.connectingTo ||
      (this.phase !== 'connect' &&
        this.phase !== 'submitted' &&
        this.phase !== 'mined' &&
        this.phase !== 'arrived' &&
        this.phase !== 'failed')
    )
      return;
    const generation = this.generation;
    const under = this.phase;
    const focusInside = this.matches(':focus-within');
    this.connectingTo = wallet;
    this.problem = undefined;
    if (!silently && under === 'connect') this.phase = 'connecting';
    let session: WalletSession | undefined;
    try {
      session = await WalletSession.connect(
        wallet,
        { onChange: () => this.walletChanged(), onDisconnect: () => this.walletGone() },
        silently,
      );
    } catch (error) {
      this.connectingTo = undefined;
      if (generation !== this.generation) return;
      if (this.phase === 'connecting') this.phase = 'connect';
      const problem = error as BridgeError;
      this.problem = {
        message:
          problem.kind === 'wallet-rejected' ? 'connectRejected' : (KIND_MESSAGES[problem.kind] ?? 'walletError'),
      };
      this.report(problem);
      return;
    }
    this.connectingTo = undefined;
    if (!session) {
      if (this.phase === 'connecting') this.phase = 'connect';
      return;
    }
    if (generation !== this.generation) return session.close();
    this.session = session;
    try {
      sessionStorage.setItem(WALLET_KEY + this.client!.origin, wallet.info.rdns || wallet.info.name);
    } catch {
      // not remembered across reloads
    }
    if (this.phase === 'connect' || this.phase === 'connecting') {
      this.sourceId = 0;
      this.pickChains(session.chainId);
      this.phase = 'ready';
      void this.refreshBalance();
      if (focusInside) {
        await this.updateComplete;
        this.renderRoot.querySelector<HTMLInputElement>('#amount')?.focus();
      }
    }
  }

  /** After a reload, the wallet chosen before (by its rdns) is reconnected without a prompt, if it still grants this page. */
  private restoreWallet(): void {
    if (this.session || this.connectingTo || !this.client || this.phase === 'loading' || this.phase === 'error') return;
    let remembered: string | null = null;
    try {
      remembered = sessionStorage.getItem(WALLET_KEY + this.client.origin);
    } catch {
      return;
    }
    if (!remembered) return;
    const wallet = this.discovery.wallets.find(
      (candidate) => (candidate.info.rdns || candidate.info.name) === remembered,
    );
    if (!wallet || this.restoreTried.has(wallet.info.uuid)) return;
    this.restoreTried.add(wallet.info.uuid);
    void this.connect(wallet, true);
  }

  private disconnectWallet(): void {
    this.session?.close();
    this.session = undefined;
    try {
      sessionStorage.removeItem(WALLET_KEY + this.client?.origin);
    } catch {
      // nothing kept
    }
    this.walletGone();
  }

  /** The wallet's account or chain changed (by the user, in the wallet). */
  private walletChanged(): void {
    const previewedFor = this.prepared?.preview.mint.to;
    if (this.phase === 'review' && previewedFor && previewedFor.toLowerCase() !== this.session?.account.toLowerCase()) {
      this.prepared = undefined;
      this.phase = 'ready';
      this.problem = { message: 'accountChanged' };
    }
    if (this.phase === 'ready' || this.phase === 'arrived') void this.refreshBalance();
    this.requestUpdate();
  }

  /** The wallet disconnected, or no longer grants an account. A transfer already sent is still followed. */
  private walletGone(): void {
    this.session?.close();
    this.session = undefined;
    if (
      this.phase === 'ready' ||
      this.phase === 'preparing' ||
      this.phase === 'review' ||
      this.phase === 'connecting'
    ) {
      this.prepared = undefined;
      this.problem = undefined;
      this.phase = 'connect';
    }
  }

  // ---- the form ----

  private async refreshBalance(): Promise<void> {
    const generation = ++this.balanceGeneration;
    const source = this.chain(this.sourceId);
    const token = this.token(this.sourceId);
    const account = this.session?.account;
    this.balance = undefined;
    if (!source || !token || !account) return;
    try {
      const balance = await this.rpc(source).tokenBalance(token.address, account, 'balance');
      if (generation === this.balanceGeneration) this.balance = balance;
    } catch (error) {
      if (generation !== this.balanceGeneration) return;
      this.balance = null;
      this.report(error as BridgeError);
    }
  }

  private choose(field: 'source' | 'destination' | 'token', value: string): void {
    if (this.phase !== 'ready') return;
    this.problem = undefined;
    if (field === 'token') this.symbol = value;
    else {
      const id = Number(value);
      const other = field === 'source' ? this.destinationId : this.sourceId;
      // Choosing the other side's chain swaps the two.
      if (id === other) [this.sourceId, this.destinationId] = [this.destinationId, this.sourceId];
      else if (field === 'source') this.sourceId = id;
      else this.destinationId = id;
      this.pickChains();
    }
    void this.refreshBalance();
  }

  private swap(): void {
    if (this.phase !== 'ready') return;
    [this.sourceId, this.destinationId] = [this.destinationId, this.sourceId];
    this.pickChains();
    this.problem = undefined;
    void this.refreshBalance();
  }

  private useMax(): void {
    const token = this.token(this.sourceId);
    if (this.phase !== 'ready' || !token || typeof this.balance !== 'bigint') return;
    this.amountText = unitsAsInput(this.balance, token.decimals, this.i18n.locale);
    this.touched = true;
    this.problem = undefined;
  }

  private amountReading() {
    const token = this.token(this.sourceId);
    return token
      ? readAmount(this.amountText, token.decimals, this.i18n.locale, this.balance ?? undefined)
      : ({ ok: false, problem: 'invalid' } as const);
  }

  /** The amount's problem as the user reads it, or '' (nothing said about an empty field not yet touched). */
  private amountProblem(m: BridgeMessages): string {
    const token = this.token(this.sourceId);
    const reading = this.amountReading();
    if (reading.ok || !token || (!this.touched && reading.problem === 'empty')) return '';
    const problem = reading.problem === 'empty' ? 'zero' : reading.problem;
    return fill(m[AMOUNT_MESSAGES[problem]], {
      example: exampleAmount(this.i18n.locale),
      symbol: token.symbol,
      decimals: String(token.decimals),
      balance:
        typeof this.balance === 'bigint'
          ? tokenAmount(fromUnits(this.balance, token.decimals), token.symbol, this.i18n.locale)
          : '',
    });
  }

  // ---- prepare and preview ----

  private async review(): Promise<void> {
    if (this.phase !== 'ready' || !this.session || !this.client) return;
    const source = this.chain(this.sourceId);
    const destination = this.chain(this.destinationId);
    const sourceToken = this.token(this.sourceId);
    const destinationToken = this.token(this.destinationId);
    if (!source || !destination || !sourceToken || !destinationToken) return;
    const generation = this.generation;
    const account = this.session.account;
    this.touched = true;
    this.problem = undefined;
    this.phase = 'preparing';
    // The balance is checked before preparing: read it now if it is not known yet.
    if (typeof this.balance !== 'bigint') await this.refreshBalance();
    if (generation !== this.generation || this.phase !== 'preparing') return;
    if (typeof this.balance !== 'bigint') {
      this.phase = 'ready';
      return this.show({ message: 'rpcError', values: { chain: source.name } });
    }
    const reading = this.amountReading();
    if (!reading.ok) {
      this.phase = 'ready';
      if (reading.problem === 'insufficient')
        this.report(
          new BridgeError(
            'insufficient-balance',
            'balance',
            `The balance is ${this.balance} base units, the transfer needs more`,
          ),
        );
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLInputElement>('#amount')?.focus();
      return;
    }
    let serialized: string;
    try {
      serialized = await this.client.prepare({
        sourceAmount: reading.amount,
        sourceToken: sourceToken.address,
        destinationToken: destinationToken.address,
        destinationChainId: destination.chainId,
      });
    } catch (error) {
      if (generation !== this.generation || this.phase !== 'preparing') return;
      this.phase = 'ready';
      return this.proxyFailed(error, 'prepare', () => void this.review());
    }
    if (generation !== this.generation || this.phase !== 'preparing') return;
    try {
      const preview = describeTransfer(serialized, this.chains, account);
      // Fail closed: what the proxy prepared must be exactly what the user asked for.
      const mismatch =
        preview.chain.chainId !== source.chainId
          ? 'chain'
          : preview.contract.toLowerCase() !== sourceToken.address.toLowerCase()
            ? 'token'
            : preview.burn.units !== reading.units
              ? 'amount'
              : preview.mint.chainId !== destination.chainId ||
                  preview.mint.token.address.toLowerCase() !== destinationToken.address.toLowerCase()
                ? 'destination'
                : preview.mint.to?.toLowerCase() !== account.toLowerCase()
                  ? 'recipient'
                  : undefined;
      if (mismatch) throw new PreviewError(`The prepared transaction's ${mismatch} is not the one asked for`);
      this.prepared = { tx: Transaction.from(serialized), preview, source, destination };
      this.phase = 'review';
    } catch (error) {
      this.phase = 'ready';
      this.fail(
        new BridgeError('preview-refused', 'preview', error instanceof PreviewError ? error.message : String(error)),
      );
    }
  }

  private back(): void {
    if (this.phase !== 'review') return;
    this.prepared = undefined;
    this.problem = undefined;
    this.phase = 'ready';
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLButtonElement>('[part~="button"]')?.focus());
  }

  // ---- send ----

  /** Checks, puts the wallet on the transaction's chain, has it sign and send, and follows the transfer. Once. */
  private async confirm(): Promise<void> {
    const { prepared, session, store } = this;
    if (this.phase !== 'review' || !prepared || !session || !store || store.read()) return;
    const { tx, preview, source, destination } = prepared;
    const generation = this.generation;
    const account = session.account;
    this.problem = undefined;
    this.phase = 'signing';
    const sourceRpc = this.rpc(source);
    const destinationRpc = this.rpc(destination);
    let record: TransferRecord;
    try {
      // Before anything reaches the wallet: the tokens and the most the fee can be are there.
      const [tokens, native] = await Promise.all([
        sourceRpc.tokenBalance(preview.contract, account, 'send'),
        sourceRpc.nativeBalance(account, 'send'),
      ]);
      if (tokens < preview.burn.units)
        throw new BridgeError(
          'insufficient-balance',
          'send',
          `The balance is ${tokens} base units, the transfer needs ${preview.burn.units}`,
        );
      if (native < preview.maxFeeWei)
        throw new BridgeError(
          'insufficient-gas',
          'send',
          `The account has ${native} wei on chain ${source.chainId}, the fee may be up to ${preview.maxFeeWei}`,
        );
      await ensureChain(session, source, () => (this.phase = 'switching'));
      if (session.account.toLowerCase() !== account.toLowerCase() || this.session !== session)
        throw new BridgeError('wallet-unauthorized', 'switch', 'The wallet switched accounts before signing');
      this.phase = 'signing';
      const [nonceBefore, sourceBlock, destinationBlock, destinationBalance] = await Promise.all([
        sourceRpc.nonce(account, 'send'),
        sourceRpc.blockNumber('send'),
        destinationRpc.blockNumber('send'),
        destinationRpc.tokenBalance(preview.mint.token.address, account, 'send'),
      ]);
      const hash = await sendThroughWallet(session, tx);
      record = {
        v: 1,
        hash,
        from: account,
        sourceChainId: source.chainId,
        destinationChainId: destination.chainId,
        symbol: preview.burn.token.symbol,
        amount: preview.burn.amount.replace(/\.0$/, ''),
        units: preview.burn.units.toString(),
        sourceToken: preview.contract,
        destinationToken: preview.mint.token.address,
        to: tx.to!,
        data: tx.data,
        nonceBefore: nonceBefore.toString(),
        sourceBlock: sourceBlock.toString(),
        destinationBlock: destinationBlock.toString(),
        destinationBalance: destinationBalance.toString(),
        sentAt: Date.now(),
      };
    } catch (error) {
      if (generation !== this.generation) return;
      const problem = error instanceof BridgeError ? error : new BridgeError('wallet-error', 'send', String(error));
      if (problem.kind === 'wallet-unauthorized' || problem.kind === 'wallet-disconnected') {
        this.prepared = undefined;
        this.phase = this.session ? 'ready' : 'connect';
      } else if (problem.kind === 'insufficient-balance') {
        this.prepared = undefined;
        this.phase = 'ready';
        void this.refreshBalance();
      } else {
        this.phase = 'review';
      }
      const gas: Record<string, string> =
        problem.kind === 'insufficient-gas'
          ? {
              symbol: source.nativeCurrency.symbol,
              fee: tokenAmount(preview.maxFee, preview.chain.nativeSymbol, this.i18n.locale),
            }
          : {};
      return this.fail(problem, { chain: source.name, ...gas });
    }
    store.save(record);
    emit<BridgeSubmittedDetail>(this, 'kassa-bridge-submitted', this.detailOf(record));
    if (generation === this.generation) this.follow(record);
  }

  private detailOf(record: TransferRecord): BridgeTransferDetail {
    const { hash, from, sourceChainId, destinationChainId, symbol, amount } = record;
    return { hash, from, sourceChainId, destinationChainId, symbol, amount };
  }

  // ---- follow ----

  /** Follows a sent transfer (just sent, or kept across a reload) to its receipt and its arrival. */
  private follow(record: TransferRecord): void {
    this.following?.abort();
    const following = (this.following = new AbortController());
    const source = this.chain(record.sourceChainId)!;
    const destination = this.chain(record.destinationChainId)!;
    const timeouts = { ...DEFAULT_TIMEOUTS, ...this.timeouts };
    this.transfer = record;
    this.prepared = this.arrived = this.failure = this.problem = undefined;
    this.mined = record.burnId
      ? { hash: record.hash, blockNumber: Number(record.blockNumber), burnId: record.burnId, gasUsed: 0n }
      : undefined;
    this.phase = record.burnId ? 'mined' : 'submitted';
    void (async () => {
      try {
        if (!record.burnId) {
          const mined = await followToReceipt(
            record,
            this.rpc(source),
            timeouts,
            {
              onRepriced: () => {
                this.store?.save(record);
                this.requestUpdate();
              },
              onMined: (mined) => {
                record.burnId = mined.burnId;
                record.blockNumber = String(mined.blockNumber);
                record.hash = mined.hash;
                this.store?.save(record);
              },
            },
            following.signal,
          );
          if (following.signal.aborted) return;
          this.mined = mined;
          this.phase = 'mined';
          emit<BridgeMinedDetail>(this, 'kassa-bridge-mined', {
            ...this.detailOf(record),
            blockNumber: mined.blockNumber,
            burnId: mined.burnId,
          });
        }
        const arrived = await followToArrival(
          record as TransferRecord & { burnId: string },
          this.rpc(destination),
          timeouts,
          Date.now(),
          following.signal,
        );
        if (following.signal.aborted) return;
        this.store?.clear();
        this.arrived = arrived;
        this.phase = 'arrived';
        const token = this.token(record.destinationChainId, record.symbol);
        emit<BridgeArrivedDetail>(this, 'kassa-bridge-arrived', {
          ...this.detailOf(record),
          burnId: arrived.burnId,
          destinationHash: arrived.destinationHash,
          destinationBlock: arrived.destinationBlock,
          balance: fromUnits(arrived.balance, token?.decimals ?? 18),
        });
        if (this.session) void this.refreshBalance();
      } catch (error) {
        if (following.signal.aborted) return;
        const problem =
          error instanceof BridgeError
            ? error
            : new BridgeError('rpc', this.mined ? 'arrival' : 'mined', String(error));
        // A transfer that may still complete is kept (a reload goes on following it); one that cannot is let go.
        if (problem.kind !== 'timeout' && problem.kind !== 'rpc') this.store?.clear();
        this.failure = problem;
        this.phase = 'failed';
        this.report(problem, record.hash);
      } finally {
        if (this.following === following) this.following = undefined;
      }
    })();
  }

  /** After a failure: follow on (a timeout, an RPC outage) or start again with the same choices. */
  private afterFailure(): void {
    const { failure, transfer } = this;
    if (this.phase !== 'failed') return;
    if (transfer && failure && (failure.kind === 'timeout' || failure.kind === 'rpc')) {
      transfer.sentAt = Date.now();
      return this.follow(transfer);
    }
    this.startOver(false);
  }

  /** A new transfer: the form again, with the chains and token kept (and the amount, after a failure). */
  private startOver(clearAmount = true): void {
    if (this.phase !== 'arrived' && this.phase !== 'failed') return;
    this.following?.abort();
    this.following = undefined;
    this.store?.clear();
    this.transfer = this.mined = this.arrived = this.failure = this.prepared = this.problem = undefined;
    if (clearAmount) {
      this.amountText = '';
      this.touched = false;
    }
    this.phase = this.session ? 'ready' : 'connect';
    if (this.session) void this.refreshBalance();
  }

  // ---- problems ----

  private proxyFailed(error: unknown, stage: BridgeStage, retry: () => void): void {
    const problem = error instanceof ProxyError ? error : new ProxyError('unavailable', 0, String(error));
    const { kind, status, retryAfter } = problem;
    const message: keyof BridgeMessages =
      kind === 'unreachable'
        ? 'unreachable'
        : kind === 'rate-limited'
          ? 'rateLimited'
          : kind === 'unavailable'
            ? 'unavailable'
            : status === 403
              ? 'notAllowed'
              : 'prepareRefused';
    if (stage === 'chains') this.phase = 'error';
    this.show({ message, wait: retryAfter, retry: stage === 'chains' ? retry : undefined });
    emit<BridgeErrorDetail>(this, 'kassa-bridge-error', {
      kind,
      stage,
      message: problem.message,
      status,
      ...(retryAfter ? { retryAfter } : {}),
    });
  }

  /** Shows a problem (in the current phase) and reports it. */
  private fail(problem: BridgeError, values: Record<string, string> = {}): void {
    const source = this.chain(this.sourceId);
    this.show({
      message:
        problem.kind === 'insufficient-balance'
          ? 'insufficientBalance'
          : problem.kind === 'insufficient-gas'
            ? 'insufficientGas'
            : (KIND_MESSAGES[problem.kind] ?? 'walletError'),
      values: {
        chain: source?.name ?? '',
        symbol: this.symbol,
        balance:
          typeof this.balance === 'bigint'
            ? tokenAmount(
                fromUnits(this.balance, this.token(this.sourceId)?.decimals ?? 18),
                this.symbol,
                this.i18n.locale,
              )
            : '',
        ...values,
      },
    });
    this.report(problem);
  }

  private show(problem: Problem): void {
    this.problem = problem;
    clearTimeout(this.coolDownTimer);
    this.coolingDown = !!problem.wait;
    if (problem.wait) this.coolDownTimer = setTimeout(() => (this.coolingDown = false), problem.wait * 1000);
  }

  private report(problem: BridgeError, hash?: string): void {
    const { kind, stage, message, extra } = problem;
    emit<BridgeErrorDetail>(this, 'kassa-bridge-error', {
      kind,
      stage,
      message,
      ...(extra.code !== undefined ? { code: extra.code } : {}),
      ...(hash ? { hash } : {}),
    });
  }

  private misconfigured(message: string): void {
    this.phase = 'error';
    this.show({ message: 'misconfigured' });
    emit<BridgeErrorDetail>(this, 'kassa-bridge-error', { kind: 'misconfigured', stage: 'chains', message });
  }

  // ---- rendering ----

  /** The status line: its text, tone and whether a spinner shows. */
  private statusLine(m: BridgeMessages): [text: string, tone: string, busy: boolean] {
    const problem = this.problem;
    if (problem && !UNDER_WAY.has(this.phase)) {
      const base = fill(m[problem.message], problem.values ?? {});
      const text =
        problem.message === 'rateLimited' || problem.message === 'unavailable'
          ? `${base} ${problem.wait ? fill(m.waitFor, { wait: formatDuration(problem.wait * 1000, this.i18n.locale) }) : m.tryShortly}`
          : base;
      return [text, problem.message === 'accountChanged' ? '' : 'danger', false];
    }
    const transfer = this.transfer;
    const source = this.chain(transfer?.sourceChainId ?? this.sourceId)?.name ?? '';
    const destination = this.chain(transfer?.destinationChainId ?? this.destinationId)?.name ?? '';
    switch (this.phase) {
      case 'loading':
        return ['', '', true];
      case 'connect':
        return [
          this.discovery.wallets.length ? m.chooseWallet : this.discovery.settled ? m.noWallet : m.lookingForWallets,
          '',
          false,
        ];
      case 'connecting':
        return [fill(m.connecting, { wallet: this.connectingTo ? this.walletName(this.connectingTo) : '' }), '', true];
      case 'preparing':
        return [m.preparing, '', true];
      case 'switching':
        return [fill(m.switching, { chain: this.prepared?.source.name ?? source }), '', true];
      case 'signing':
        return [m.signing, '', true];
      case 'submitted':
        return [fill(m.submitted, { chain: source }), '', true];
      case 'mined':
        return [fill(m.mined, { source, destination }), '', true];
      case 'arrived':
        return [
          fill(m.arrived, {
            amount: tokenAmount(transfer!.amount, transfer!.symbol, this.i18n.locale),
            chain: destination,
          }),
          'success',
          false,
        ];
      case 'failed': {
        const failure = this.failure!;
        const timeouts = { ...DEFAULT_TIMEOUTS, ...this.timeouts };
        if (failure.kind === 'timeout') {
          const arrival = failure.stage === 'arrival';
          return [
            fill(arrival ? m.arrivalTimeout : m.minedTimeout, {
              chain: arrival ? destination : source,
              wait: formatDuration(arrival ? timeouts.arrival : timeouts.mined, this.i18n.locale),
            }),
            'danger',
            false,
          ];
        }
        const chain = failure.stage === 'arrival' ? destination : source;
        return [fill(m[KIND_MESSAGES[failure.kind] ?? 'rpcError'], { chain }), 'danger', false];
      }
      default:
        return ['', '', false];
    }
  }

  /** The main button: label, action, busy; and the second one. */
  private buttons(
    m: BridgeMessages,
  ): Array<[label: string, run: () => void, busy: boolean, part: 'button' | 'secondary']> {
    switch (this.phase) {
      case 'ready':
      case 'preparing':
        return [[m.review, () => void this.review(), this.phase === 'preparing', 'button']];
      case 'review':
      case 'switching':
      case 'signing': {
        const busy = this.phase !== 'review';
        return [
          [m.confirm, () => void this.confirm(), busy, 'button'],
          [m.back, () => this.back(), busy, 'secondary'],
        ];
      }
      case 'submitted':
      case 'mined':
        return [[m.inProgress, () => undefined, true, 'button']];
      case 'arrived':
        return [[m.newTransfer, () => this.startOver(), false, 'button']];
      case 'failed': {
        const kind = this.failure?.kind;
        return kind === 'timeout' || kind === 'rpc'
          ? [
              [m.keepWaiting, () => this.afterFailure(), false, 'button'],
              [m.newTransfer, () => this.startOver(), false, 'secondary'],
            ]
          : [[m.tryAgain, () => this.afterFailure(), false, 'button']];
      }
      case 'error':
        return this.problem?.retry ? [[m.tryAgain, this.problem.retry, this.coolingDown, 'button']] : [];
      default:
        return [];
    }
  }

  private walletBar(m: BridgeMessages): TemplateResult | typeof nothing {
    const session = this.session;
    if (!session) return nothing;
    const name = this.walletName(session.wallet);
    const chain = session.chainId === undefined ? undefined : this.chain(session.chainId);
    const where = chain
      ? chain.name
      : session.chainId === undefined
        ? ''
        : fill(m.otherChain, { chainId: String(session.chainId) });
    return html`<div part="account" class="bar">
      <span class="who">${walletIcon(session.wallet, name)}<span>${name}</span></span>
      <span class="mono" title=${session.account} data-field="account">${shorten(session.account)}</span>
      ${where ? html`<span class="where" data-field="wallet-chain">${fill(m.walletOn, { chain: where })}</span>` : nothing}
      ${UNDER_WAY.has(this.phase) && this.phase !== 'preparing' ? nothing : html`<button type="button" class="link" @click=${() => this.disconnectWallet()}>${m.disconnect}</button>`}
    </div>`;
  }

  private walletList(m: BridgeMessages): TemplateResult {
    const wallets = this.discovery.wallets;
    if (!wallets.length) return html``;
    return html`<ul part="wallets" class="wallets" aria-label=${m.wallets}>
      ${wallets.map((wallet) => {
        const name = this.walletName(wallet);
        const busy = this.connectingTo === wallet;
        return html`<li>
          <button
            part="wallet"
            type="button"
            class="wallet"
            data-rdns=${wallet.info.rdns}
            aria-disabled=${this.connectingTo ? 'true' : 'false'}
            @click=${() => void this.connect(wallet)}
          >
            ${walletIcon(wallet, name)}<span>${name}</span>${busy ? html`<span class="spinner" aria-hidden="true"></span>` : nothing}
          </button>
        </li>`;
      })}
    </ul>`;
  }

  private form(m: BridgeMessages): TemplateResult {
    const locale = this.i18n.locale;
    const disabled = this.phase !== 'ready';
    const token = this.token(this.sourceId);
    const problem = this.amountProblem(m);
    const balance =
      this.balance === undefined
        ? m.balanceLoading
        : this.balance === null || !token
          ? m.balanceUnavailable
          : fill(m.balance, { amount: tokenAmount(fromUnits(this.balance, token.decimals), token.symbol, locale) });
    const chainOptions = (selected: number) =>
      this.chains.map(
        (chain) => html`<option value=${chain.chainId} ?selected=${chain.chainId === selected}>${chain.name}</option>`,
      );
    return html`<div part="form" class="fields">
      <div class="field">
        <label for="source">${m.from}</label>
        <select
          id="source"
          ?disabled=${disabled}
          @change=${(event: Event) => this.choose('source', (event.target as HTMLSelectElement).value)}
        >
          ${chainOptions(this.sourceId)}
        </select>
      </div>
      <button
        type="button"
        class="secondary small"
        aria-label=${m.swap}
        title=${m.swap}
        ?disabled=${disabled}
        @click=${() => this.swap()}
      >
        <span aria-hidden="true">⇄</span>
      </button>
      <div class="field">
        <label for="destination">${m.to}</label>
        <select
          id="destination"
          ?disabled=${disabled}
          @change=${(event: Event) => this.choose('destination', (event.target as HTMLSelectElement).value)}
        >
          ${chainOptions(this.destinationId)}
        </select>
      </div>
      <div class="field wide">
        <label for="token">${m.token}</label>
        <select
          id="token"
          ?disabled=${disabled}
          @change=${(event: Event) => this.choose('token', (event.target as HTMLSelectElement).value)}
        >
          ${this.symbols().map((symbol) => html`<option value=${symbol} ?selected=${symbol === this.symbol}>${symbol} · ${this.token(this.sourceId, symbol)?.name ?? ''}</option>`)}
        </select>
      </div>
      <div class="field wide">
        <label for="amount">${m.amount}</label>
        <div class="amount-row">
          <input
            id="amount"
            part="amount"
            inputmode="decimal"
            autocomplete="off"
            spellcheck="false"
            .value=${this.amountText}
            ?readonly=${disabled}
            aria-invalid=${problem ? 'true' : 'false'}
            aria-describedby=${problem ? 'amount-problem amount-balance' : 'amount-balance'}
            @input=${(event: Event) => {
              this.amountText = (event.target as HTMLInputElement).value;
              this.problem = undefined;
            }}
            @blur=${() => (this.touched = this.touched || this.amountText !== '')}
            @keydown=${(event: KeyboardEvent) => event.key === 'Enter' && void this.review()}
          />
          <span aria-hidden="true">${this.symbol}</span>
          <button
            part="max"
            type="button"
            class="secondary small"
            ?disabled=${disabled || typeof this.balance !== 'bigint'}
            @click=${() => this.useMax()}
          >
            ${m.max}
          </button>
        </div>
        ${problem ? html`<p id="amount-problem" class="hint danger">${problem}</p>` : nothing}
        <p id="amount-balance" part="balance" class="hint">${balance}</p>
      </div>
    </div>`;
  }

  private progress(m: BridgeMessages): TemplateResult {
    const transfer = this.transfer!;
    const locale = this.i18n.locale;
    const source = this.chain(transfer.sourceChainId)?.name ?? String(transfer.sourceChainId);
    const destination = this.chain(transfer.destinationChainId)?.name ?? String(transfer.destinationChainId);
    const failedAt = this.phase === 'failed' ? (this.failure?.stage === 'arrival' ? 2 : 1) : -1;
    const reached = this.phase === 'arrived' ? 3 : this.mined ? 2 : 1;
    const state = (index: number): StepState =>
      index === failedAt
        ? 'failed'
        : index < reached
          ? 'done'
          : index === reached && this.phase !== 'failed'
            ? 'current'
            : 'pending';
    const token = this.token(transfer.destinationChainId, transfer.symbol);
    return html`<section part="progress" class="progress" aria-label=${m.transaction}>
      <p class="title">${tokenAmount(transfer.amount, transfer.symbol, locale)} · ${source} → ${destination}</p>
      ${stepsView(
        [
          [fill(m.stepSent, { chain: source }), 'done'],
          [fill(m.stepMined, { chain: source }), state(1)],
          [fill(m.stepArrived, { chain: destination }), state(2)],
        ],
        m,
      )}
      <p class="note">${m.transaction}: <span part="hash" class="mono">${transfer.hash}</span></p>
      ${this.arrived && token ? html`<p class="note" data-field="new-balance">${fill(m.newBalance, { chain: destination, balance: tokenAmount(fromUnits(this.arrived.balance, token.decimals), token.symbol, locale) })}</p>` : nothing}
    </section>`;
  }

  private body(m: BridgeMessages): TemplateResult | typeof nothing {
    switch (this.phase) {
      case 'connect':
      case 'connecting':
        return this.walletList(m);
      case 'ready':
      case 'preparing':
        return this.form(m);
      case 'review':
      case 'switching':
      case 'signing':
        return this.prepared ? previewView(this.prepared.preview, m, this.i18n.locale, this.session?.chainId) : nothing;
      case 'submitted':
      case 'mined':
      case 'arrived':
      case 'failed':
        return this.transfer ? this.progress(m) : nothing;
      default:
        return nothing;
    }
  }

  override render(): TemplateResult {
    // Until the user's language is ready, the surface only (no flash of English).
    if (!this.i18n.ready) return html`<div part="container" class="surface" aria-busy="true"></div>`;
    const m = this.i18n.messages;
    const [text, tone, spinning] = this.statusLine(m);
    return html`<div part="container" class="surface" aria-busy=${this.phase === 'loading' ? 'true' : 'false'}>
      ${this.walletBar(m)} ${this.body(m)}
      <p part="status" class="status ${tone}" role="status" aria-live="polite">
        ${spinning ? html`<span class="spinner" aria-hidden="true"></span>` : nothing}${text}
      </p>
      <div class="actions">
        ${this.buttons(m).map(
          ([label, run, busy, part]) =>
            html`<button
              part=${part}
              type="button"
              class=${part === 'secondary' ? 'secondary' : ''}
              aria-disabled=${busy ? 'true' : 'false'}
              @click=${() => busy || run()}
            >
              ${busy && part === 'button' ? html`<span class="spinner" aria-hidden="true"></span>` : nothing}${label}
            </button>`,
        )}
      </div>
    </div>`;
  }
}
