import { css } from 'lit';

/** The wallet panel's own styles, on top of the shared tokens and controls (widget/shared/theme.ts). */
export const bridgeStyles = css`
  /* The height of the connected panel's form, from the first render: loading, looking for wallets and
     connecting take no more, so the shop's page never moves under it (docs/bridge.md). */
  :host {
    min-block-size: 27.25em;
  }
  .bar {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.25em 0.5em;
    margin-bottom: 0.75em;
    font-size: 0.875em;
  }
  .bar .who {
    display: inline-flex;
    align-items: center;
    gap: 0.4em;
    font-weight: 600;
  }
  .bar .where {
    color: var(--_muted);
  }
  .bar .link {
    margin-inline-start: auto;
  }
  .icon {
    inline-size: 1.5em;
    block-size: 1.5em;
    border-radius: 0.3em;
    flex: none;
    object-fit: contain;
  }
  .initial {
    display: inline-grid;
    place-items: center;
    background: var(--_border);
    color: var(--_text);
    font-weight: 700;
    font-size: 0.875em;
  }
  .wallets {
    list-style: none;
    margin: 0;
    padding: 0;
    display: grid;
    gap: 0.5em;
  }
  button.secondary,
  button.wallet {
    background: transparent;
    color: var(--_text);
    border-color: var(--_muted);
    font-weight: 600;
  }
  button.wallet {
    justify-content: flex-start;
    gap: 0.75em;
  }
  button.wallet .spinner {
    margin-inline-start: auto;
  }
  button.wallet .rdns {
    font-weight: 400;
    font-size: 0.8em;
    color: var(--_muted);
    overflow-wrap: anywhere;
  }
  button.link {
    inline-size: auto;
    min-height: 0;
    padding: 0.1em 0.2em;
    background: none;
    border: none;
    color: var(--_primary);
    font-weight: 600;
    text-decoration: underline;
  }
  button.small {
    inline-size: auto;
    min-height: 2.5rem;
    padding: 0.3em 0.8em;
  }
  .fields {
    display: grid;
    grid-template-columns: minmax(0, 1fr) auto minmax(0, 1fr);
    align-items: end;
    gap: 0.75em 0.5em;
  }
  .field {
    display: grid;
    gap: 0.25em;
  }
  .wide {
    grid-column: 1 / -1;
  }
  label {
    font-size: 0.875em;
    font-weight: 600;
  }
  select,
  input {
    box-sizing: border-box;
    inline-size: 100%;
    min-height: 2.5rem;
    font: inherit;
    color: var(--_text);
    background: var(--_background);
    border: 1px solid var(--_muted);
    border-radius: calc(var(--_radius) * 0.5);
    padding: 0.4em 0.6em;
  }
  select:focus-visible,
  input:focus-visible,
  button.link:focus-visible {
    outline: 3px solid var(--_focus);
    outline-offset: 1px;
  }
  input[aria-invalid='true'] {
    border-color: var(--_danger);
  }
  .amount-row {
    display: flex;
    gap: 0.5em;
    align-items: center;
  }
  .amount-row input {
    flex: 1;
    min-inline-size: 0;
    font-variant-numeric: tabular-nums;
  }
  .hint {
    margin: 0;
    font-size: 0.875em;
    color: var(--_muted);
  }
  .actions {
    display: grid;
    gap: 0.5em;
  }
  .progress {
    display: grid;
    gap: 0.5em;
  }
  .steps {
    list-style: none;
    margin: 0;
    padding: 0;
    display: grid;
    gap: 0.4em;
  }
  .steps li {
    display: flex;
    align-items: center;
    gap: 0.6em;
  }
  .mark {
    inline-size: 1em;
    block-size: 1em;
    flex: none;
    box-sizing: border-box;
    border-radius: 50%;
    border: 2px solid var(--_muted);
  }
  .done .mark {
    background: var(--_success);
    border-color: var(--_success);
  }
  .failed .mark {
    background: var(--_danger);
    border-color: var(--_danger);
  }
  .current .mark {
    border-color: var(--_primary);
    border-inline-end-color: transparent;
    animation: spin 0.8s linear infinite;
  }
  .pending {
    color: var(--_muted);
  }
  .visually-hidden {
    position: absolute;
    inline-size: 1px;
    block-size: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
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
  .receipt a {
    color: var(--_primary);
    margin-inline-start: 0.4em;
    font-size: 0.875em;
  }
  @media (prefers-reduced-motion: reduce) {
    .current .mark {
      animation-duration: 2.4s;
    }
  }
`;

/**
 * The transfer preview (views.ts `previewView`): the panel shows it before the wallet signs, and the
 * extension's approval window shows it, in the same words, before Kassa signs.
 */
export const previewStyles = css`
  .mono {
    font-family: ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace;
    font-size: 0.875em;
    overflow-wrap: anywhere;
  }
  .mono.method {
    overflow-wrap: break-word;
  }
  .preview {
    display: grid;
    gap: 0.5em;
  }
  .title {
    margin: 0;
    font-weight: 650;
  }
  dl {
    margin: 0;
    display: grid;
    gap: 0.4em;
  }
  dl > div {
    display: grid;
    grid-template-columns: minmax(7em, 35%) minmax(0, 1fr);
    gap: 0.75em;
    padding-block: 0.35em;
    border-bottom: 1px solid var(--_border);
  }
  dt {
    color: var(--_muted);
    font-size: 0.875em;
  }
  dd {
    margin: 0;
    overflow-wrap: anywhere;
  }
  .note {
    margin: 0;
    font-size: 0.875em;
  }
`;
