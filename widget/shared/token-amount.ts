import { fromUnits, isDecimal, toUnits } from '../../lib/money.ts';

export type AmountProblem = 'empty' | 'invalid' | 'decimals' | 'zero' | 'insufficient';

export type AmountReading = { ok: true; amount: string; units: bigint } | { ok: false; problem: AmountProblem };

/** The locale's decimal separator (`.` in en, `,` in de). */
export function decimalSeparator(locale: string): string {
  try {
    return new Intl.NumberFormat(locale).formatToParts(1.5).find((part) => part.type === 'decimal')?.value ?? '.';
  } catch {
    return '.';
  }
}

/**
 * A token amount for a locale, exactly, without a currency sign (the token's symbol goes beside it):
 * `1,000,000` in en, `1.000.000` in de, `0.000000000000000001`. `amount` is a decimal string and is
 * never rounded: Intl formats up to 20 fraction digits from the string itself; longer fractions (a
 * token with more decimals than that) keep their digits after the locale's decimal separator.
 */
function formatTokenAmount(amount: string, locale: string): string {
  const [whole = '0', fraction = ''] = amount.split('.');
  try {
    if (fraction.length <= 20)
      return new Intl.NumberFormat(locale, { maximumFractionDigits: fraction.length }).format(
        amount as Intl.StringNumericLiteral,
      );
    return `${new Intl.NumberFormat(locale).format(BigInt(whole))}${decimalSeparator(locale)}${fraction}`;
  } catch {
    return amount;
  }
}

/** An amount with its symbol, in the locale's notation: `12.5 eUSD`, `1.000.000 eUSD`. */
export const tokenAmount = (amount: string, symbol: string, locale: string) =>
  `${formatTokenAmount(amount, locale)} ${symbol}`;

/**
 * What the user typed, as an amount of a token with `decimals` decimals: a plain decimal with `.` or
 * the locale's own separator (`12,5` in de), no grouping, no sign, no exponent, at most `decimals`
 * fraction digits (trailing zeros aside), above zero and, when the balance is known, within it.
 * `amount` is the normalised decimal string the proxy is sent (`12.5`), `units` the base units.
 */
export function readAmount(input: string, decimals: number, locale: string, balance?: bigint): AmountReading {
  let text = input.trim().replace(/\s/g, '');
  if (!text) return { ok: false, problem: 'empty' };
  const separator = decimalSeparator(locale);
  if (separator !== '.') {
    if (text.includes('.') && text.includes(separator)) return { ok: false, problem: 'invalid' };
    text = text.replace(separator, '.');
  }
  if (!/^\d*(\.\d*)?$/.test(text) || text === '.') return { ok: false, problem: 'invalid' };
  let [whole = '', fraction = ''] = text.split('.');
  whole = whole.replace(/^0+(?=\d)/, '') || '0';
  fraction = fraction.replace(/0+$/, '');
  const amount = fraction ? `${whole}.${fraction}` : whole;
  if (!isDecimal(amount)) return { ok: false, problem: 'invalid' };
  if (fraction.length > decimals) return { ok: false, problem: 'decimals' };
  const units = toUnits(amount, decimals);
  if (units === 0n) return { ok: false, problem: 'zero' };
  if (balance !== undefined && units > balance) return { ok: false, problem: 'insufficient' };
  return { ok: true, amount, units };
}

/** Base units as the user would type them in this locale (the "max" button): `1000000`, `12,5`. */
export function unitsAsInput(units: bigint, decimals: number, locale: string): string {
  return fromUnits(units, decimals).replace('.', decimalSeparator(locale));
}

/** An example amount for the hint, in the locale's notation: `12.5`, `12,5`. */
export const exampleAmount = (locale: string) => `12${decimalSeparator(locale)}5`;
