import type { LinkView } from '../../schemas/links.ts';
import { formatMoney } from '../../widget/ui.ts';
import { fill, type UiLocale } from './ui-locale.ts';

/** What a link asks, in words: its amount, or the bounds the customer's amount keeps within. */
export function linkAmount(link: LinkView, locale: UiLocale): string {
  const { links: w, language } = locale;
  const money = (amount: string) => formatMoney(amount, link.currencyCode, language);
  if (link.amount !== null) return money(link.amount);
  return fill(w.between, { min: money(link.openAmount!.min), max: money(link.openAmount!.max) });
}

/** Its payments counted, against its cap on uses when it has one ("3 of 10 payments"). */
export function linkUses(link: LinkView, locale: UiLocale): string {
  const { links: w } = locale;
  const count = String(link.payments.count);
  return link.maxUses === null ? fill(w.uses, { count }) : fill(w.usesOf, { count, max: String(link.maxUses) });
}

/** What the link has taken, in its currency. */
export const linkTotal = (link: LinkView, locale: UiLocale) =>
  formatMoney(link.payments.total, link.currencyCode, locale.language);

/** A moment of the proxy's (ISO 8601), short, in the view's language. */
export const shortTime = (iso: string, locale: UiLocale) =>
  new Date(iso).toLocaleString(locale.language, { dateStyle: 'short', timeStyle: 'short' });
