/**
 * The page half of the test wallets: EIP-1193 providers announced with EIP-6963, as a wallet
 * extension announces itself. They hold no key and sign nothing: every request goes to the test
 * process through one function on `window` (Playwright's `exposeBinding`, or a web-test-runner
 * server command), where wallet-signer.ts answers it with an anvil account's key that never enters
 * the page.
 *
 * `installTestWallets` must stay self-contained (no imports, no outer variables): Playwright
 * serialises it into the page with `addInitScript`.
 */

export interface TestWalletAnnouncement {
  /** The test's name for the wallet; wallet-signer.ts knows it by this. */
  id: string;
  uuid: string;
  name: string;
  /** A data: URI, as EIP-6963 asks. */
  icon: string;
  rdns: string;
}

export interface InstallOptions {
  /** The name of the window function that carries requests to the test process. */
  binding: string;
  wallets: TestWalletAnnouncement[];
  /** Also install this wallet as `window.ethereum` (as wallets from before EIP-6963 do). */
  windowEthereum?: string;
  /** Announce nothing (a wallet that predates EIP-6963): only `window.ethereum`. */
  announce?: boolean;
}

/** What the test process answers: a result or an EIP-1193 error, and the events the wallet emits first. */
export interface WalletAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  events?: Array<[event: string, data: unknown]>;
}

export interface WalletRequest {
  wallet: string;
  method: string;
  params: unknown;
}

/** In the page: `window.kassaTestWallets[id]` lets a test emit events (the user switched account in the wallet). */
export interface InstalledWallet {
  provider: { request(args: { method: string; params?: unknown }): Promise<unknown> };
  emit(event: string, data: unknown): void;
  /** Stops announcing (and leaves window.ethereum): for tests that install other wallets next. */
  remove(): void;
  /** Announces the wallet now and answers requests from now on: one installed with `announce: false`, arriving late. */
  announce(): void;
}

export function installTestWallets(options: InstallOptions): void {
  const target = window as unknown as Record<string, unknown> & {
    kassaTestWallets?: Record<string, InstalledWallet>;
    ethereum?: unknown;
  };
  const registry: Record<string, InstalledWallet> = (target.kassaTestWallets ??= {});
  for (const info of options.wallets) {
    const listeners = new Map<string, Set<(data: unknown) => void>>();
    const emit = (event: string, data: unknown) => {
      for (const listener of [...(listeners.get(event) ?? [])]) {
        try {
          listener(data);
        } catch (error) {
          console.error(error);
        }
      }
    };
    const provider = {
      async request(args: { method: string; params?: unknown }): Promise<unknown> {
        if (!args || typeof args.method !== 'string')
          throw Object.assign(new Error('Invalid request'), { code: -32600 });
        const send = target[options.binding] as (request: WalletRequest) => Promise<WalletAnswer>;
        const answer = await send({ wallet: info.id, method: args.method, params: args.params ?? [] });
        for (const [event, data] of answer.events ?? []) emit(event, data);
        if (answer.error)
          throw Object.assign(new Error(answer.error.message), {
            code: answer.error.code,
            ...(answer.error.data === undefined ? {} : { data: answer.error.data }),
          });
        return answer.result;
      },
      on(event: string, listener: (data: unknown) => void) {
        if (!listeners.has(event)) listeners.set(event, new Set());
        listeners.get(event)!.add(listener);
        return provider;
      },
      removeListener(event: string, listener: (data: unknown) => void) {
        listeners.get(event)?.delete(listener);
        return provider;
      },
    };
    const detail = Object.freeze({
      info: Object.freeze({ uuid: info.uuid, name: info.name, icon: info.icon, rdns: info.rdns }),
      provider,
    });
    const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
    registry[info.id] = {
      provider,
      emit,
      remove() {
        window.removeEventListener('eip6963:requestProvider', announce);
        if (target.ethereum === provider) delete target.ethereum;
        delete registry[info.id];
      },
      announce() {
        window.removeEventListener('eip6963:requestProvider', announce);
        window.addEventListener('eip6963:requestProvider', announce);
        announce();
      },
    };
    if (options.windowEthereum === info.id) target.ethereum = provider;
    if (options.announce === false) continue;
    window.addEventListener('eip6963:requestProvider', announce);
    announce();
  }
}

/** A small SVG icon as a data: URI, in the wallet's colour. */
export function walletIconUri(color: string, letter: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="${color}"/><text x="16" y="22" font-size="18" text-anchor="middle" fill="#fff" font-family="sans-serif">${letter}</text></svg>`;
  return `data:image/svg+xml;base64,${btoa(svg)}`;
}
