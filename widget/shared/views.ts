import { html, nothing, type ReactiveElement, type TemplateResult } from 'lit';

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

/**
 * Back from the bank, nothing has focus: once the element is rendered, keyboard focus goes to its
 * status line, so the keyboard starts at the payment's or the purchase's status rather than at the
 * page's top. Focusable from script only (`tabindex=-1`): a line of text is no control. Focus the
 * customer has put somewhere in the meantime stays there.
 */
export async function focusStatus(host: Pick<ReactiveElement, 'updateComplete' | 'renderRoot'>): Promise<void> {
  await host.updateComplete;
  if (document.activeElement !== document.body) return;
  const status = host.renderRoot.querySelector<HTMLElement>('[part~="status"]');
  status?.setAttribute('tabindex', '-1');
  status?.focus();
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
