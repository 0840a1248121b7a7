import { html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { NETWORKS, UI_LANGUAGES, type LanguageChoice, type Network } from '../channels.ts';
import type { SettingsView } from '../messages.ts';
import './account-panel.ts';
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
 * The language, the proxy URL and its network, and the operator's own account on that proxy (signing
 * in by device, who is signed in and until when, signing out: account-panel.ts). Saving another proxy
 * URL signs the device out of the old one.
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
    const { proxyUrl, network } = formValues(formElement, ['proxyUrl', 'network']);
    this.busy = true;
    try {
      this.settings = await ask({ kind: 'settings.save', proxyUrl, network: network as Network });
      this.message = { tone: 'ok', text: this.locale.m.saved };
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
      <kassa-account-panel></kassa-account-panel>
    `;
  }
}
