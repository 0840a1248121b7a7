/**
 * The counter (`/operator/counter`): asks the proxy for a customer's payment of the amount typed
 * (POST /api/operator/counter), shows its QR code, and follows it live (Server-Sent Events, read again
 * with GET when the stream drops) until it is paid, cancelled or expired; then "Next customer" brings
 * the amount field back. Nothing here writes HTML.
 */
import { typedAmount } from '../lib/money.ts';
import type { CounterPaymentView, CounterState } from '../schemas/counter.ts';
import { signOut } from './account.ts';
import { busy, call, fill, problemText, say, words, type Answer } from './page.ts';

const FINAL: readonly CounterState[] = ['paid', 'cancelled', 'expired'];

/** A counter payment, or the proxy's refusal. */
type Refusable = CounterPaymentView & { error?: string };

export function wireCounter(): void {
  const section = document.querySelector<HTMLElement>('[data-counter]');
  const form = document.querySelector<HTMLFormElement>('form[data-form="counter"]');
  const panel = document.querySelector<HTMLElement>('[data-counter-payment]');
  if (!section || !form || !panel) return;
  const amountField = form.querySelector<HTMLInputElement>('#counter-amount')!;
  const noteField = form.querySelector<HTMLInputElement>('#counter-note')!;
  const shown = (name: string) => panel.querySelector<HTMLElement>(`[data-shown="${name}"]`)!;
  const qr = shown('qr') as HTMLImageElement;
  const button = (action: string) => panel.querySelector<HTMLButtonElement>(`[data-action="counter-${action}"]`)!;
  const money = new Intl.NumberFormat(document.documentElement.lang, {
    style: 'currency',
    currency: section.dataset.currency ?? 'EUR',
  });

  /** The payment on the screen now, and how it is followed. */
  let current: CounterPaymentView | undefined;
  let stream: EventSource | undefined;

  const stopFollowing = () => {
    stream?.close();
    stream = undefined;
  };

  /** Signed out meanwhile (the session ended, or was ended): the same address shows the sign-in. */
  const signedOut = (answer: Answer) => {
    if (answer.status !== 401) return false;
    location.reload();
    return true;
  };

  function render(view: CounterPaymentView): void {
    if (current && view.code !== current.code) return;
    current = view;
    panel!.dataset.state = view.state;
    shown('state').textContent = words.counterStates[view.state];
    shown('mark').textContent =
      view.state === 'paid' ? `✓\n${words.counterPaid}` : view.state === 'failed' ? `✗\n${words.counterFailed}` : '';
    const final = FINAL.includes(view.state);
    button('next').hidden = !final;
    button('retry').hidden = view.state !== 'failed';
    button('cancel').hidden = final || view.state === 'authorising';
    if (final) {
      stopFollowing();
      button('next').focus();
    }
  }

  /** Reads the payment once: the stream's fallback when it drops. */
  async function reread(code: string): Promise<void> {
    const answer = await call<CounterPaymentView>('GET', `/api/operator/counter/${encodeURIComponent(code)}`);
    if (signedOut(answer)) return;
    if (answer.status === 200) render(answer.body);
  }

  function follow(code: string): void {
    stopFollowing();
    const source = new EventSource(`/api/operator/counter/${encodeURIComponent(code)}/events`);
    stream = source;
    source.addEventListener('counter', (event) =>
      render(JSON.parse((event as MessageEvent<string>).data) as CounterPaymentView),
    );
    source.addEventListener('unauthorized', () => location.reload());
    // The browser reconnects by itself; meanwhile the state is read once, so that nothing is missed.
    source.addEventListener('error', () => {
      if (stream === source) void reread(code);
    });
  }

  function show(view: CounterPaymentView): void {
    current = undefined;
    form!.hidden = true;
    panel!.hidden = false;
    say('counter-payment', '');
    const amount = money.format(Number(view.amount));
    shown('amount').textContent = amount;
    shown('note').textContent = view.note;
    shown('reference').textContent = fill(words.counterReference, { reference: view.reference });
    qr.alt = fill(words.counterQr, { amount });
    // From this page's own origin (its policy allows no other); the code holds the link's address.
    if (view.qr) qr.src = new URL(view.qr.svg).pathname;
    render(view);
    follow(view.code);
  }

  async function ask(amount: string, note: string): Promise<void> {
    const answer = await call<Refusable>('POST', '/api/operator/counter', { amount, note });
    if (signedOut(answer)) return;
    if (answer.status === 201) return show(answer.body);
    // The amount refused (out of bounds, or not an amount): the bounds, by the field.
    if (answer.status === 400 && form!.hidden === false && answer.body.error?.startsWith('amount')) {
      amountField.setAttribute('aria-invalid', 'true');
      amountField.focus();
      const status = form!.querySelector<HTMLElement>('[data-status="counter"]')!;
      return say('counter', status.dataset.outOfBounds ?? problemText(answer), 'danger');
    }
    say(form!.hidden ? 'counter-payment' : 'counter', problemText(answer), 'danger');
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    amountField.removeAttribute('aria-invalid');
    const note = noteField.value.trim() || words.counterDefaultNote;
    void busy(form.querySelector('button'), () => ask(typedAmount(amountField.value), note));
  });

  /** Ends the payment on the screen; true when it ended (or was over already). */
  async function cancel(): Promise<boolean> {
    if (!current || FINAL.includes(current.state)) return true;
    const answer = await call<Refusable>('POST', `/api/operator/counter/${encodeURIComponent(current.code)}/cancel`);
    if (signedOut(answer)) return false;
    if (answer.status === 200) {
      render(answer.body);
      return true;
    }
    // Paid or at the bank meanwhile: the stream shows it.
    say('counter-payment', problemText(answer), 'danger');
    return false;
  }

  button('cancel').addEventListener('click', (event) => {
    void busy(event.currentTarget as HTMLElement, async () => void (await cancel()));
  });

  // Asks again for the same amount and note, after ending the payment that failed.
  button('retry').addEventListener('click', (event) => {
    void busy(event.currentTarget as HTMLElement, async () => {
      const failed = current;
      if (!failed || !(await cancel())) return;
      await ask(failed.amount, failed.note);
    });
  });

  button('next').addEventListener('click', () => {
    stopFollowing();
    current = undefined;
    panel.hidden = true;
    panel.dataset.state = 'waiting';
    qr.removeAttribute('src');
    form.reset();
    say('counter', '');
    form.hidden = false;
    amountField.focus();
  });

  document.querySelector('[data-action="signout"]')?.addEventListener('click', (event) => {
    void busy(event.currentTarget as HTMLElement, () => signOut('/operator/counter'));
  });
  amountField.focus();
}
