import { css } from 'lit';

/** The on-ramp's own styles, on top of the shared tokens, controls, fields, wallet and steps styles. */
export const onrampStyles = css`
  /* The height of the ready form (wallet, coin and network, amount, cost, "Buy"), from the first render:
     loading and looking for wallets take no more, so the shop's page never moves under it (docs/onramp.md). */
  :host {
    min-block-size: 25.75em;
  }
  .fields {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(10em, 1fr));
    gap: 0.75em;
  }
  .cost {
    display: flex;
    flex-wrap: wrap;
    align-items: baseline;
    gap: 0.25em 0.5em;
    margin-block: 0.75em 0;
    padding-block-start: 0.75em;
    border-top: 1px solid var(--_border);
  }
  .cost strong {
    font-size: 1.25em;
    font-variant-numeric: tabular-nums;
  }
  .cost .hint {
    flex-basis: 100%;
  }
  .purchase {
    display: grid;
    gap: 0.75em;
    margin-block-end: 0.75em;
  }
  .purchase a {
    color: var(--_primary);
    margin-inline-start: 0.4em;
    font-size: 0.875em;
  }
  kassa-checkout {
    margin-block-end: 0.75em;
  }
`;
