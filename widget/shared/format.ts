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

/**
 * A duration in words, with the language's plural: whole seconds up to two minutes, whole minutes
 * beyond (`90 seconds`, `1 Sekunde`, `10 minutes`).
 */
export function formatDuration(ms: number, locale: string): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  const [value, unit] = seconds <= 120 ? [seconds, 'second'] : [Math.round(seconds / 60), 'minute'];
  return new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' }).format(value);
}
