import type { OnrampConfig } from '../../schemas/onramp.ts';
import type { Environment } from '../../schemas/pay.ts';
import type { ChainEntry, TokenInfo } from '../../schemas/reforge.ts';
import type { ChainDirectory } from '../bridge/chain-directory.ts';
import { RefusedError } from '../domain/domain-errors.ts';
import { tokensText, type OnrampCoinSetting, type OnrampSettings } from './onramp-settings.ts';

/** Where a purchase is delivered: the chain, and the coin's token on it. */
export interface DeliveryTarget {
  chain: ChainEntry;
  token: TokenInfo;
}

/** A chain and coin a customer may buy on. */
export interface Offer extends DeliveryTarget {
  coin: OnrampCoinSetting;
}

/**
 * What the on-ramp offers: the configured coins, on the chains of the cross-chain service's listing
 * (the test listing for a sandbox account, the main one for a live account) that the issuer mints on.
 */
export class OnrampCatalog {
  constructor(
    private readonly settings: OnrampSettings,
    private readonly chains: ChainDirectory,
    private readonly environment: () => Promise<Environment>,
  ) {}

  async chainsOffered(): Promise<ChainEntry[]> {
    const listing = await this.chains.list((await this.environment()) === 'live' ? 'main' : 'test');
    const symbols = new Set<string>(this.settings.coins.map((coin) => coin.symbol));
    return listing
      .filter((chain) => this.settings.chains === null || this.settings.chains.includes(chain.chainId))
      .map((chain) => ({
        ...chain,
        tokens: Object.fromEntries(Object.entries(chain.tokens).filter(([symbol]) => symbols.has(symbol))),
      }))
      .filter((chain) => Object.keys(chain.tokens).length > 0);
  }

  async config(): Promise<OnrampConfig> {
    const { settings } = this;
    return {
      environment: await this.environment(),
      coins: settings.coins.map(({ currencyCode, symbol }) => ({ currencyCode, symbol })),
      fee: settings.fee,
      min: tokensText(settings.minCents),
      max: tokensText(settings.maxCents),
      walletLimit: settings.walletLimitCents === null ? null : tokensText(settings.walletLimitCents),
      chains: await this.chainsOffered(),
    };
  }

  /** The offer for a coin on a chain; a refusal that says what is offered when there is none. */
  async offer(chainId: number, symbol: string): Promise<Offer> {
    const coin = this.settings.coins.find((candidate) => candidate.symbol === symbol);
    if (!coin)
      throw new RefusedError(
        `${symbol} cannot be bought here; offered: ${this.settings.coins.map((c) => c.symbol).join(', ')}`,
      );
    const chains = await this.chainsOffered();
    const chain = chains.find((candidate) => candidate.chainId === chainId);
    const token = chain?.tokens[symbol];
    if (!chain || !token)
      throw new RefusedError(
        `${symbol} cannot be delivered on chain ${chainId}; offered: ${
          chains
            .filter((c) => c.tokens[symbol])
            .map((c) => `${c.name} (${c.chainId})`)
            .join(', ') || 'none'
        }`,
      );
    return { chain, token, coin };
  }

  /**
   * Where a purchase already made is delivered, from the whole listing: the settings may have changed
   * since, and a paid purchase is delivered all the same.
   */
  async offerFor(chainId: number, symbol: string): Promise<DeliveryTarget | undefined> {
    const listing = await this.chains.list((await this.environment()) === 'live' ? 'main' : 'test');
    const chain = listing.find((candidate) => candidate.chainId === chainId);
    const token = chain?.tokens[symbol];
    return chain && token ? { chain, token } : undefined;
  }
}
