import { html } from 'lit';

/**
 * A word made of parts ("payment.completed", "mint_failed") that may wrap after each separator in a
 * narrow column ("payment.<wbr>completed"), where it would otherwise widen the 360 px side panel.
 */
export const breakable = (word: string, separator = '.') =>
  word.split(separator).map((part, index) => (index ? html`${separator}<wbr />${part}` : part));
