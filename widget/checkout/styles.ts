import { css } from 'lit';

/**
 * The checkout's own styles: its resting size, the amount to pay, the sandbox badge beside it, and the
 * reference. The resting size is the height of the ready checkout (amount, reference, status line,
 * "Pay by bank", and on desktops "Pay with your phone"; the open amount field instead of the amount),
 * taken from the first render on, so that nothing on the shop's page moves as the checkout loads.
 * docs/checkout.md gives shops the same sizes for the time before kassa.js defines the element.
 */
export const summaryStyles = css`
  :host {
    min-block-size: 12em;
  }
  :host(:not([checkout], [amount])) {
    min-block-size: 15.75em;
  }
  @media (pointer: fine) and (hover: hover) {
    :host {
      min-block-size: 15.25em;
    }
    :host(:not([checkout], [amount])) {
      min-block-size: 19em;
    }
  }
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
