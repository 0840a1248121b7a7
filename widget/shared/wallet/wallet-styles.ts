import { css } from 'lit';

/** The connected wallet's bar, the list of wallets to connect, and the light buttons beside them (secondary, link). */
export const walletStyles = css`
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
`;
