import { css, html, LitElement, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { pageStyles } from './styles.ts';
import { UiLocale } from './ui-locale.ts';

export interface FilterChangeDetail {
  /** The value chosen; '' for all. */
  value: string;
}

declare global {
  interface HTMLElementTagNameMap {
    'kassa-filter-bar': KassaFilterBar;
  }
  interface HTMLElementEventMap {
    'kassa-filter-change': CustomEvent<FilterChangeDetail>;
    'kassa-refresh': CustomEvent<undefined>;
  }
}

/**
 * The bar above an operator list: a choice that filters it ("All" first) and a Refresh button. It
 * holds no list: the view listens and reads its list again.
 *
 * @fires kassa-filter-change - Another value was chosen (`FilterChangeDetail`; '' for all).
 * @fires kassa-refresh - The Refresh button was pressed.
 *
 * @csspart select - The filter's choice.
 * @csspart refresh - The Refresh button.
 */
@customElement('kassa-filter-bar')
export class KassaFilterBar extends LitElement {
  static override styles = [
    ...pageStyles,
    css`
      :host {
        display: block;
      }
    `,
  ];

  /** What the list is filtered by, as the choice's label shows it ("Status", in the user's language, by default). */
  @property() label = '';
  /** The choice's accessible name ("Filter by status", in the user's language, by default). */
  @property({ attribute: 'filter-label' }) filterLabel = '';
  private readonly locale = new UiLocale(this);
  /** The values to choose from, besides "All". */
  @property({ attribute: false }) choices: readonly string[] = [];
  /** Each value in words, where it has any (a status as the person reads it); else the value itself. */
  @property({ attribute: false }) labels: Readonly<Record<string, string>> = {};
  /** The value chosen; '' for all. */
  @property() value = '';
  /** Leaves the Refresh button out (for a second bar above the same list). */
  @property({ type: Boolean, attribute: 'no-refresh' }) noRefresh = false;

  private emit(type: 'kassa-filter-change' | 'kassa-refresh', detail?: FilterChangeDetail): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  private readonly onChange = (event: Event): void => {
    this.value = (event.target as HTMLSelectElement).value;
    this.emit('kassa-filter-change', { value: this.value });
  };

  override render() {
    const { m } = this.locale;
    return html`<div class="row">
      <label
        >${this.label || m.status}
        <select part="select" aria-label=${this.filterLabel || m.filterBy} @change=${this.onChange}>
          <option value="" ?selected=${!this.value}>${m.all}</option>
          ${this.choices.map((choice) => html`<option value=${choice} ?selected=${choice === this.value}>${this.labels[choice] ?? choice}</option>`)}
        </select>
      </label>
      ${
        this.noRefresh
          ? nothing
          : html`<button part="refresh" class="secondary small" @click=${() => this.emit('kassa-refresh')}>
              ${m.refresh}
            </button>`
      }
    </div>`;
  }
}
