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

/** A duration in words: whole seconds up to two minutes, whole minutes beyond (`90 seconds`, `10 minutes`). */
export function formatDuration(ms: number, locale: string): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds <= 120) return formatSeconds(seconds, locale);
  return new Intl.NumberFormat(locale, { style: 'unit', unit: 'minute', unitDisplay: 'long' }).format(
    Math.round(seconds / 60),
  );
}
