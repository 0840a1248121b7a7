/**
 * Kassa's EIP-1193 provider, in the page's own world. It announces itself through EIP-6963 (and
 * answers every `eip6963:requestProvider`), leaving other wallets' announcements alone; it becomes
 * `window.ethereum` only when no other wallet has taken that name, and never replaces one. Requests go
 * to the content script by window messages; nothing here holds a key or decides anything. The
 * provider, its prototypes and its EIP-6963 announcement are frozen.
 */
import { ProviderRpcError, RPC } from '../eip1193.ts';
import { KASSA_ICON } from '../icon.ts';
import { TO_CONTENT, pageReplySchema, rpcErrorSchema, type ProviderEvent } from '../page-messages.ts';
import { EventEmitter } from './event-emitter.ts';

interface RequestArguments {
  readonly method: string;
  readonly params?: readonly unknown[] | object;
}

/**
 * EIP-1193's provider. Connected or not is what the service worker, which owns the state, says
 * (`connect` and `disconnect` events; the content script adds a `disconnect` of its own when the
 * extension is gone); chain and accounts are kept from events and answers, so events fire on changes only.
 */
class KassaProvider extends EventEmitter {
  readonly isKassa = true;
  #nextId = 1;
  #pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  #chainId: string | null = null;
  #accounts: string[] = [];
  #connected = false;

  constructor() {
    super();
    window.addEventListener('message', (event: MessageEvent) => {
      if (event.source !== window) return;
      const reply = pageReplySchema.safeParse(event.data);
      if (!reply.success) return;
      const message = reply.data;
      if (message.type === 'event') return this.#onEvent(message.event, message.data);
      if (typeof message.id !== 'number') return;
      const waiting = this.#pending.get(message.id);
      if (!waiting) return;
      this.#pending.delete(message.id);
      if (message.error)
        waiting.reject(new ProviderRpcError(message.error.code, message.error.message, message.error.data));
      else waiting.resolve(message.result);
    });
  }

  /** EIP-1193 `request`: `{ method, params? }` with params an array or an object. */
  request(args: RequestArguments): Promise<unknown> {
    if (
      !args ||
      typeof args !== 'object' ||
      Array.isArray(args) ||
      typeof args.method !== 'string' ||
      args.method.length === 0
    ) {
      return Promise.reject(new ProviderRpcError(RPC.invalidParams, 'request() takes one object: { method, params? }'));
    }
    const { method, params } = args;
    if (params !== undefined && (typeof params !== 'object' || params === null))
      return Promise.reject(new ProviderRpcError(RPC.invalidParams, 'params must be an array or an object'));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, {
        resolve: (value) => {
          this.#observe(method, value);
          resolve(value);
        },
        reject,
      });
      let payload: unknown;
      try {
        // Only plain JSON crosses to the extension.
        payload = params === undefined ? undefined : JSON.parse(JSON.stringify(params));
      } catch {
        this.#pending.delete(id);
        return reject(new ProviderRpcError(RPC.invalidParams, 'params must be plain JSON'));
      }
      window.postMessage({ target: TO_CONTENT, id, method, params: payload }, window.location.origin);
    });
  }

  /** EIP-1193: whether Kassa can serve requests on a chain now. */
  isConnected(): boolean {
    return this.#connected;
  }

  /** Keeps what the page was last told, so events fire on changes only. */
  #observe(method: string, value: unknown): void {
    if (method === 'eth_chainId' && typeof value === 'string') this.#setChain(value);
    if ((method === 'eth_accounts' || method === 'eth_requestAccounts') && Array.isArray(value))
      this.#setAccounts(value as string[]);
  }

  #setChain(chainId: string): void {
    // While disconnected the page hears the chain with the next `connect`.
    if (!this.#connected || chainId === this.#chainId) return;
    this.#chainId = chainId;
    this.emit('chainChanged', chainId);
  }

  #setAccounts(accounts: string[]): void {
    if (
      accounts.length === this.#accounts.length &&
      accounts.every((account, index) => account === this.#accounts[index])
    )
      return;
    this.#accounts = accounts;
    this.emit('accountsChanged', accounts);
  }

  #onEvent(event: ProviderEvent, data: unknown): void {
    if (event === 'connect' && data && typeof (data as { chainId?: unknown }).chainId === 'string') {
      const { chainId } = data as { chainId: string };
      if (this.#connected) return this.#setChain(chainId);
      const before = this.#chainId;
      this.#connected = true;
      this.#chainId = chainId;
      this.emit('connect', { chainId });
      // Back on another chain than the page was last told (as MetaMask tells it: connect, then chainChanged).
      if (before !== null && before !== chainId) this.emit('chainChanged', chainId);
    } else if (event === 'chainChanged' && typeof data === 'string') this.#setChain(data);
    else if (event === 'accountsChanged' && Array.isArray(data)) this.#setAccounts(data as string[]);
    else if (event === 'disconnect' && this.#connected) {
      const error = rpcErrorSchema.safeParse(data);
      this.#connected = false;
      this.emit(
        'disconnect',
        error.success
          ? new ProviderRpcError(error.data.code, error.data.message, error.data.data)
          : new ProviderRpcError(RPC.disconnected, 'Kassa is disconnected'),
      );
    }
  }
}

/**
 * A version 4 UUID (RFC 9562) for the EIP-6963 announcement. `crypto.getRandomValues`, not
 * `crypto.randomUUID`, which exists only in secure contexts: a shop on plain http must get a wallet too.
 */
function uuidV4(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// A document with an opaque origin (served with CSP sandbox, say) is no site: it gets no provider, and
// the service worker refuses its content script's port anyway.
if (window.origin !== 'null') {
  const provider = new KassaProvider();
  // EIP-6963's advice: no script of the page may replace what dapps call (`request`, `on`…), neither
  // on the object they all hold nor on the prototypes it inherits from. Private fields still change.
  for (
    let link: object | null = provider;
    link && link !== Object.prototype;
    link = Object.getPrototypeOf(link) as object | null
  )
    Object.freeze(link);
  const info = Object.freeze({ uuid: uuidV4(), name: 'Kassa', icon: KASSA_ICON, rdns: 'dev.kassa.wallet' });
  const detail = Object.freeze({ info, provider });
  const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
  window.addEventListener('eip6963:requestProvider', announce);
  announce();

  const host = window as unknown as { ethereum?: unknown };
  if (host.ethereum === undefined || host.ethereum === null) {
    // Writable and configurable: a wallet that loads after Kassa may still take the name.
    Object.defineProperty(window, 'ethereum', {
      value: provider,
      writable: true,
      configurable: true,
      enumerable: true,
    });
    window.dispatchEvent(new Event('ethereum#initialized'));
  }
}
