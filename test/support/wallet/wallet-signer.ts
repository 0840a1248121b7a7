/**
 * The signing half of the test wallets (wallet-provider.ts is the page half): it answers each
 * wallet's EIP-1193 requests in the test process, signs with an anvil account's key (which never
 * enters the page) and broadcasts to the chain's RPC itself, as a wallet does. Behaviours a real
 * user or wallet can show are switches: refusing, staying on the wrong chain, not knowing a chain
 * (4902), holding a transaction back, dropping it, replacing it, speeding it up.
 */
import {
  Contract,
  getBytes,
  isHexString,
  toUtf8Bytes,
  toUtf8String,
  Transaction,
  type JsonRpcProvider,
  type TransactionRequest,
  type Wallet,
} from 'ethers';
import { chainProvider } from '../../../sandbox/chains/provider.ts';
import { REFORGE_TOKEN_ABI } from '../../../schemas/reforge.ts';
import { anvilAccount } from '../chains.ts';
import type { TestWalletAnnouncement, WalletAnswer, WalletRequest } from './wallet-provider.ts';

export interface WalletChain {
  chainId: number;
  name: string;
  rpcUrl: string;
}

/**
 * How the wallet sends: as asked; held back until the test releases it; signed but never broadcast
 * (lost by the wallet's node); or sped up (only a copy with higher fees is broadcast, a new hash).
 */
export type SendBehaviour = 'broadcast' | 'hold' | 'drop' | 'speed-up';

export interface TestWalletOptions {
  id: string;
  name: string;
  rdns: string;
  icon: string;
  /** anvil's default account of this index signs (0 to 9 are funded; others hold nothing). */
  account: number;
  /** The chain the wallet is on at first. */
  chainId: number;
  /** The chains the wallet can switch to without adding them first; every chain by default. */
  knownChains?: number[];
  /** The user declines to connect, to switch, or to sign. */
  rejectConnect?: boolean;
  rejectSwitch?: boolean;
  rejectSend?: boolean;
  /** The user declines to sign a message (`personal_sign`). */
  rejectSign?: boolean;
  /** Signs messages with anvil's account of this index instead of its own (a wallet whose proof is another key's). */
  signsWith?: number;
  /** Holds each `personal_sign` until the test releases it (the user reading the message meanwhile). */
  holdSign?: boolean;
  /** Says yes to a switch and stays where it is (a buggy wallet). */
  ignoreSwitch?: boolean;
  /** Does not switch by itself after adding a chain (EIP-3085 leaves it open). */
  staysAfterAdd?: boolean;
  send?: SendBehaviour;
  /** Signs with this gas limit instead of the one asked for (too low makes the transaction revert). */
  gasLimit?: bigint;
}

export interface RecordedCall {
  method: string;
  params: unknown;
}

interface Held {
  raw: string;
  chainId: number;
}

interface Sent {
  populated: TransactionRequest;
  chainId: number;
  hash: string;
}

const error = (code: number, message: string): WalletAnswer => ({ error: { code, message } });
const hexId = (chainId: number) => `0x${chainId.toString(16)}`;

export class TestWallet {
  readonly calls: RecordedCall[] = [];
  readonly added: unknown[] = [];
  /** The messages signed with `personal_sign`, as text. */
  readonly signed: string[] = [];
  chainId: number;
  connected = false;
  /** Reaches none of its chains (`reach`): every request is answered 4900 until it is back. */
  offline = false;
  held?: Held;
  /** Lets a held `personal_sign` go on. */
  private heldSign?: () => void;
  /** The last transaction signed for the page. */
  lastSent?: Sent;
  private signer: Wallet;
  private readonly known: Set<number>;

  constructor(
    readonly options: TestWalletOptions,
    private readonly hub: TestWalletHub,
  ) {
    this.chainId = options.chainId;
    this.known = new Set(options.knownChains ?? hub.chains.map((chain) => chain.chainId));
    this.signer = anvilAccount(options.account);
  }

  get address(): string {
    return this.signer.address;
  }

  /** What the page announces (no key, no account). */
  get announcement(): TestWalletAnnouncement {
    const { id, name, icon, rdns } = this.options;
    return {
      id,
      name,
      icon,
      rdns,
      uuid: `00000000-0000-4000-8000-${Buffer.from(id).toString('hex').padEnd(12, '0').slice(0, 12)}`,
    };
  }

  /** The user picks another account in the wallet; returns the event the page must see. */
  useAccount(index: number): [string, unknown] {
    this.signer = anvilAccount(index);
    return ['accountsChanged', [this.address]];
  }

  /** The user switches network in the wallet's own UI. */
  moveTo(chainId: number): [string, unknown] {
    this.chainId = chainId;
    return ['chainChanged', hexId(chainId)];
  }

