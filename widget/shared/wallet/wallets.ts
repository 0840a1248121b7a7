import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { WalletError, walletError } from './wallet-errors.ts';

/** An EIP-1193 provider: what a wallet gives the page. */
export interface Eip1193Provider {
  request(args: { method: string; params?: readonly unknown[] | Record<string, unknown> }): Promise<unknown>;
  on?(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener?(event: string, listener: (...args: unknown[]) => void): unknown;
}

/** EIP-6963's description of a wallet. */
export interface WalletInfo {
  uuid: string;
  name: string;
  /** A `data:` URI of an image, or '' when the wallet's icon is not one (it is then not shown). */
  icon: string;
  rdns: string;
}

export interface DiscoveredWallet {
  info: WalletInfo;
  provider: Eip1193Provider;
}

/** The rdns under which `window.ethereum` is offered when no wallet announces itself. */
export const INJECTED_RDNS = 'injected';

/**
 * Only images, only as `data:` URIs (EIP-6963 says so): shown with `<img>`, never as markup, so an
 * SVG icon cannot run script or fetch anything. Longer than 256 KB is not an icon.
 */
const SAFE_ICON = /^data:image\/(?:png|jpeg|gif|webp|avif|svg\+xml)[;,]/i;
export const safeIcon = (icon: unknown): string =>
  typeof icon === 'string' && icon.length <= 262_144 && SAFE_ICON.test(icon) ? icon : '';

const text = (value: unknown, max: number): string =>
  typeof value === 'string'
    ? value
        // Control characters are what this strips from what a page announces.
        // eslint-disable-next-line no-control-regex
        .replace(/[\u0000-\u001f\u007f]/g, '')
        .trim()
        .slice(0, max)
    : '';

/** A valid announcement's wallet, or undefined: a page may receive anything on this event. */
function walletOf(detail: unknown): DiscoveredWallet | undefined {
  const { info, provider } = (detail ?? {}) as { info?: Record<string, unknown>; provider?: Eip1193Provider };
  if (!info || typeof info !== 'object' || !provider || typeof provider.request !== 'function') return undefined;
  const uuid = text(info.uuid, 100);
  const name = text(info.name, 60);
  if (!uuid || !name) return undefined;
  return { info: { uuid, name, icon: safeIcon(info.icon), rdns: text(info.rdns, 200) }, provider };
}

/** How long after asking an element says "no wallet found" rather than "looking for wallets". */
export const SETTLE_MS = 400;

/**
 * Finds the browser's wallets: every wallet that announces itself with EIP-6963 (now or later, as
 * extensions load), in the order they announced; `window.ethereum` only when none does (a wallet that
 * predates EIP-6963). The user chooses; nothing here calls a wallet.
 */
export class WalletDiscovery implements ReactiveController {
  /** The wallets found so far. */
  wallets: DiscoveredWallet[] = [];
  /** False until the wallets present at load have had time to answer. */
  settled = false;
  private readonly announced = new Map<string, DiscoveredWallet>();
  private timer?: ReturnType<typeof setTimeout>;

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  hostConnected(): void {
    window.addEventListener('eip6963:announceProvider', this.onAnnounce);
    // A wallet that injects window.ethereum late (after the page loaded) says so with this event.
    window.addEventListener('ethereum#initialized', this.onInjected);
    this.ask();
  }

  hostDisconnected(): void {
    window.removeEventListener('eip6963:announceProvider', this.onAnnounce);
    window.removeEventListener('ethereum#initialized', this.onInjected);
    clearTimeout(this.timer);
  }

  /** Asks the browser's wallets to announce themselves (again: the user installed or unlocked one meanwhile). */
  ask(): void {
    clearTimeout(this.timer);
    this.settled = false;
    window.dispatchEvent(new Event('eip6963:requestProvider'));
    this.refresh();
    this.timer = setTimeout(() => {
      this.settled = true;
      this.refresh();
    }, SETTLE_MS);
  }

  private readonly onInjected = () => this.refresh();

  private readonly onAnnounce = (event: Event) => {
    const wallet = walletOf((event as CustomEvent).detail);
    if (!wallet) return;
    // EIP-6963: one entry per uuid; the same provider announced again replaces its entry.
    this.announced.set(wallet.info.uuid, wallet);
    this.refresh();
  };

