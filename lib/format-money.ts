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