  /**
   * Its chains go down, or come back, as the Kassa extension's do when their RPC stops answering: the
   * event the page must see (EIP-1193 `disconnect` with 4900, or `connect` with the chain it is on).
   */
  reach(online: boolean): [string, unknown] {
    this.offline = !online;
    return online
      ? ['connect', { chainId: hexId(this.chainId) }]
      : ['disconnect', { code: 4900, message: 'The wallet reaches none of its chains' }];
  }

  async handle(method: string, params: unknown): Promise<WalletAnswer> {
    this.calls.push({ method, params });
    if (this.offline) return error(4900, 'The wallet reaches none of its chains');
    const list = Array.isArray(params) ? params : [];
    switch (method) {
      case 'eth_requestAccounts':
        if (this.options.rejectConnect) return error(4001, 'User rejected the request.');
        this.connected = true;
        return { result: [this.address] };
      case 'eth_accounts':
        return { result: this.connected ? [this.address] : [] };
      case 'eth_chainId':
        return { result: hexId(this.chainId) };
      case 'wallet_switchEthereumChain': {
        const wanted = Number(BigInt((list[0] as { chainId: string }).chainId));
        if (this.options.rejectSwitch) return error(4001, 'User rejected the request.');
        if (!this.known.has(wanted))
          return {
            error: {
              code: -32603,
              message: `Unrecognized chain ID "${hexId(wanted)}". Try adding the chain using wallet_addEthereumChain first.`,
              data: { originalError: { code: 4902 } },
            },
          };
        if (this.options.ignoreSwitch) return { result: null };
        this.chainId = wanted;
        return { result: null, events: [['chainChanged', hexId(wanted)]] };
      }
      case 'wallet_addEthereumChain': {
        const chain = list[0] as { chainId: string; rpcUrls: string[] };
        this.added.push(chain);
        const wanted = Number(BigInt(chain.chainId));
        const served = this.hub.chains.find((candidate) => candidate.chainId === wanted);
        if (!served || chain.rpcUrls?.[0] !== served.rpcUrl)
          return error(-32602, 'This test wallet adds only the sandbox chains, at their RPC URL');
        this.known.add(wanted);
        if (this.options.staysAfterAdd) return { result: null };
        this.chainId = wanted;
        return { result: null, events: [['chainChanged', hexId(wanted)]] };
      }
      case 'eth_sendTransaction':
        return this.send(list[0] as Record<string, string>);
      case 'personal_sign':
        return this.signMessage(list[0], list[1]);
      default:
        return error(4200, `The test wallet does not support ${method}`);
    }
  }

  private async send(request: Record<string, string>): Promise<WalletAnswer> {
    if (!this.connected) return error(4100, 'Not connected');
    if (request.from?.toLowerCase() !== this.address.toLowerCase())
      return error(4100, `Unknown account ${request.from}`);
    // As MetaMask does: a transaction for another chain than the wallet's is refused.
    if (request.chainId !== undefined && Number(BigInt(request.chainId)) !== this.chainId)
      return error(-32602, `chainId ${request.chainId} is not the current chain ${hexId(this.chainId)}`);
    if (this.options.rejectSend) return error(4001, 'User denied transaction signature.');
    const provider = this.hub.provider(this.chainId);
    const signer = this.signer.connect(provider);
    const populated = await signer.populateTransaction({
      to: request.to,
      data: request.data,
      value: BigInt(request.value ?? '0x0'),
      gasLimit: this.options.gasLimit ?? BigInt(request.gas!),
      chainId: BigInt(this.chainId),
      type: 2,
    } satisfies TransactionRequest);
    const raw = await signer.signTransaction(populated);
    const hash = Transaction.from(raw).hash!;
    this.lastSent = { populated, chainId: this.chainId, hash };
    const behaviour = this.options.send ?? 'broadcast';
    try {
      if (behaviour === 'broadcast') await provider.broadcastTransaction(raw);
      else if (behaviour === 'hold') this.held = { raw, chainId: this.chainId };
      else if (behaviour === 'speed-up') {
        const faster = await signer.signTransaction({
          ...populated,
          maxFeePerGas: BigInt(populated.maxFeePerGas!) * 2n,
          maxPriorityFeePerGas: BigInt(populated.maxPriorityFeePerGas!) * 2n + 1n,
        });
        await provider.broadcastTransaction(faster);
      }
    } catch (failure) {
      return error(-32000, (failure as Error).message);
    }
    return { result: hash };
  }

