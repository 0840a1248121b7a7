import { fromUnits } from '../../lib/money.ts';
import type { ChainEntry } from '../../schemas/reforge.ts';
import { ChainRpc } from '../bridge/chain-rpc.ts';
import { tokenAmount } from '../shared/token-amount.ts';
import { paymentFor, readTokens, type OnrampAmount } from './amounts.ts';
import type { OnrampConfig } from '../../schemas/onramp.ts';
import type { OnrampHost } from './phases.ts';

export interface OrderFormOptions {
  /** The connected wallet's account, whose balance the form shows. */
  account(): string | undefined;
  locale(): string;
  /** The customer changed the order: what was said about the last one no longer holds. */
  onEdit(): void;
}

/** A token's balance: a number of base units, `undefined` while it is read, `null` when it could not be. */
export type Balance = bigint | null | undefined;

/**
 * What the customer asks for: the coin (and so the currency they pay in), the network it is minted
 * on (only those the proxy offers with that coin), and the tokens they receive, within the
 * merchant's bounds; what that costs with the merchant's fee; and their balance of the coin there.
 */
export class OrderForm {
  config?: OnrampConfig;
  symbol = '';
  chainId = 0;
  /** What the customer typed. */
  text = '';
  /** The customer has left the amount field once: its problem may show. */
  touched = false;
  balance: Balance;
  private readonly rpcs = new Map<number, ChainRpc>();
  /** Each balance read bumps it; an answer for an older one is dropped. */
  private reads = 0;

  constructor(
    private readonly host: OnrampHost,
    private readonly options: OrderFormOptions,
  ) {}

  /** The proxy's offer: the first coin and its first network are chosen (a reload keeps what was chosen). */
  list(config: OnrampConfig | undefined): void {
    this.config = config;
    this.rpcs.clear();
    if (!config) return;
    const coins = this.coins();
    if (!coins.some((coin) => coin.symbol === this.symbol)) this.symbol = coins[0]?.symbol ?? '';
    this.pickChain();
  }

  /** The coins offered: those configured that some listed network carries. */
  coins(): OnrampConfig['coins'] {
    return (this.config?.coins ?? []).filter((coin) => this.chains(coin.symbol).length);
  }

  /** The networks that mint `symbol`. */
  chains(symbol = this.symbol): ChainEntry[] {
    return (this.config?.chains ?? []).filter((chain) => chain.tokens[symbol]);
  }

  chain(chainId = this.chainId): ChainEntry | undefined {
    return this.config?.chains.find((chain) => chain.chainId === chainId);
  }

  /** The currency the chosen coin is paid in. */
  get currency(): string {
    return this.config?.coins.find((coin) => coin.symbol === this.symbol)?.currencyCode ?? '';
  }

  choose(field: 'coin' | 'chain', value: string): void {
    if (field === 'coin') {
      this.symbol = value;
      this.pickChain();
    } else {
      this.chainId = Number(value);
    }
    this.options.onEdit();
    void this.refreshBalance();
    this.host.requestUpdate();
  }

  type(text: string): void {
    this.text = text;
    this.options.onEdit();
    this.host.requestUpdate();
  }

  /** The customer left the field (or tried to buy): its problem shows from now on. */
  leave(): void {
    // Once: the field's removal (the purchase made) blurs it again, mid-render.
    if (this.touched) return;
    this.touched = true;
    this.host.requestUpdate();
  }

  /** The amount typed, read against the bounds. */
  get reading(): OnrampAmount {
    const { config } = this;
    if (!config) return { ok: false, problem: 'empty' };
    return readTokens(this.text, this.options.locale(), config.min, config.max);
  }

  /** What the customer pays for the tokens typed (fee included), or undefined while the amount is not valid. */
  get payment(): { payment: string; fee: string } | undefined {
    const reading = this.reading;
    return reading.ok && this.config ? paymentFor(reading.amount, this.config.fee) : undefined;
  }

  /** The balance as the customer reads it (`0 eEUR`), '' when not known. */
  balanceText(locale: string): string {
    const token = this.chain()?.tokens[this.symbol];
    return typeof this.balance === 'bigint' && token
      ? tokenAmount(fromUnits(this.balance, token.decimals), token.symbol, locale)
      : '';
  }

  /** Reads the account's balance of the chosen coin on the chosen network. */
  async refreshBalance(): Promise<void> {
    const read = ++this.reads;
    this.balance = undefined;
    const account = this.options.account();
    const chain = this.chain();
    const token = chain?.tokens[this.symbol];
    if (!account || !chain || !token) return;
    const balance = await this.balanceOf(chain.chainId, token.address, account).catch(() => null);
    if (read !== this.reads) return;
    this.balance = balance;
    this.host.requestUpdate();
  }

  /** An account's balance of a token on a network of the offer (`eth_call balanceOf` on the network's RPC). */
  balanceOf(chainId: number, token: string, account: string): Promise<bigint> {
    const chain = this.chain(chainId);
    if (!chain) return Promise.reject(new Error(`chain ${chainId} is not offered`));
    let rpc = this.rpcs.get(chainId);
    if (!rpc) this.rpcs.set(chainId, (rpc = new ChainRpc(chain)));
    return rpc.tokenBalance(token, account, 'balance');
  }

  private pickChain(): void {
    const chains = this.chains();
    if (!chains.some((chain) => chain.chainId === this.chainId)) this.chainId = chains[0]?.chainId ?? 0;
  }
}
