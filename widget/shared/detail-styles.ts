import { css } from 'lit';

/**
 * Facts as a label/value list (`<dl>`), addresses and hashes in a monospace face that wraps
 * anywhere, a title and a note: how a transfer's preview and a purchase's details read.
 */
export const detailStyles = css`
  .mono {
    font-family: ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace;
    font-size: 0.875em;
    overflow-wrap: anywhere;
  }
  .mono.method {
    overflow-wrap: break-word;
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
