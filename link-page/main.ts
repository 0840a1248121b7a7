/**
 * A payment link's page (`/l/<code>`, served by the proxy under a strict CSP): starts paying the link
 * (POST /api/links/{code}/checkout, with the amount typed for an open link) and shows
 * `<kassa-checkout>` for the checkout that makes, which kassa.js (loaded beside this script) pays as
 * on any shop's page. Back from the bank, the element shows the payment and its receipt. The
 * checkout is kept for this tab (sessionStorage), so a reload shows it again instead of holding
 * another of the link's uses. Nothing here writes HTML.
 */
import { formatMoney } from '../lib/format-money.ts';
import { typedAmount } from '../lib/money.ts';
import type { LinkPageData, LinkRefusalReason } from '../schemas/links.ts';

const data = JSON.parse(document.getElementById('kassa-link')!.textContent ?? '{}') as LinkPageData;
const status = document.getElementById('kassa-link-status')!;
const slot = document.getElementById('kassa-pay')!;
const form = document.querySelector<HTMLFormElement>('#kassa-amount');
const input = document.querySelector<HTMLInputElement>('#kassa-amount-input');
const KEPT = `kassa-link ${data.code}`;
/** An amount as the page's own lines show it. */
const money = (amount: string) => formatMoney(amount, data.currencyCode, data.language);

/** Says `text` in the page's status line (a live region), as news or as a problem. */
function say(text: string, problem = false): void {
  status.textContent = text;
  status.classList.toggle('danger', problem);
}

/** Session storage, which a browser may refuse: then nothing is kept. */
function keep(checkoutId: string | null): void {
  try {
    if (checkoutId === null) sessionStorage.removeItem(KEPT);
    else sessionStorage.setItem(KEPT, checkoutId);
  } catch {
    // not kept: a reload starts afresh
  }
}

function kept(): string | null {
  try {
    return sessionStorage.getItem(KEPT);
  } catch {
    return null;
  }
}

/** The checkout element for `checkoutId`, in place of the amount's field. */
function show(checkoutId: string): void {
  keep(checkoutId);
  const checkout = document.createElement('kassa-checkout');
  checkout.setAttribute('checkout', checkoutId);
  if (data.returnUrl !== null) checkout.setAttribute('return-url', data.returnUrl);
  if (form) form.hidden = true;
  say('');
  slot.replaceChildren(checkout);
}

/** The link takes no payment now: the page says why, as it would have had it known when it was made. */
function refused(reason: LinkRefusalReason): void {
  const [title, text] = data.words.refusals[reason];
  document.querySelector('main')!.dataset.state = reason;
  document.querySelector('h1')!.textContent = title;
  document.querySelector('.amount')?.remove();
  form?.remove();
  slot.remove();
  (document.getElementById('kassa-link-says') ?? status).textContent = text;
}

const isRefusal = (reason: string | undefined): reason is LinkRefusalReason =>
  reason !== undefined && Object.hasOwn(data.words.refusals, reason);

/** Starts paying the link: a checkout for this customer, or the reason there is none. */
async function start(amount?: string): Promise<void> {
  let answer: Response;
  try {
    answer = await fetch(`/api/links/${encodeURIComponent(data.code)}/checkout`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(amount === undefined ? {} : { amount }),
    });
  } catch {
    return say(data.words.failed, true);
  }
  const body = (await answer.json().catch(() => ({}))) as {
    checkoutId?: string;
    details?: { reason?: string; min?: string; max?: string };
  };
  const reason = body.details?.reason;
  if (answer.status === 201 && body.checkoutId) return show(body.checkoutId);
  if (isRefusal(reason)) return refused(reason);
  // An open link's amount refused (out of its bounds, or not an amount): the bounds, by the field, as
  // the proxy gives them (lower than the page's once others' payments took most of a capped total).
  if (input && data.openAmount && answer.status === 400) {
    const { min, max } = reason === 'amount-out-of-bounds' ? { ...data.openAmount, ...body.details } : data.openAmount;
    input.setAttribute('aria-invalid', 'true');
    input.focus();
    return say(data.words.outOfBounds.replace('{min}', money(min)).replace('{max}', money(max)), true);
  }
  say(data.words.failed, true);
}

/**
 * This tab's checkout of the link, shown again while it can be paid or shows its payment: also on a
 * page saying the link takes no more, when the use it took is this customer's own (its last use, paid
 * or about to be).
 */
async function resumed(): Promise<boolean> {
  const checkoutId = kept();
  if (checkoutId === null) return false;
  try {
    const answer = await fetch(`/api/checkouts/${encodeURIComponent(checkoutId)}`);
    const state = answer.ok ? ((await answer.json()) as { state?: string }).state : undefined;
    if (state === 'open' || state === 'paid') {
      if (state === 'paid' || !data.payable) ownUse(state === 'paid');
      show(checkoutId);
      return true;
    }
  } catch {
    // unreachable now: a new checkout is asked for, which says so if the proxy still is
  }
  keep(null);
  return false;
}

/**
 * This customer's own checkout, on a page that said the link takes no more (counting their use), or
 * that offered to pay: their payment, or its receipt, under the link's title, as back from the bank.
 */
function ownUse(paid: boolean): void {
  document.querySelector('main')!.dataset.state = paid ? 'receipt' : 'active';
  document.querySelector('h1')!.textContent = data.title;
  if (paid) document.querySelector('.amount')?.remove();
  const says = document.getElementById('kassa-link-says');
  if (says) says.textContent = paid ? data.words.keep : '';
}

if (data.receiptOf !== null) show(data.receiptOf);
else if (!(await resumed()) && data.payable) {
  if (!data.openAmount) await start();
  else
    form?.addEventListener('submit', (event) => {
      event.preventDefault();
      const button = form.querySelector('button')!;
      if (button.disabled) return;
      button.disabled = true;
      input!.removeAttribute('aria-invalid');
      void start(typedAmount(input!.value)).finally(() => (button.disabled = false));
    });
}
