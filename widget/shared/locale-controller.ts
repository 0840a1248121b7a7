import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { languageOf, resolveLocale, type Catalogs, type Language } from './i18n.ts';

export type LocaleHost = ReactiveControllerHost & HTMLElement & { locale?: string };

/**
 * Gives an element its locale and its messages in that language, following the element's `locale`
 * property, the page's `lang` attributes and the browser, and loading a language's catalog the first
 * time it is needed.
 */
export class LocaleController<M> implements ReactiveController {
  /** The BCP 47 locale to format amounts with (`de-CH`), which may be finer than the language. */
  locale = 'en';
  /** The messages in the current language. */
  messages: M;
  /** False while a catalog loads: the host holds its text back rather than flash English first. */
  ready = true;
  private language: Language = 'en';
  private readonly langObserver = new MutationObserver(() => this.host.requestUpdate());

  constructor(
    private readonly host: LocaleHost,
    private readonly catalogs: Catalogs<M>,
  ) {
    this.messages = catalogs.en;
    host.addController(this);
  }

  hostConnected(): void {
    // A single-page app that switches language sets <html lang>; follow it.
    this.langObserver.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
  }

  hostDisconnected(): void {
    this.langObserver.disconnect();
  }

  hostUpdate(): void {
    this.locale = resolveLocale(this.host, this.host.locale);
    const language = languageOf(this.locale);
    if (language === this.language) return;
    this.language = language;
    if (language === 'en') {
      this.messages = this.catalogs.en;
      this.ready = true;
      return;
    }
    this.ready = false;
    void this.catalogs[language]()
      .then(
        (catalog) => catalog.default,
        // A catalog that cannot load (offline, blocked) leaves the element in English, not blank.
        () => this.catalogs.en,
      )
      .then((messages) => {
        if (this.language !== language) return;
        this.messages = messages;
        this.ready = true;
        this.host.requestUpdate();
      });
  }
}
