import { css } from 'lit';
import { controls, tokens } from '../../widget/ui.ts';
import { outsideTextStyles } from './outside-text.ts';

/**
 * The extension pages' layout on top of the widget's tokens and controls (widget/ui.ts):
 * the same colours, font, radius and button, light or dark with the system.
 */
const pageLayout = css`
  :host {
    font-size: 0.875rem;
  }
  /* Read by screen readers, not shown (a header cell over a column of buttons). */
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
  h1,
  h2 {
    font-size: 1rem;
    margin: 0 0 0.5rem;
  }
  h3 {
    font-size: 0.9rem;
    margin: 0.75rem 0 0.25rem;
  }
  p {
    margin: 0.25rem 0;
  }
  form,
  .stack {
    display: grid;
    gap: 0.5rem;
  }
  label {
    display: grid;
    gap: 0.15rem;
    font-weight: 600;
    font-size: 0.8rem;
  }
  label.choice {
    display: flex;
    align-items: center;
    gap: 0.35rem;
    font-weight: 400;
    font-size: 0.875rem;
  }
  input,
  select,
  textarea {
    font: inherit;
    font-weight: 400;
    font-size: 0.875rem;
    padding: 0.4em 0.5em;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) * 0.5);
    background: var(--_background);
    color: var(--_text);
    min-width: 0;
  }
  input:focus-visible,
  select:focus-visible,
  textarea:focus-visible {
    outline: 2px solid var(--_focus);
    outline-offset: 1px;
  }
  button {
    min-height: 2.25rem;
    padding: 0.35em 0.9em;
  }
  button.secondary {
    background: transparent;
    color: var(--_primary);
    border-color: var(--_border);
  }
  button.danger {
    background: var(--_danger);
    color: var(--_on-primary);
  }
  button.small {
    width: auto;
    min-height: 1.9rem;
    font-size: 0.8rem;
    padding: 0.2em 0.6em;
  }
  .row {
    display: flex;
    gap: 0.5rem;
    align-items: end;
    flex-wrap: wrap;
  }
  /* Each item keeps its content's width (a chain's full name) and the row wraps when they do not fit. */
  .row > * {
    flex: 1 1 auto;
    min-width: 0;
  }
  .row select {
    max-width: 100%;
  }
  .muted {
    color: var(--_muted);
  }
  .mono {
    font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
    font-size: 0.8rem;
    word-break: break-all;
  }
  .error {
    color: var(--_danger);
    font-weight: 600;
  }
  .ok {
    color: var(--_success);
    font-weight: 600;
  }
  table {
    width: 100%;
    border-collapse: collapse;
    font-size: 0.8rem;
  }
  th,
  td {
    text-align: start;
    padding: 0.3rem 0.25rem;
    border-bottom: 1px solid var(--_border);
    vertical-align: top;
  }
  th {
    color: var(--_muted);
    font-weight: 600;
  }
  .card {
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) * 0.67);
    padding: 0.75rem;
    margin: 0.5rem 0;
  }
  /* Label and value pairs (the detail panes). Labels take at most 40 % and wrap: a long one
     (French's) would leave the values no room at 360 px. */
  dl {
    display: grid;
    grid-template-columns: fit-content(40%) minmax(0, 1fr);
    gap: 0.125rem 0.75rem;
    margin: 0;
  }
  dt {
    hyphens: auto;
    overflow-wrap: break-word;
  }
  dd {
    margin: 0;
    overflow-wrap: anywhere;
  }
  details > summary {
    cursor: pointer;
    font-weight: 600;
    margin: 0.5rem 0;
  }
`;

/** Every extension page's styles: the widget's tokens and controls, then the page layout. */
export const pageStyles = [tokens, controls, pageLayout, outsideTextStyles];

/** A list's rows open with a button in a cell, which reads as a link and wraps like the cell's text. */
export const rowLinks = css`
  td button {
    inline-size: 100%;
    min-height: 0;
    padding: 0;
    border: 0;
    background: none;
    color: var(--_primary);
    text-align: start;
    text-decoration: underline;
    overflow-wrap: anywhere;
    font: inherit;
  }
`;

/**
 * A list view that fits a 360 px side panel without sideways scrolling: fixed columns (each view sets
 * their widths; the first takes what is left), long ids wrapped, the open row marked.
 */
export const fittedTable = css`
  :host {
    display: block;
    max-inline-size: 100%;
  }
  table {
    table-layout: fixed;
  }
  td {
    overflow-wrap: anywhere;
  }
  tr[aria-selected='true'] {
    background: color-mix(in srgb, var(--_primary) 10%, transparent);
  }
`;

/** A group of checkboxes under its legend (a destination's event types, a key's scopes). */
export const choiceGroup = css`
  fieldset {
    display: grid;
    gap: 0.25rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) * 0.5);
    margin: 0;
  }
  legend {
    font-weight: 600;
    font-size: 0.8rem;
  }
`;
