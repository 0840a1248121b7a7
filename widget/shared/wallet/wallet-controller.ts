import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { WalletError } from './wallet-errors.ts';
import { WalletDiscovery, WalletSession, type DiscoveredWallet } from './wallets.ts';

/** What the controller sees of the element: its phase, of which `connect` lists the wallets and `connecting` waits for one. */
export interface WalletHost extends ReactiveControllerHost, HTMLElement {
  phase: string;
}

/** What the user may do with the wallet, each only when the element says so. */
export type WalletAction =
  /** Connect a wallet: the one the user chose, or the one remembered. */
  | 'connect'
  /** Look for the wallet remembered across a reload (connecting it where `connect` is allowed). */
  | 'restore'
  /** "Disconnect". */
  | 'disconnect';

export interface WalletOptions {
  /** Whether the element's phase allows this now. */
  allows(action: WalletAction): boolean;
  /** sessionStorage key prefix (then the proxy's origin) under which the chosen wallet's rdns is kept. */
  rememberAs: string;
  /** The proxy's origin: the chosen wallet is remembered per proxy. */
  origin(): string | undefined;
  /** A connection starts: the element's problem of the moment is cleared. */
  onConnecting(): void;
  /** A wallet connected; `focusInside`: keyboard focus was in the element when the user chose it. */
  onConnected(focusInside: boolean): void;
  /** The wallet refused to connect (or failed to). */
  onRefused(error: WalletError): void;
  /** The wallet's account or chain changed (by the user, in the wallet), or it lost or found its chains (`session.reachable`). */
  onChange(): void;
  /** The user disconnected, or the wallet no longer grants an account. */
  onGone(): void;
}

/**
 * The user's wallet: the wallets the browser offers, connecting the one the user chooses, the
 * session with it, reconnecting it without a prompt after a reload (when it still grants this page),
 * and disconnecting.
 */
export class WalletController implements ReactiveController {
  session?: WalletSession;
  /** The wallet being connected, until it answers. */
  connectingTo?: DiscoveredWallet;
  private readonly discovery: WalletDiscovery;
  /** Wallets already tried for a silent reconnect (each is tried once). */
  private readonly tried = new Set<string>();
  /** Each reset bumps it; a wallet that answers for an older listing is let go. */
  private generation = 0;

  constructor(
    private readonly host: WalletHost,
    private readonly options: WalletOptions,
  ) {
    host.addController(this);
    this.discovery = new WalletDiscovery(host);
  }

  /** The wallets found so far, in the order they announced themselves. */
  get wallets(): DiscoveredWallet[] {
    return this.discovery.wallets;
  }

  /** False until the wallets present at load have had time to answer. */
  get settled(): boolean {
    return this.discovery.settled;
  }

  /** The user asked to look for wallets again. */
  lookedAgain = false;

  /** Looks for wallets again (the user installed or unlocked one after the page loaded). */
  lookAgain(): void {
    this.lookedAgain = true;
    this.discovery.ask();
  }

  hostUpdated(): void {
    // After this update, not during it: connecting changes state.
    void Promise.resolve().then(() => this.restore());
  }

  /** A new listing (another proxy or network): a connection still under way is let go when it answers. */
  reset(): void {
    this.generation++;
  }

  async connect(wallet: DiscoveredWallet, silently = false): Promise<void> {
    const { host, options } = this;
    if (this.session || this.connectingTo || !options.allows('connect')) return;
    const generation = this.generation;
    const focusInside = host.matches(':focus-within');
    this.connectingTo = wallet;
    options.onConnecting();
    if (!silently && host.phase === 'connect') host.phase = 'connecting';
    let session: WalletSession | undefined;
    try {
      session = await WalletSession.connect(
        wallet,
        { onChange: () => this.changed(), onGone: () => this.lost() },
        silently,
      );
    } catch (error) {
      this.connected(undefined);
      if (generation === this.generation) options.onRefused(error as WalletError);
      return;
    }
    const stale = generation !== this.generation;
    if (stale) session?.close();
    this.connected(stale ? undefined : session);
    if (!this.session) return;
    try {
      sessionStorage.setItem(options.rememberAs + options.origin(), wallet.info.rdns || wallet.info.name);
    } catch {
      // not remembered across reloads
    }
    options.onConnected(focusInside);
  }

  disconnect(): void {
    if (!this.options.allows('disconnect')) return;
    try {
      sessionStorage.removeItem(this.options.rememberAs + this.options.origin());
    } catch {
      // nothing kept
    }
    this.lost();
  }

  /** The connection is over, with a session or without one. */
  private connected(session: WalletSession | undefined): void {
    this.connectingTo = undefined;
    this.session = session;
    if (!session && this.host.phase === 'connecting') this.host.phase = 'connect';
    this.host.requestUpdate();
  }

  /** After a reload, the wallet chosen before (by its rdns) is reconnected without a prompt, if it still grants this page. */
  private restore(): void {
    const { options } = this;
    const origin = options.origin();
    if (this.session || this.connectingTo || !origin || !options.allows('restore')) return;
    let remembered: string | null = null;
    try {
      remembered = sessionStorage.getItem(options.rememberAs + origin);
    } catch {
      return;
    }
    if (!remembered) return;
    const wallet = this.wallets.find((candidate) => (candidate.info.rdns || candidate.info.name) === remembered);
    if (!wallet || this.tried.has(wallet.info.uuid)) return;
    this.tried.add(wallet.info.uuid);
    void this.connect(wallet, true);
  }

  /** The session's account, chain or reach changed: shown, and the element told. */
  private changed(): void {
    this.host.requestUpdate();
    this.options.onChange();
  }

  private lost(): void {
    this.session?.close();
    this.session = undefined;
    this.host.requestUpdate();
    this.options.onGone();
  }
}