  /** EIP-191 `personal_sign` [message, address]: the message as hex bytes (or text), signed by the account's key. */
  private async signMessage(data: unknown, address: unknown): Promise<WalletAnswer> {
    if (!this.connected) return error(4100, 'Not connected');
    if (typeof address !== 'string' || address.toLowerCase() !== this.address.toLowerCase())
      return error(4100, `Unknown account ${String(address)}`);
    if (typeof data !== 'string') return error(-32602, 'The message must be a string');
    if (this.options.rejectSign) return error(4001, 'User denied message signature.');
    if (this.options.holdSign) await new Promise<void>((resolve) => (this.heldSign = resolve));
    const bytes = isHexString(data) ? getBytes(data) : toUtf8Bytes(data);
    this.signed.push(toUtf8String(bytes));
    const signer = this.options.signsWith === undefined ? this.signer : anvilAccount(this.options.signsWith);
    return { result: await signer.signMessage(bytes) };
  }

  /**
   * Replaces the last transaction (still pending: the test turned automine off) with a zero-value
   * transfer to itself at the same nonce and higher fees, as a wallet's "cancel" does; not mined yet.
   */
  async replaceLast(): Promise<string> {
    const sent = this.lastSent;
    if (!sent) throw new Error(`wallet ${this.options.id} sent nothing`);
    const signer = this.signer.connect(this.hub.provider(sent.chainId));
    const raw = await signer.signTransaction({
      ...sent.populated,
      to: this.address,
      data: '0x',
      value: 0n,
      gasLimit: 21_000n,
      maxFeePerGas: BigInt(sent.populated.maxFeePerGas!) * 2n,
      maxPriorityFeePerGas: BigInt(sent.populated.maxPriorityFeePerGas!) * 2n + 1n,
    });
    return (await this.hub.provider(sent.chainId).broadcastTransaction(raw)).hash;
  }

  /** Lets the held message be signed (`holdSign`), or broadcasts the transaction held back ('hold'). */
  async release(): Promise<string> {
    const signing = this.heldSign;
    if (signing) {
      this.heldSign = undefined;
      signing();
      return 'signed';
    }
    const held = this.held;
    if (!held) throw new Error(`wallet ${this.options.id} holds no transaction`);
    this.held = undefined;
    return (await this.hub.provider(held.chainId).broadcastTransaction(held.raw)).hash;
  }
}

/** The test wallets of one test run, their chains, and reads of those chains for assertions. */
export class TestWalletHub {
  private readonly wallets = new Map<string, TestWallet>();
  private readonly providers = new Map<number, JsonRpcProvider>();

  constructor(readonly chains: readonly WalletChain[]) {}

  add(options: TestWalletOptions): TestWallet {
    const wallet = new TestWallet(options, this);
    this.wallets.set(options.id, wallet);
    return wallet;
  }

  get(id: string): TestWallet {
    const wallet = this.wallets.get(id);
    if (!wallet) throw new Error(`no test wallet ${id}`);
    return wallet;
  }

  /** Answers one request from the page. */
  handle(request: WalletRequest): Promise<WalletAnswer> {
    const wallet = this.wallets.get(request.wallet);
    if (!wallet) return Promise.resolve(error(4900, `no test wallet ${request.wallet}`));
    return wallet.handle(request.method, request.params).catch((failure: Error) => error(-32603, failure.message));
  }

  provider(chainId: number): JsonRpcProvider {
    let provider = this.providers.get(chainId);
    if (!provider) {
      const chain = this.chains.find((candidate) => candidate.chainId === chainId);
      if (!chain) throw new Error(`no chain ${chainId}`);
      this.providers.set(chainId, (provider = chainProvider(chain.rpcUrl, chainId)));
    }
    return provider;
  }

  /** An account's balance of a token (by address) on a chain, in base units. */
  async tokenBalance(chainId: number, token: string, account: string): Promise<bigint> {
    return (await new Contract(token, REFORGE_TOKEN_ABI, this.provider(chainId)).getFunction('balanceOf')(
      account,
    )) as bigint;
  }

  async nonce(chainId: number, account: string): Promise<number> {
    return this.provider(chainId).getTransactionCount(account, 'latest');
  }

  /** Sends `units` of a token from anvil's account 0 to `to` (to fund accounts beyond the ten). */
  async give(chainId: number, token: string, to: string, units: bigint): Promise<void> {
    const funder = anvilAccount(0, this.provider(chainId));
    const sent = await new Contract(token, REFORGE_TOKEN_ABI, funder).getFunction('transfer')(to, units);
    await sent.wait();
  }

  /** anvil: mine on arrival (the default) or only when told (transactions then wait in the pool). */
  async automine(chainId: number, on: boolean): Promise<void> {
    await this.provider(chainId).send('evm_setAutomine', [on]);
  }

  async mine(chainId: number): Promise<void> {
    await this.provider(chainId).send('evm_mine', []);
  }

  /** anvil: removes a pending transaction from the pool, as a node that forgets it. */
  async dropPending(chainId: number, hash: string): Promise<void> {
    await this.provider(chainId).send('anvil_dropTransaction', [hash]);
  }

  close(): void {
    for (const provider of this.providers.values()) provider.destroy();
    this.providers.clear();
  }
}
