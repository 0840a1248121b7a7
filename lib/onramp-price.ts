/**
 * What an on-ramp customer pays: one token per unit of the coin's currency, plus the merchant's fee
 * (a percentage of the tokens' value, rounded up to the cent, and a fixed part). The proxy charges
 * it and `<kassa-onramp>` shows it before the quote: one rule, so the two always agree.
 * No dependencies beyond lib/money: the element imports it.
 */
import { fromUnits, isDecimal, toUnits } from './money.ts';

/** The merchant's fee as the proxy publishes it (`/api/onramp/config`): decimal strings. */
export interface OnrampFee {
  /** A percentage, at most 2 decimal places (`"1.5"` is 1.5 %). */
  percent: string;
  /** In the payment currency, at most 2 decimal places. */
  fixed: string;
}

/** Cents: the payment currency's minor unit, and the finest step of a token amount. */
const CENTS = 2;
/** Hundredths of a percent, as basis points: the finest fee a merchant sets. */
const PERCENT_DIGITS = 2;

/** `2500n` → `"25.00"`. */
export const moneyText = (cents: bigint): string => {
  const [whole, fraction = ''] = fromUnits(cents, CENTS).split('.');
  return `${whole}.${fraction.padEnd(CENTS, '0')}`;
};

/**
 * The fee and the payment for `tokens` (a decimal with at most 2 places), as two-decimal strings
 * (`{ payment: "25.68", fee: "0.68" }`). A fee part that is not a decimal counts as 0.
 */
export function onrampPrice(tokens: string, fee: OnrampFee): { payment: string; fee: string } {
  const cents = toUnits(tokens, CENTS);
  const basisPoints = isDecimal(fee.percent, PERCENT_DIGITS) ? toUnits(fee.percent, PERCENT_DIGITS) : 0n;
  const fixed = isDecimal(fee.fixed, CENTS) ? toUnits(fee.fixed, CENTS) : 0n;
  // cents × basis points / 10,000, rounded up: never in the customer's favour by a fraction of a cent.
  const feeCents = (cents * basisPoints + 9_999n) / 10_000n + fixed;
  return { payment: moneyText(cents + feeCents), fee: moneyText(feeCents) };
}
