/** The languages Kassa's elements speak. English is built into kassa.js; the others load as chunks when used. */
export const LANGUAGES = ['en', 'de', 'fr', 'es', 'nl'] as const;
export type Language = (typeof LANGUAGES)[number];

/** One element's messages in every language: English at hand, the others as lazily imported modules. */
export type Catalogs<M> = { en: M } & { [L in Exclude<Language, 'en'>]: () => Promise<{ default: M }> };

/**
 * The locale an element formats with: its own `locale`, else the nearest `lang` attribute above it
 * (across shadow roots, so it follows the page or the framework component it sits in), else the
 * browser's language. Tags that are not valid BCP 47 are passed over.
 */
export function resolveLocale(host: Element, own: string | undefined): string {
  for (const tag of [own, nearestLang(host), navigator.language]) {
    try {
      if (tag) return Intl.getCanonicalLocales(tag)[0]!;
    } catch {
      // not a locale: try the next one
    }
  }
  return 'en';
}

function nearestLang(node: Element): string | undefined {
  for (
    let at: Element | null = node;
    at;
    at = at.parentElement ?? (at.getRootNode() as Partial<ShadowRoot>).host ?? null
  ) {
    const lang = at.getAttribute('lang');
    if (lang) return lang;
  }
  return undefined;
}

/** The language of a locale (`de-CH` → `de`); English for a language Kassa does not speak. */
export function languageOf(locale: string): Language {
  const language = locale.split('-')[0]!.toLowerCase();
  return (LANGUAGES as readonly string[]).includes(language) ? (language as Language) : 'en';
}

/** Fills a message's `{name}` placeholders. */
export function fill(message: string, values: Record<string, string>): string {
  return message.replace(/\{(\w+)\}/g, (placeholder, name: string) => values[name] ?? placeholder);
}