  private refresh(): void {
    const announced = [...this.announced.values()];
    const injected = (window as { ethereum?: Eip1193Provider }).ethereum;
    this.wallets =
      announced.length || !injected || typeof injected.request !== 'function'
        ? announced
        : [{ info: { uuid: INJECTED_RDNS, name: '', icon: '', rdns: INJECTED_RDNS }, provider: injected }];
    this.host.requestUpdate();
  }
}

/** A chain id as wallets send it (hex quantity, sometimes a decimal string or a number). */
export function parseChainId(value: unknown): number | undefined {
  try {
    const id = typeof value === 'number' ? value : Number(BigInt(value as string));
    return Number.isSafeInteger(id) && id > 0 ? id : undefined;
  } catch {
    return undefined;
  }
}

export const toHexChainId = (chainId: number) => `0x${chainId.toString(16)}`;

export interface SessionEvents {
  /** Account or chain changed (by the user, in the wallet), or the wallet lost its chains or reached them again (`reachable`). */
  onChange(): void;
  /** The wallet has no account for this page any more: the session is over. */
  onGone(): void;
}

/** Chain details a wallet needs to add a chain (EIP-3085). */
export interface AddableChain {
  chainId: number;
  name: string;
  rpcUrl: string;
  nativeCurrency: { name: string; symbol: string; decimals: number };
}

/**
 * The wallet the user chose, connected: its account and chain, followed through `accountsChanged`,
 * `chainChanged`, `disconnect` and `connect`. Every call into the wallet goes through here.
 */
export class WalletSession {
  account: string;
  chainId: number | undefined;
  /**
   * False from the wallet's `disconnect` until its `connect`. EIP-1193's `disconnect` says the wallet
   * reaches none of its chains (its RPC is down, MetaMask's 1013 while it reconnects), not that the
   * user took the account back (`accountsChanged` with none says that): the session stays, as dapps
   * keep MetaMask's, and goes on when the wallet is back.
   */
  reachable = true;

  private constructor(
    readonly wallet: DiscoveredWallet,
    account: string,
    chainId: number | undefined,
    private readonly events: SessionEvents,
  ) {
    this.account = account;
    this.chainId = chainId;
    wallet.provider.on?.('accountsChanged', this.onAccounts);
    wallet.provider.on?.('chainChanged', this.onChain);
    wallet.provider.on?.('disconnect', this.onDisconnect);
    wallet.provider.on?.('connect', this.onConnect);
  }

  /**
   * Connects: asks the wallet for its accounts (the wallet asks the user: `eth_requestAccounts`),
   * or with `silently`, takes the accounts it already granted this page (`eth_accounts`, no prompt).
   */
  static async connect(
    wallet: DiscoveredWallet,
    events: SessionEvents,
    silently = false,
  ): Promise<WalletSession | undefined> {
    let accounts: unknown;
    try {
      accounts = await wallet.provider.request({ method: silently ? 'eth_accounts' : 'eth_requestAccounts' });
    } catch (error) {
      if (silently) return undefined;
      throw walletError(error);
    }
    const account = Array.isArray(accounts) && typeof accounts[0] === 'string' ? accounts[0] : undefined;
    if (!account) {
      if (silently) return undefined;
      throw new WalletError('wallet-unauthorized', 'The wallet gave no account');
    }
    const chainId = parseChainId(await wallet.provider.request({ method: 'eth_chainId' }).catch(() => undefined));
    return new WalletSession(wallet, account, chainId, events);
  }

  /** Stops following the wallet (it stays authorised in the wallet itself, as wallets do). */
  close(): void {
    this.wallet.provider.removeListener?.('accountsChanged', this.onAccounts);
    this.wallet.provider.removeListener?.('chainChanged', this.onChain);
    this.wallet.provider.removeListener?.('disconnect', this.onDisconnect);
    this.wallet.provider.removeListener?.('connect', this.onConnect);
  }

  request(method: string, params?: readonly unknown[]): Promise<unknown> {
    return this.wallet.provider.request(params ? { method, params } : { method });
  }

  /** The wallet's chain, asked afresh (`eth_chainId`). */
  async readChainId(): Promise<number | undefined> {
    this.chainId = parseChainId(await this.request('eth_chainId'));
    return this.chainId;
  }

  private readonly onAccounts = (accounts: unknown) => {
    const account = Array.isArray(accounts) && typeof accounts[0] === 'string' ? accounts[0] : undefined;
    if (!account) return this.events.onGone();
    if (account.toLowerCase() === this.account.toLowerCase()) return;
    this.account = account;
    this.events.onChange();
  };

  private readonly onChain = (chainId: unknown) => {
    this.chainId = parseChainId(chainId);
    this.events.onChange();
  };

  private readonly onDisconnect = () => {
    this.reachable = false;
    this.events.onChange();
  };

  /** Back (EIP-1193 `connect`, with the chain it is on now). */
  private readonly onConnect = (info: unknown) => {
    this.reachable = true;
    this.chainId = parseChainId((info as { chainId?: unknown } | undefined)?.chainId) ?? this.chainId;
    this.events.onChange();
  };
}
