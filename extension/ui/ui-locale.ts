import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { bridgeMessages, fill, languageOf, type BridgeMessages } from '../../widget/ui.ts';
import type { LanguageChoice, UiLanguage } from '../channels.ts';
import { ask } from './client.ts';
import de from './messages/de.ts';
import en, { type ExtensionMessages } from './messages/en.ts';
import es from './messages/es.ts';
import fr from './messages/fr.ts';
import nl from './messages/nl.ts';
import integrationsDe from './messages/integrations/de.ts';
import integrationsEn, { type IntegrationMessages } from './messages/integrations/en.ts';
import integrationsEs from './messages/integrations/es.ts';
import integrationsFr from './messages/integrations/fr.ts';
import integrationsNl from './messages/integrations/nl.ts';
import linksDe from './messages/links/de.ts';
import linksEn, { type LinkMessages } from './messages/links/en.ts';
import linksEs from './messages/links/es.ts';
import linksFr from './messages/links/fr.ts';
import linksNl from './messages/links/nl.ts';
import peopleDe from './messages/people/de.ts';
import peopleEn, { type PeopleMessages } from './messages/people/en.ts';
import peopleEs from './messages/people/es.ts';
import peopleFr from './messages/people/fr.ts';
import peopleNl from './messages/people/nl.ts';

export { fill };
export type { ExtensionMessages, IntegrationMessages, LinkMessages, PeopleMessages };

const CATALOGS: Record<UiLanguage, ExtensionMessages> = { en, de, fr, es, nl };
const PEOPLE: Record<UiLanguage, PeopleMessages> = {
  en: peopleEn,
  de: peopleDe,
  fr: peopleFr,
  es: peopleEs,
  nl: peopleNl,
};
const INTEGRATIONS: Record<UiLanguage, IntegrationMessages> = {
  en: integrationsEn,
  de: integrationsDe,
  fr: integrationsFr,
  es: integrationsEs,
  nl: integrationsNl,
};
const LINKS: Record<UiLanguage, LinkMessages> = { en: linksEn, de: linksDe, fr: linksFr, es: linksEs, nl: linksNl };
/** Each language in its own words, for the language setting. */
export const LANGUAGE_NAMES: Record<UiLanguage, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  nl: 'Nederlands',
};
const CHANGED = 'kassa-language-changed';

let choice: Promise<LanguageChoice> | undefined;

/** The language setting (`auto` until the user picks one), asked of the service worker once per page. */
export function languageChoice(): Promise<LanguageChoice> {
  choice ??= ask({ kind: 'language.get' }).catch(() => 'auto' as const);
  return choice;
}

/** Saves the language setting; every view of this page speaks it at once. */
export async function chooseLanguage(language: LanguageChoice): Promise<void> {
  choice = ask({ kind: 'language.set', language });
  await choice;
  window.dispatchEvent(new Event(CHANGED));
}

/** The language to speak: a page's own (an approval window), else the setting, else the browser's. */
export function resolveLanguage(setting: LanguageChoice, pageLang?: string): UiLanguage {
  const page = pageLang ? languageOf(pageLang) : undefined;
  if (page && (page !== 'en' || /^en\b/i.test(pageLang!))) return page;
  return setting === 'auto' ? languageOf(navigator.language || 'en') : setting;
}

/**
 * The words of a view of the extension: the setting's language (English until it is read), and the
 * approval window's asking page's language once `pageLang` is given. Views re-render when it changes.
 */
export class UiLocale implements ReactiveController {
  language: UiLanguage = 'en';
  private setting: LanguageChoice = 'auto';
  private pageLang?: string;

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  get m(): ExtensionMessages {
    return CATALOGS[this.language];
  }

  /** The words of the views about people (roles, approval requests, the team, the audit) in the same language. */
  get people(): PeopleMessages {
    return PEOPLE[this.language];
  }

  /** The words of the views of the merchant's integration (event destinations, merchant keys) in the same language. */
  get integrations(): IntegrationMessages {
    return INTEGRATIONS[this.language];
  }

  /** The words of the Links view (payment links) in the same language. */
  get links(): LinkMessages {
    return LINKS[this.language];
  }

  /** The wallet panel's words (the transfer preview, the transfer states) in the same language. */
  get bridge(): BridgeMessages {
    return bridgeMessages[this.language];
  }

  hostConnected(): void {
    window.addEventListener(CHANGED, this.reload);
    this.reload();
  }

  hostDisconnected(): void {
    window.removeEventListener(CHANGED, this.reload);
  }

  /** The page that asked (an approval window's): its language wins where Kassa speaks it. */
  usePageLanguage(lang: string | undefined): void {
    this.pageLang = lang;
    this.apply();
  }

  private readonly reload = (): void => {
    void languageChoice().then((setting) => {
      this.setting = setting;
      this.apply();
    });
  };

  private apply(): void {
    this.language = resolveLanguage(this.setting, this.pageLang);
    document.documentElement.lang = this.language;
    this.host.requestUpdate();
  }
}
