import { css } from 'lit';

/** The checkout's own styles: the amount to pay, the sandbox badge beside it, and the reference. */
export const summaryStyles = css`
  .summary {
    display: flex;
    align-items: center;
    justify-content: space-between;
    gap: 0.5em;
    flex-wrap: wrap;
  }
  .amount {
    font-size: 1.75em;
    font-weight: 650;
    font-variant-numeric: tabular-nums;
  }
  .reference {
    margin: 0;
    color: var(--_muted);
    font-size: 0.875em;
  }
`;
