import { css } from 'lit';
import { detailStyles } from '../shared/detail-styles.ts';

/** The wallet panel's own styles, on top of the shared tokens and controls (widget/shared/theme.ts). */
export const bridgeStyles = css`
  /* The height of the connected panel's form, from the first render: loading, looking for wallets and
     connecting take no more, so the shop's page never moves under it (docs/bridge.md). */
  :host {
    min-block-size: 27.25em;
  }
  .fields {
    display: grid;
    grid-template-columns: minmax(0, 1fr) auto minmax(0, 1fr);
    align-items: end;
    gap: 0.75em 0.5em;
  }
  .progress {
    display: grid;
    gap: 0.5em;
  }
  .history {
    display: grid;
    gap: 0.4em;
    margin-block-start: 1em;
  }
  .history ul {
    list-style: none;
    margin: 0;
    padding: 0;
    display: grid;
    gap: 0.25em;
  }
  button.entry {
    inline-size: 100%;
    display: grid;
    grid-template-columns: minmax(0, 1fr) auto;
    gap: 0.1em 0.75em;
    text-align: start;
    background: transparent;
    color: var(--_text);
    border-color: var(--_border);
    font-weight: 400;
    font-size: 0.875em;
  }
  .entry .what {
    overflow-wrap: anywhere;
  }
  .entry .when {
    grid-column: 1 / -1;
    color: var(--_muted);
  }
  .state {
    font-weight: 600;
  }
  .state.arrived,
  .state.refunded {
    color: var(--_success);
  }
  .state.failed {
    color: var(--_danger);
  }
  button.copy {
    font-size: 0.875em;
  }
  .copied {
    margin-inline-start: 0.4em;
    font-size: 0.875em;
    color: var(--_success);
  }
  /* Under the arrival's status line, before "New transfer". */
  .receipt {
    margin-block-end: 0.75em;
  }
  .receipt a {
    color: var(--_primary);
    margin-inline-start: 0.4em;
    font-size: 0.875em;
  }
`;

/**
 * The transfer preview (views.ts `previewView`): the panel shows it before the wallet signs, and the
 * extension's approval window shows it, in the same words, before Kassa signs.
 */
export const previewStyles = css`
  ${detailStyles}
  .preview {
    display: grid;
    gap: 0.5em;
  }
`;
