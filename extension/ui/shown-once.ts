import { html, LitElement, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { messageOf } from './client.ts';
import { pageStyles } from './styles.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-shown-once': KassaShownOnce;
  }
}

/**
 * What the proxy shows only once (an invitation link, a destination's signing secret, a merchant
 * key): a region named `label` with what it is, the value in a read-only field to select, and a Copy
 * button that says whether the copy worked. The value lives in this page only, until it closes.
 */
@customElement('kassa-shown-once')
export class KassaShownOnce extends LitElement {
  static override styles = pageStyles;

  /** The region's and the field's accessible name ("Signing secret of https://…"). */
  @property() label = '';
  /** The words above the value: what it is, and that it is not shown again. */
  @property() text = '';
  /** The value shown once. */
  @property() value = '';
  /** The Copy button's words, and what it says once copied. */
  @property({ attribute: 'copy-label' }) copyLabel = 'Copy';
  @property({ attribute: 'copied-label' }) copiedLabel = 'Copied.';
  @state() private notice?: string;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('value')) this.notice = undefined;
  }

  private async copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(this.value);
      this.notice = this.copiedLabel;
    } catch (error) {
      this.notice = messageOf(error);
    }
  }

  override render() {
    return html`<section class="card stack" aria-label=${this.label}>
      <p>${this.text}</p>
      <input class="mono" readonly aria-label=${this.label} .value=${this.value} />
      <button class="small" @click=${() => void this.copy()}>${this.copyLabel}</button>
      ${this.notice ? html`<p role="status" class="ok">${this.notice}</p>` : nothing}
    </section>`;
  }
}
