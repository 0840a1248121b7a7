import { html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { NETWORKS, UI_LANGUAGES, type LanguageChoice, type Network } from '../channels.ts';
import type { SettingsView } from '../messages.ts';
import { ask, messageOf } from './client.ts';
import { formValues } from './form-values.ts';
import { pageStyles } from './styles.ts';
import { chooseLanguage, fill, LANGUAGE_NAMES, languageChoice, UiLocale } from './ui-locale.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-settings-view': KassaSettingsView;
  }
}

/**
 * The proxy URL and the operator token. The token goes to the service worker and never comes back:
 * the form shows only whether one is saved and its last four characters. It is optional (the wallet
 * needs only the URL) and kept for the URL it was entered for: saving another URL drops it.
 */
@customElement('kassa-settings-view')
export class KassaSettingsView extends LitElement {
  static override styles = pageStyles;

  @state() private settings?: SettingsView;
  @state() private message?: { tone: 'ok' | 'error'; text: string };
  @state() private busy = false;
  @state() private language: LanguageChoice = 'auto';
  private readonly locale = new UiLocale(this);

  override connectedCallback(): void {
    super.connectedCallback();
    ask({ kind: 'settings.get' }).then(
      (settings) => (this.settings = settings),
      (error) => (this.message = { tone: 'error', text: messageOf(error) }),
    );
    void languageChoice().then((language) => (this.language = language));
  }

  private readonly save = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    // Read before any await: once dispatch ends, a shadow-DOM event's target is null.
    const formElement = event.target as HTMLFormElement;
    const { proxyUrl, operatorToken, network } = formValues(formElement, ['proxyUrl', 'operatorToken', 'network']);
    this.busy = true;
    const before = this.settings;
    try {
      this.settings = await ask({
        kind: 'settings.save',
        proxyUrl,
        ...(operatorToken ? { operatorToken } : {}),
        network: network as Network,
      });
      formElement.querySelector<HTMLInputElement>('[name=operatorToken]')!.value = '';
      const { m } = this.locale;
      const dropped = before?.tokenSet && !this.settings.tokenSet && before.proxyUrl;
      this.message = { tone: 'ok', text: dropped ? fill(m.tokenDropped, { previous: dropped }) : m.saved };
    } catch (error) {
      this.message = { tone: 'error', text: messageOf(error) };
    } finally {
      this.busy = false;
    }
  };

  private async test(): Promise<void> {
    this.busy = true;
    this.message = undefined;
    try {
      const found = await ask({ kind: 'settings.test' });
      const { m } = this.locale;
      if (found.kind === 'public') {
        this.message = { tone: 'ok', text: fill(m.connectedPublic, { count: String(found.chains) }) };
        return;
      }
      const { health } = found;
      this.message = {
        tone: health.status === 'ok' ? 'ok' : 'error',
        text: fill(m.connectedTo, {
          version: health.version,
          status: health.status,
          payments: health.payments.state,
          orders: health.orders.state,
          transfers: health.reforge.state,
          // A disabled endpoint (410 Gone) is why a proxy whose services are all ok reads as degraded.
          events: !health.events
            ? 'off'
            : health.events.endpoints.every((endpoint) => endpoint.enabled)
              ? 'ok'
              : 'disabled',
        }),
      };
    } catch (error) {
      this.message = { tone: 'error', text: messageOf(error) };
    } finally {
      this.busy = false;
    }
  }

  override render() {
    const settings = this.settings;
    const { m } = this.locale;
    return html`
      <h2>${m.settingsTitle}</h2>
      <label
        >${m.language}
        <select
          id="language"
          @change=${(event: Event) => {
            this.language = (event.target as HTMLSelectElement).value as LanguageChoice;
            void chooseLanguage(this.language);
          }}
        >
          <option value="auto" ?selected=${this.language === 'auto'}>${m.languageAuto}</option>
          ${UI_LANGUAGES.map((language) => html`<option value=${language} lang=${language} ?selected=${this.language === language}>${LANGUAGE_NAMES[language]}</option>`)}
        </select>
      </label>
      <form @submit=${this.save}>
        <label
          >${m.proxyUrl}
          <input
            name="proxyUrl"
            type="url"
            required
            placeholder="https://kassa.example.com"
            .value=${settings?.proxyUrl ?? ''}
        /></label>
        <label
          >${m.operatorToken}
          <input
            name="operatorToken"
            type="password"
            autocomplete="off"
            placeholder=${settings?.tokenSet ? fill(m.tokenSaved, { hint: settings.tokenHint ?? '' }) : m.tokenPlaceholder}
        /></label>
        <label
          >${m.network}
          <select name="network">
            ${NETWORKS.map((network) => html`<option value=${network} ?selected=${(settings?.network ?? 'test') === network}>${network === 'test' ? m.testChains : m.mainChains}</option>`)}
          </select>
        </label>
        <div class="row">
          <button type="submit" aria-disabled=${this.busy ? 'true' : 'false'}>${m.save}</button>
          <button type="button" class="secondary" @click=${() => void this.test()} ?disabled=${!settings?.proxyUrl}>
            ${m.testConnection}
          </button>
        </div>
      </form>
      <p role="status" class=${this.message?.tone ?? ''}>${this.message?.text ?? nothing}</p>
      <p class="muted">${m.tokenBinding}</p>
      <p class="muted">${m.tokenNote}</p>
    `;
  }
}
