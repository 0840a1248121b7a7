import { html, nothing, type TemplateResult } from 'lit';

/**
 * A button of an element: its label, what it does, whether it is busy (then a click does nothing),
 * or `disabled` (then it says so, without a spinner), and its part: `button`, the main one (with a spinner
 * while busy), or `secondary`.
 */
export type Action = [label: string, run: () => void, busy?: boolean | 'disabled', part?: 'button' | 'secondary'];

/** How the status line reads: neutral (''), good news, or a problem. */
export type Tone = '' | 'success' | 'danger';

const spinner = html`<span class="spinner" aria-hidden="true"></span>`;

/** The surface alone, while the user's language loads (no flash of English). */
export const loadingView = () => html`<div part="container" class="surface" aria-busy="true"></div>`;

/** The live status line: one polite live region from the start, so every change is announced. */
export function statusView(text: string, tone: Tone, busy: boolean): TemplateResult {
  return html`<p part="status" class="status ${tone}" role="status" aria-live="polite">
    ${busy ? spinner : nothing}${text}
  </p>`;
}

/** An element's button; a busy one stays focusable (`aria-disabled`), so focus is not lost while it works. */
export function actionView([label, run, busy = false, part = 'button']: Action): TemplateResult {
  return html`<button
    part=${part}
    type="button"
    class=${part === 'secondary' ? 'secondary' : nothing}
    aria-disabled=${busy ? 'true' : 'false'}
    @click=${() => busy || run()}
  >
    ${busy === true && part === 'button' ? spinner : nothing}${label}
  </button>`;
}
