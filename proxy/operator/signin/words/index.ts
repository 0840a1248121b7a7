import { acceptedLanguage } from '../../../../lib/accept-language.ts';
import { de } from './de.ts';
import { en, type Words } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';
import { nl } from './nl.ts';

export type { Words };

/** The languages Kassa speaks everywhere (widget/shared/i18n.ts), in the switcher's order. */
export const PAGE_LANGUAGES = ['en', 'de', 'fr', 'es', 'nl'] as const;
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];

export const WORDS: Readonly<Record<PageLanguage, Words>> = { en, de, fr, es, nl };

export const isPageLanguage = (value: string | undefined): value is PageLanguage =>
  (PAGE_LANGUAGES as readonly string[]).includes(value ?? '');

/** The page's language: the one chosen in the switcher, else the browser's first that Kassa speaks. */
export function pageLanguage(chosen: string | undefined, acceptLanguage: string | undefined): PageLanguage {
  return isPageLanguage(chosen) ? chosen : acceptedLanguage(acceptLanguage, PAGE_LANGUAGES);
}

/** Fills a message's `{name}` placeholders. */
export const fill = (message: string, values: Record<string, string | number>): string =>
  message.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
