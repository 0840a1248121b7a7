import { compareDecimals, fromUnits, isDecimal, toUnits } from '../../lib/money.ts';
import { readAmount } from '../shared/token-amount.ts';

/** Tokens are bought in the payment currency's steps: at most two decimals. */
export const TOKEN_DECIMALS = 2;

export type OnrampAmountProblem = 'empty' | 'invalid' | 'decimals' | 'below' | 'above';

export type OnrampAmount = { ok: true; amount: string } | { ok: false; problem: OnrampAmountProblem };

/** What the customer typed, as tokens to buy within the merchant's bounds (`min`, `max`: decimal strings). */
export function readTokens(input: string, locale: string, min: string, max: string): OnrampAmount {
  const reading = readAmount(input, TOKEN_DECIMALS, locale);
  if (!reading.ok) {
    const { problem } = reading;
    return { ok: false, problem: problem === 'zero' || problem === 'insufficient' ? 'below' : problem };
  }
  if (compareDecimals(reading.amount, min) < 0) return { ok: false, problem: 'below' };
  if (compareDecimals(reading.amount, max) > 0) return { ok: false, problem: 'above' };
  return { ok: true, amount: reading.amount };
}

/** The merchant's fee: a percentage of the tokens and a fixed amount, decimal strings. */
export interface Fee {
  percent: string;
  fixed: string;
}

/** Hundredths of a percent: the finest fee a merchant sets. */
const PERCENT_SCALE = 4;

/**
 * What the customer pays for `tokens` (1 to 1, in the coin's currency): the tokens plus the fee,
 * the fee's percentage rounded up to the cent. Two-decimal strings (`"25.00"`, `"0.68"`).
 */
export function paymentFor(tokens: string, fee: Fee): { payment: string; fee: string } {
  const cents = toUnits(tokens, TOKEN_DECIMALS);
  const percent = isDecimal(fee.percent, PERCENT_SCALE) ? toUnits(fee.percent, PERCENT_SCALE) : 0n;
  const fixed = isDecimal(fee.fixed, TOKEN_DECIMALS) ? toUnits(fee.fixed, TOKEN_DECIMALS) : 0n;
  // cents × percent / 100, with the percent scaled by 10^4: divide by 10^6, rounding up.
  const divisor = 100n * 10n ** BigInt(PERCENT_SCALE);
  const feeCents = (cents * percent + divisor - 1n) / divisor + fixed;
  const money = (units: bigint) => {
    const text = fromUnits(units, TOKEN_DECIMALS);
    const [whole, fraction = ''] = text.split('.');
    return `${whole}.${fraction.padEnd(TOKEN_DECIMALS, '0')}`;
  };
  return { payment: money(cents + feeCents), fee: money(feeCents) };
}
