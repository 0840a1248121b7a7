import { css } from 'lit';

/** Labelled fields (selects and inputs), the hint under them, small buttons beside them, and the actions row. */
export const fieldStyles = css`
  button.small {
    inline-size: auto;
    min-height: 2.5rem;
    padding: 0.3em 0.8em;
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
`;
