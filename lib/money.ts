/**
 * Money stays a decimal string inside Kassa (DESIGN.md, Conventions): binary floats cannot hold
 * 0.1 exactly, and a string keeps the merchant's own notation ("100.50") all the way to the screen.
 * These helpers check, compare and convert such strings without ever doing float arithmetic.
 */

/** A non-negative decimal in plain notation: no sign, no exponent, no leading zeros but one. */
const DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/;

export function isDecimal(value: string, maxFractionDigits = Infinity): boolean {
  const match = DECIMAL.exec(value);
  if (!match) return false;
  return (match[2]?.length ?? 1) - 1 <= maxFractionDigits;
}

/** Scales a decimal string to an integer count of 10^-scale units: ("100.5", 2) -> 10050n. */
export function toUnits(value: string, scale: number): bigint {
  if (!isDecimal(value, scale)) throw new RangeError(`not a decimal with at most ${scale} fraction digits: ${value}`);
  const [whole, fraction = ''] = value.split('.');
  return BigInt(whole + fraction.padEnd(scale, '0'));
}

/** The inverse of toUnits, without trailing fraction zeros: (10050n, 2) -> "100.5". */
export function fromUnits(units: bigint, scale: number): string {
  if (units < 0n) throw new RangeError('negative amount');
  const digits = units.toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** Orders two decimal strings: negative, zero or positive like a sort comparator. */
export function compareDecimals(a: string, b: string): number {
  const scale = Math.max(fractionDigits(a), fractionDigits(b));
  const diff = toUnits(a, scale) - toUnits(b, scale);
  return diff < 0n ? -1 : diff > 0n ? 1 : 0;
}

/** Whether two decimal strings denote the same amount ("100.50" and "100.5" do). */
export function sameAmount(a: string, b: string): boolean {
  return compareDecimals(a, b) === 0;
}

/**
 * The exact decimal a JSON number denotes, or undefined when it has no plain decimal form
 * (negative, not finite, or written with an exponent such as 1e-7 or 1e21).
 */
export function numberToDecimal(value: number): string | undefined {
  if (!Number.isFinite(value) || value < 0) return undefined;
  const text = String(value);
  return isDecimal(text) ? text : undefined;
}

/** For upstream wires that carry amounts as JSON numbers; exact for amounts with few digits. */
export function decimalToNumber(value: string): number {
  if (!isDecimal(value)) throw new RangeError(`not a decimal: ${value}`);
  return Number(value);
}

function fractionDigits(value: string): number {
  const dot = value.indexOf('.');
  return dot === -1 ? 0 : value.length - dot - 1;
}

/** An amount as a person typed it, as the proxy reads amounts: `12,50` is `12.50`, spaces dropped. */
export const typedAmount = (text: string): string => text.replace(/\s/g, '').replace(/^(\d+),(\d{1,2})$/, '$1.$2');
