/**
 * An amount in a currency, for a locale: `42,50 €` in de-DE, `€42.50` in en-IE. The amount stays a
 * decimal string (Intl formats the string exactly); an unknown currency code is shown as it is.
 */
export function formatMoney(amount: string, currency: string, locale: string): string {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(amount as Intl.StringNumericLiteral);
  } catch {
    return `${amount} ${currency}`;
  }
}

/** A wait in words, with the language's plural: `30 seconds`, `1 Sekunde`. */
export function formatSeconds(seconds: number, locale: string): string {
  return new Intl.NumberFormat(locale, { style: 'unit', unit: 'second', unitDisplay: 'long' }).format(seconds);
}

/**
 * A token amount for a locale, exactly, without a currency sign (the token's symbol goes beside it):
 * `1,000,000` in en, `1.000.000` in de, `0.000000000000000001`. `amount` is a decimal string and is
 * never rounded: Intl formats up to 20 fraction digits from the string itself; longer fractions (a
 * token with more decimals than that) keep their digits after the locale's decimal separator.
 */
export function formatTokenAmount(amount: string, locale: string): string {
  const [whole = '0', fraction = ''] = amount.split('.');
  try {
    if (fraction.length <= 20)
      return new Intl.NumberFormat(locale, { maximumFractionDigits: fraction.length }).format(
        amount as Intl.StringNumericLiteral,
      );
    const format = new Intl.NumberFormat(locale);
    const separator = format.formatToParts(1.5).find((part) => part.type === 'decimal')?.value ?? '.';
    return `${format.format(BigInt(whole))}${separator}${fraction}`;
  } catch {
    return amount;
  }
}

/** A duration in words: whole seconds up to two minutes, whole minutes beyond (`90 seconds`, `10 minutes`). */
export function formatDuration(ms: number, locale: string): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds <= 120) return formatSeconds(seconds, locale);
  return new Intl.NumberFormat(locale, { style: 'unit', unit: 'minute', unitDisplay: 'long' }).format(
    Math.round(seconds / 60),
  );
}
