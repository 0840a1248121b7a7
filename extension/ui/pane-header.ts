import { html, type TemplateResult } from 'lit';

/** A detail pane's first line: its title and a Close button, which fires `kassa-close` from `host`. */
export function paneHeader(host: HTMLElement, title: unknown, close: string): TemplateResult {
  return html`<div class="row">
    <h2>${title}</h2>
    <button
      class="secondary small"
      @click=${() => host.dispatchEvent(new CustomEvent('kassa-close', { bubbles: true, composed: true }))}
    >
      ${close}
    </button>
  </div>`;
}
