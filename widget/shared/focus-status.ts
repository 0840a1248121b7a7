import { css, type LitElement } from 'lit';
import { addStyles } from './add-styles.ts';

// Only the chunks that follow a return from the bank (the checkout's status, the on-ramp) take this
// module, so kassa.js carries none of it.

/** A line of text is no control to operate: focused from script, it shows no ring (after a mouse's click at the bank, one surprised). */
const focusedStatusStyles = css`
  .status:focus {
    outline: none;
  }
`;

/**
 * Back from the bank, nothing has focus: once the element is rendered, keyboard focus goes to its
 * status line, so the keyboard starts at the payment's or the purchase's status rather than at the
 * page's top. Focusable from script only (`tabindex=-1`). Focus the customer has put somewhere in the
 * meantime stays there.
 */
export async function focusStatus(host: Pick<LitElement, 'updateComplete' | 'renderRoot'>): Promise<void> {
  await host.updateComplete;
  if (document.activeElement !== document.body) return;
  addStyles(host, focusedStatusStyles);
  const status = host.renderRoot.querySelector<HTMLElement>('[part~="status"]');
  status?.setAttribute('tabindex', '-1');
  status?.focus();
}
