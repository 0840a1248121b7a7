import { css, html, type TemplateResult } from 'lit';
import { BIDI_CONTROLS, codePointName, splitBidiControls } from '../../lib/bidi.ts';

/**
 * A value from outside (a customer's name, a payment's reference, an upstream's status word) as the
 * operator views show it: in a bidirectional isolate of its own (`<bdi>`), so that nothing in it can
 * reorder what the view prints after it (a status, an amount), with any bidi control character it
 * carries written as a visible code (`U+202E`) instead of acting, and wrapped anywhere when it is too
 * long for the 360 px side panel.
 */
export function outsideText(value: string | null | undefined): TemplateResult {
  const text = value ?? '';
  if (!BIDI_CONTROLS.test(text)) return html`<bdi class="outside">${text}</bdi>`;
  return html`<bdi class="outside"
    >${splitBidiControls(text).map((piece) =>
      BIDI_CONTROLS.test(piece)
        ? html`<span class="control" title="${codePointName(piece)}">${codePointName(piece)}</span>`
        : piece,
    )}</bdi
  >`;
}

/** The styles of `outsideText`, in every page's styles (styles.ts). */
export const outsideTextStyles = css`
  bdi.outside {
    unicode-bidi: isolate;
    overflow-wrap: anywhere;
  }
  bdi.outside .control {
    font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
    font-size: 0.75em;
    padding: 0 0.15em;
    border: 1px dashed var(--_danger);
    border-radius: 0.2em;
    color: var(--_danger);
  }
`;
