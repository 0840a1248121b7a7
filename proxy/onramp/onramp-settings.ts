/**
 * The on-ramp's settings (`KASSA_ONRAMP_*`): which currency buys which coin, on which chains, within
 * which bounds and limits, at what fee. Off unless `KASSA_ONRAMP_COINS` is set. Amounts are whole
 * tokens with at most 2 decimal places, kept as integer hundredths so limits add up exactly.
 */
import { isPaymentCurrency } from '../../schemas/pay.ts';
import { STABLECOINS, type Stablecoin } from '../../schemas/orders.ts';
import type { OnrampFee } from '../../lib/onramp-price.ts';

export interface OnrampCoinSetting {
  currencyCode: string;
  symbol: Stablecoin;
}

export interface OnrampSettings {
  coins: OnrampCoinSetting[];
  /** Chain ids the issuer mints on; null: every chain of the listing. */
  chains: number[] | null;
  /** Tokens per purchase, in hundredths. */
  minCents: bigint;
  maxCents: bigint;
  /** Tokens of one coin per wallet over a rolling 24 hours, in hundredths; null: no limit. */
  walletLimitCents: bigint | null;
  /** The fee, as published and charged (lib/onramp-price.ts): a percentage and a fixed part. */
  fee: OnrampFee;
  /** Paid but not delivered this long: the purchase is delayed. */
  mintTimeoutMs: number;
}

/** A bad value; the caller names the setting. */
export class OnrampSettingError extends Error {
  constructor(
    readonly setting: string,
    problem: string,
  ) {
    super(problem);
  }
}

const CENTS = /^(0|[1-9]\d{0,11})(?:\.(\d{1,2}))?$/;

/** "12.5" → 1250n; undefined when it is not a decimal with at most 2 places. */
export function toCents(value: string): bigint | undefined {
  const match = CENTS.exec(value.trim());
  if (!match) return undefined;
  return BigInt(match[1]!) * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
}

/** 1250n → "12.50". */
export const fromCents = (cents: bigint): string => `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;

/** 1250n → "12.5", 2500n → "25": a token amount as the customer typed it. */
export const tokensText = (cents: bigint): string => fromCents(cents).replace(/\.?0+$/, '');

function parseCoins(value: string): OnrampCoinSetting[] {
  const coins = value.split(',').map((pair) => {
    const match = /^\s*([A-Z]{3})\s*:\s*(\w+)\s*$/.exec(pair);
    if (!match)
      throw new OnrampSettingError('KASSA_ONRAMP_COINS', `"${pair.trim()}" is not CURRENCY:COIN, such as EUR:eEUR`);
    const [, currencyCode, symbol] = match as unknown as [string, string, string];
    if (!isPaymentCurrency(currencyCode))
      throw new OnrampSettingError(
        'KASSA_ONRAMP_COINS',
        `${currencyCode} is not a currency the payment service settles`,
      );
    if (!(STABLECOINS as readonly string[]).includes(symbol))
      throw new OnrampSettingError('KASSA_ONRAMP_COINS', `${symbol} is not one of ${STABLECOINS.join(', ')}`);
    return { currencyCode, symbol: symbol as Stablecoin };
  });
  for (const key of ['currencyCode', 'symbol'] as const) {
    const seen = coins.map((coin) => coin[key]);
    if (new Set(seen).size !== seen.length)
      throw new OnrampSettingError(
        'KASSA_ONRAMP_COINS',
        `each ${key === 'symbol' ? 'coin' : 'currency'} may appear once`,
      );
  }
  return coins;
}

function amount(setting: string, value: string): bigint {
  const cents = toCents(value);
  if (cents === undefined || cents === 0n)
    throw new OnrampSettingError(setting, `"${value}" is not a positive amount with at most 2 decimal places`);
  return cents;
}

function parseFee(value: string): OnrampFee {
  const match = /^\s*(?:(\d{1,2}(?:\.\d{1,2})?)%)?\s*(?:\+?\s*(\d{1,6}(?:\.\d{1,2})?))?\s*$/.exec(value);
  if (!match || (match[1] === undefined && match[2] === undefined))
    throw new OnrampSettingError('KASSA_ONRAMP_FEE', `"${value}" is not P%, F or P%+F (such as 1.5%+0.30)`);
  return {
    percent: tokensText(toCents(match[1] ?? '0')!) || '0',
    fixed: fromCents(toCents(match[2] ?? '0')!),
  };
}

/** The on-ramp's settings; null when it is off. Throws OnrampSettingError naming a bad setting. */
export function parseOnrampSettings(source: Record<string, string | undefined>): OnrampSettings | null {
  const coins = source.KASSA_ONRAMP_COINS?.trim();
  if (!coins || coins === 'off') {
    const stray = Object.keys(source).find((name) => name.startsWith('KASSA_ONRAMP_') && source[name]?.trim());
    if (stray && stray !== 'KASSA_ONRAMP_COINS')
      throw new OnrampSettingError('KASSA_ONRAMP_COINS', `is required when ${stray} is set: it turns the on-ramp on`);
    return null;
  }
  const [minText = '1', maxText = '1000'] = (source.KASSA_ONRAMP_LIMITS?.trim() || '1..1000').split('..');
  const minCents = amount('KASSA_ONRAMP_LIMITS', minText);
  const maxCents = amount('KASSA_ONRAMP_LIMITS', maxText ?? '');
  if (minCents > maxCents) throw new OnrampSettingError('KASSA_ONRAMP_LIMITS', 'min is greater than max');
  const limit = source.KASSA_ONRAMP_WALLET_LIMIT?.trim();
  const walletLimitCents = limit && limit !== 'off' ? amount('KASSA_ONRAMP_WALLET_LIMIT', limit) : null;
  if (walletLimitCents !== null && walletLimitCents < minCents)
    throw new OnrampSettingError('KASSA_ONRAMP_WALLET_LIMIT', 'is smaller than the smallest purchase');
  const chainList = source.KASSA_ONRAMP_CHAINS?.trim();
  const chains = chainList
    ? chainList.split(',').map((id) => {
        const chainId = Number(id.trim());
        if (!Number.isSafeInteger(chainId) || chainId <= 0)
          throw new OnrampSettingError('KASSA_ONRAMP_CHAINS', `"${id.trim()}" is not a chain id`);
        return chainId;
      })
    : null;
  const fee = parseFee(source.KASSA_ONRAMP_FEE?.trim() || '0');
  const timeout = source.KASSA_ONRAMP_MINT_TIMEOUT_SECONDS?.trim() || '600';
  const seconds = Number(timeout);
  if (!Number.isInteger(seconds) || seconds < 10 || seconds > 7 * 24 * 3600)
    throw new OnrampSettingError(
      'KASSA_ONRAMP_MINT_TIMEOUT_SECONDS',
      `must be a whole number from 10 to 604800, not "${timeout}"`,
    );
  return {
    coins: parseCoins(coins),
    chains,
    minCents,
    maxCents,
    walletLimitCents,
    fee,
    mintTimeoutMs: seconds * 1000,
  };
}
