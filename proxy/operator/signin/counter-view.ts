/**
 * The counter (`/operator/counter`): a page for a till's tablet or phone, rendered in the operators'
 * page's language. The amount field first; then, one in place of the other, the customer's QR code
 * with the payment's state, large enough to read from a distance. The script (operator-page/counter.ts)
 * asks for the payment and follows it.
 */
import { html } from 'hono/html';
import type { CounterState } from '../../../schemas/counter.ts';
import type { Html } from './page-layout.ts';
import type { ViewContext } from './page-views.ts';
import { fill } from './words/index.ts';

/** The bounds and currency of what a till asks for (KASSA_COUNTER). */
export interface CounterTerms {
  min: string;
  max: string;
  currencyCode: string;
}

/** An amount in the page's language and the counter's currency (display only: money stays a decimal string). */
export const shownAmount = (language: string, currencyCode: string, amount: string): string =>
  new Intl.NumberFormat(language, { style: 'currency', currency: currencyCode }).format(Number(amount));

/** The QR code's size in CSS pixels: fixed, so that nothing moves as it loads. */
const QR_SIZE = 320;

/**
 * The counter itself, for a signed-in operator whose role may take counter payments. Who is signed in
 * comes above what changes, and the QR code's stage and the state's line keep their size, so that
 * nothing moves as the payment's state does.
 */
export function counterView(view: ViewContext, terms: CounterTerms, operatorName: string): Html {
  const { words, language } = view;
  const bounds = {
    min: shownAmount(language, terms.currencyCode, terms.min),
    max: shownAmount(language, terms.currencyCode, terms.max),
  };
  const initial: CounterState = 'waiting';
  return html`<section
    class="surface counter"
    aria-labelledby="counter-heading"
    data-counter
    data-currency="${terms.currencyCode}"
  >
    <h1 id="counter-heading">${words.counterHeading}</h1>
    <p class="hint counter-who">
      ${fill(words.signedInAs, { name: operatorName })} ·
      <button type="button" class="small secondary" data-action="signout">${words.signOut}</button>
    </p>
    <form class="counter-form" data-form="counter" novalidate>
      <p class="muted">${words.counterIntro}</p>
      <div class="field">
        <label for="counter-amount">${fill(words.counterAmount, { currency: terms.currencyCode })}</label>
        <input
          id="counter-amount"
          class="counter-amount-field"
          name="amount"
          inputmode="decimal"
          autocomplete="off"
          required
          aria-describedby="counter-amount-hint"
        />
        <p id="counter-amount-hint" class="hint">${fill(words.counterBounds, bounds)}</p>
      </div>
      <div class="field">
        <label for="counter-note">${words.counterNote}</label>
        <input id="counter-note" name="note" maxlength="80" autocomplete="off" aria-describedby="counter-note-hint" />
        <p id="counter-note-hint" class="hint">${words.counterNoteHint}</p>
      </div>
      <div class="actions"><button type="submit" class="large">${words.counterShow}</button></div>
      <p
        class="status"
        role="status"
        data-status="counter"
        data-out-of-bounds="${fill(words.counterOutOfBounds, bounds)}"
      ></p>
    </form>
    <div class="counter-payment" data-counter-payment data-state="${initial}" hidden>
      <p class="counter-amount" data-shown="amount"></p>
      <p class="counter-note" data-shown="note"></p>
      <div class="counter-stage">
        <img data-shown="qr" alt="" width="${QR_SIZE}" height="${QR_SIZE}" />
        <p class="counter-mark" data-shown="mark" aria-hidden="true"></p>
      </div>
      <p class="counter-state" role="status" aria-live="polite" data-shown="state"></p>
      <p class="hint" data-shown="reference"></p>
      <div class="actions counter-actions">
        <button type="button" class="large" data-action="counter-next" hidden>${words.counterNext}</button>
        <button type="button" class="large" data-action="counter-retry" hidden>${words.counterRetry}</button>
        <button type="button" class="secondary" data-action="counter-cancel">${words.counterCancel}</button>
      </div>
      <p class="status" role="alert" data-status="counter-payment"></p>
    </div>
  </section>`;
}

/** Why the counter is not there for this person: counter mode off, or their role without counter:take. */
export function counterUnavailableView(view: ViewContext, why: 'off' | 'role'): Html {
  const { words } = view;
  return html`<section class="surface" aria-labelledby="counter-heading">
    <h1 id="counter-heading">${words.counterHeading}</h1>
    <p>${why === 'off' ? words.counterOff : words.counterNotAllowed}</p>
    <p><a href="/operator">${words.main}</a></p>
  </section>`;
}
