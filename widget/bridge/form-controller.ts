import type { ReactiveController } from 'lit';
import { fromUnits } from '../../lib/money.ts';
import type { ChainEntry, TokenInfo } from '../../schemas/reforge.ts';
import { readAmount, tokenAmount, unitsAsInput, type AmountReading } from '../shared/token-amount.ts';
import { ChainRpc } from './chain-rpc.ts';
import type { BridgeError } from './errors.ts';
import { allows, type BridgeHost } from './phases.ts';
import { errorDetail, type BridgeProblems } from './problems.ts';
import type { TransferRecord } from './transfer-store.ts';

export interface FormOptions {
  problems: BridgeProblems;
  /** The connected account, whose balance the form shows. */
  account(): string | undefined;
  /** The locale the amount is typed in. */
  locale(): string;
}

/**
 * The transfer form: the chains the proxy lists (and a reader of each), the source and destination
 * chains, the token both carry, the amount as typed, and the account's balance of the token.
 */
export class FormController implements ReactiveController {
  chains: ChainEntry[] = [];
  sourceId = 0;
  destinationId = 0;
  symbol = '';
  amountText = '';
  /** The user has left the amount field (or asked to review): an empty amount is a problem now. */
  touched = false;
  /** The token balance on the source chain: undefined while read, null when it cannot be. */
  balance?: bigint | null;
  /** What the amount field reads as, for this render. */
  reading: AmountReading = { ok: false, problem: 'empty' };
  private readonly rpcs = new Map<number, ChainRpc>();
  /** Each balance read bumps it; an older read's answer is dropped. */
  private balanceGeneration = 0;

  constructor(
    private readonly host: BridgeHost,
    private readonly options: FormOptions,
  ) {
    host.addController(this);
  }

  hostUpdate(): void {
    // The locale, the token and the balance may each have changed since the amount was typed.
    this.reading = this.read();
  }

  /** A new listing (none while it loads): each chain's reader is made afresh. */
  list(chains: ChainEntry[]): void {
    this.chains = chains;
    this.rpcs.clear();
    this.host.requestUpdate();
  }

  /**
   * Source, destination and token defaults: the choices made stay where the listing still has them;
   * else `walletChain` (the wallet's chain) is the source when it is listed, else the first chain.
   */
  pick(walletChain?: number): void {
    const ids = this.chains.map((chain) => chain.chainId);
    if (!ids.includes(this.sourceId))
      this.sourceId = walletChain !== undefined && ids.includes(walletChain) ? walletChain : ids[0]!;
    if (!ids.includes(this.destinationId) || this.destinationId === this.sourceId)
      this.destinationId = ids.find((id) => id !== this.sourceId)!;
    const symbols = this.symbols();
    if (!symbols.includes(this.symbol)) this.symbol = symbols[0] ?? '';
    this.host.requestUpdate();
  }

  /** The form for a newly connected wallet: its chain as the source, when listed. */
  start(walletChain?: number): void {
    this.sourceId = 0;
    this.pick(walletChain);
    void this.refreshBalance();
  }

  /** The chains and token of a transfer kept across a reload. */
  select({ sourceChainId, destinationChainId, symbol }: TransferRecord): void {
    this.sourceId = sourceChainId;
    this.destinationId = destinationChainId;
    this.symbol = symbol;
    this.host.requestUpdate();
  }

  chain(chainId: number): ChainEntry | undefined {
    return this.chains.find((chain) => chain.chainId === chainId);
  }

  /** The tokens both chosen chains carry. */
  symbols(): string[] {
    const destination = this.chain(this.destinationId);
    return Object.keys(this.chain(this.sourceId)?.tokens ?? {}).filter((symbol) => destination?.tokens[symbol]);
  }

  token(chainId: number, symbol = this.symbol): TokenInfo | undefined {
    return this.chain(chainId)?.tokens[symbol];
  }

  /** The reader of a chain (one per chain and listing). */
  rpc(chain: ChainEntry): ChainRpc {
    let rpc = this.rpcs.get(chain.chainId);
    if (!rpc) this.rpcs.set(chain.chainId, (rpc = new ChainRpc(chain)));
    return rpc;
  }

  /** The balance as the user reads it (`1,000 eUSD`), or '' while it is not known. */
  balanceText(locale: string): string {
    const token = this.token(this.sourceId);
    return typeof this.balance === 'bigint' && token
      ? tokenAmount(fromUnits(this.balance, token.decimals), token.symbol, locale)
      : '';
  }

  /** What the amount field reads as now. */
  read(): AmountReading {
    const token = this.token(this.sourceId);
    return token
      ? readAmount(this.amountText, token.decimals, this.options.locale(), this.balance ?? undefined)
      : { ok: false, problem: 'invalid' };
  }

  async refreshBalance(): Promise<void> {
    const generation = ++this.balanceGeneration;
    const source = this.chain(this.sourceId);
    const token = this.token(this.sourceId);
    const account = this.options.account();
    this.setBalance(undefined);
    if (!source || !token || !account) return;
    try {
      const balance = await this.rpc(source).tokenBalance(token.address, account, 'balance');
      if (generation === this.balanceGeneration) this.setBalance(balance);
    } catch (error) {
      if (generation !== this.balanceGeneration) return;
      this.setBalance(null);
      this.options.problems.report(errorDetail(error as BridgeError));
    }
  }

  /** The user chose a chain or a token; choosing the other side's chain swaps the two. */
  choose(field: 'source' | 'destination' | 'token', value: string): void {
    this.edit(() => {
      if (field === 'token') {
        this.symbol = value;
        return;
      }
      const id = Number(value);
      if (id === (field === 'source' ? this.destinationId : this.sourceId)) this.swapChains();
      else if (field === 'source') this.sourceId = id;
      else this.destinationId = id;
      this.pick();
    });
  }

  swap(): void {
    this.edit(() => {
      this.swapChains();
      this.pick();
    });
  }

  /** The whole balance, as the user would type it. */
  useMax(): void {
    const token = this.token(this.sourceId);
    if (!allows(this.host.phase, 'edit') || !token || typeof this.balance !== 'bigint') return;
    this.amountText = unitsAsInput(this.balance, token.decimals, this.options.locale());
    this.touched = true;
    this.options.problems.clear();
  }

  type(text: string): void {
    this.amountText = text;
    this.options.problems.clear();
  }

  /** The user left the amount field: from now on an empty amount is a problem. */
  leave(): void {
    // Also called when the field is taken out of the page while focused (mid-render): no update then.
    if (this.touched || !this.amountText) return;
    this.touched = true;
    this.host.requestUpdate();
  }

  /** A new transfer's form: the chains and token stay, the amount goes. */
  clearAmount(): void {
    this.amountText = '';
    this.touched = false;
    this.host.requestUpdate();
  }

  /** A change of chain or token: the balance is read again. */
  private edit(change: () => void): void {
    if (!allows(this.host.phase, 'edit')) return;
    this.options.problems.clear();
    change();
    void this.refreshBalance();
  }

  private swapChains(): void {
    [this.sourceId, this.destinationId] = [this.destinationId, this.sourceId];
  }

  private setBalance(balance: bigint | null | undefined): void {
    this.balance = balance;
    this.host.requestUpdate();
  }
}
