import { compareDecimals } from '../../lib/money.ts';
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
