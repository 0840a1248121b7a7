import { expect } from 'chai';
import {
  bank,
  control,
  createCheckout,
  framed,
  holdAtBank,
  mount,
  onOtherOrigin,
  part,
  paymentCreated,
  paymentsOf,
  phase,
  readyCheckout,
  stackInfo,
  stayOnPage,
  text,
  until,
} from './support.ts';

describe('<kassa-checkout>: the states a customer sees', () => {
  it('ready: the checkout amount formatted for the locale, its reference, a sandbox badge and the pay button', async () => {
    const element = await readyCheckout({}, { amount: '1234.5', reference: 'ORDER-77' });
    expect(text(element, 'amount')).to.equal('€1,234.50');
    expect(text(element, 'reference')).to.equal('Reference: ORDER-77');
    expect(text(element, 'badge')).to.equal('Sandbox');
    expect(text(element, 'button')).to.equal('Pay by bank');
    expect(text(element, 'status')).to.equal('');
    expect(element.getAttribute('phase')).to.equal('ready');
  });

  it('creating: the button turns busy at once, and double clicks make one payment', async () => {
    const element = await readyCheckout();
    const created = stayOnPage(element);
    const button = () => element.shadowRoot!.querySelector('button')!;
    button().click();
    expect(element.phase).to.equal('creating');
    await element.updateComplete;
    expect(text(element, 'status')).to.equal('Starting your payment…');
    expect(button().getAttribute('aria-disabled')).to.equal('true');
    button().click();
    button().click();
    await created;
    await phase(element, 'authorising');
    expect(await paymentsOf(element.checkout)).to.have.length(1);
  });

  it('a reload after the payment was made finds the same payment, never a second one', async () => {
    const first = await readyCheckout();
    const created = stayOnPage(first);
    first.shadowRoot!.querySelector('button')!.click();
    const { transactionId } = await created;
    first.remove();
    // The same checkout in this tab again, as after a reload: it resumes the attempt in sessionStorage.
    const again = mount({ proxy: first.proxy, checkout: first.checkout });
    await phase(again, 'authorising');
    expect(text(again, 'status')).to.equal('Finish the payment at your bank.');
    const continued = stayOnPage(again);
    again.shadowRoot!.querySelector('button')!.click();
    expect((await continued).transactionId).to.equal(transactionId);
    expect(await paymentsOf(first.checkout)).to.have.length(1);
  });

  it('redirecting, then back from the bank: waiting for the bank, then completed, and the address cleaned', async () => {
    const { proxy } = await stackInfo();
    const checkout = await createCheckout();
    const page = await framed({ proxy, checkout });
    const element = await page.element();
    await phase(element, 'ready');
    const created = paymentCreated(element);
    let shownWhenLeaving = '';
    page.iframe.contentWindow!.addEventListener(
      'beforeunload',
      () => (shownWhenLeaving = `${element.phase}: ${text(element, 'status')}`),
    );
    element.shadowRoot!.querySelector('button')!.click();
    const { flowUrl, transactionId } = await created;
    const held = await holdAtBank(transactionId);
    await until(() => shownWhenLeaving, 'the page to leave for the bank');
    expect(shownWhenLeaving).to.equal('redirecting: Taking you to your bank…');
    // The frame is on the bank's page now (another origin); the customer authorises there.
    await until(() => onOtherOrigin(page.iframe.contentWindow!), 'the bank page');
    const answer = await bank(flowUrl, 'authorise');
    expect(answer.status).to.equal(303);
    const back = await page.visit(answer.location!);
    await phase(back, 'waiting');
    expect(text(back, 'status')).to.equal('Waiting for your bank to confirm…');
    expect(page.iframe.contentWindow!.location.search).not.to.include('kassa_status');
    await held.release();
    await phase(back, 'completed');
    expect(text(back, 'status')).to.equal('Payment received. Thank you!');
    expect(text(back, 'amount')).to.equal('€42.50');
    // Nothing left to do: only the receipt's copy button.
    expect(part(back, 'button')).to.equal(null);
  });

  it('a reload while waiting resumes from this tab, with the address already cleaned', async () => {
    const { proxy } = await stackInfo();
    const checkout = await createCheckout();
    const page = await framed({ proxy, checkout });
    const element = await page.element();
    await phase(element, 'ready');
    const created = stayOnPage(element);
    element.shadowRoot!.querySelector('button')!.click();
    const { flowUrl, transactionId } = await created;
    const held = await holdAtBank(transactionId);
    const { location } = await bank(flowUrl, 'authorise');
    await phase(await page.visit(location!), 'waiting');
    const reloaded = await page.visit();
    await phase(reloaded, 'waiting');
    await held.release();
    await phase(reloaded, 'completed');
    expect((await paymentsOf(checkout)).map((payment) => payment.transactionId)).to.deep.equal([transactionId]);
  });

  it('a reload while the QR code shows shows it again, for the same payment; "Pay in this browser" then forgets it', async () => {
    const { proxy } = await stackInfo();
    const checkout = await createCheckout();
    const page = await framed({ proxy, checkout });
    const element = await page.element();
    await phase(element, 'ready');
    await until(() => part(element, 'secondary'), '"Pay with your phone"');
    part(element, 'secondary')!.click();
    await phase(element, 'phone');
    const link = await until(() => part(element, 'handoff-url')?.textContent, 'the hand-off link');
    const reloaded = await page.visit();
    await phase(reloaded, 'phone');
    expect(await until(() => part(reloaded, 'handoff-url')?.textContent, 'the hand-off link')).to.equal(link);
    expect(text(reloaded, 'button')).to.equal('Pay in this browser');
    expect(await paymentsOf(checkout)).to.have.length(1);
    // Paying in this browser after all: a reload then offers "Continue to your bank", not the QR code.
    const created = stayOnPage(reloaded);
    part(reloaded, 'button')!.click();
    await created;
    await phase(reloaded, 'authorising');
    const again = await page.visit();
    await phase(again, 'authorising');
    expect(text(again, 'button')).to.equal('Continue to your bank');
    expect(await paymentsOf(checkout)).to.have.length(1);
  });

  it('failed, cancelled at the bank: the reason in plain words, and a new attempt makes a new payment', async () => {
    const element = await readyCheckout();
    const created = stayOnPage(element);
    element.shadowRoot!.querySelector('button')!.click();
    const first = await created;
    await bank(first.flowUrl, 'cancel');
    await phase(element, 'failed');
    expect(text(element, 'status')).to.equal('The payment did not go through. You cancelled the payment at your bank.');
    expect(text(element, 'button')).to.equal('Try again');
    const again = stayOnPage(element);
    element.shadowRoot!.querySelector('button')!.click();
    const second = await again;
    expect(second.transactionId).not.to.equal(first.transactionId);
    await phase(element, 'authorising');
    expect(await paymentsOf(element.checkout)).to.have.length(2);
  });

  it('failed, declined by the bank', async () => {
    const element = await readyCheckout();
    const created = stayOnPage(element);
    element.shadowRoot!.querySelector('button')!.click();
    await bank((await created).flowUrl, 'authorise', 'bank_sandbox_rejects');
    await phase(element, 'failed');
    expect(text(element, 'status')).to.equal('The payment did not go through. Your bank declined the payment.');
  });

  it('failed for a reason the element does not know: said in general words', async () => {
    const element = await readyCheckout();
    const created = stayOnPage(element);
    element.shadowRoot!.querySelector('button')!.click();
    await control(`/payments/${(await created).transactionId}/outcome`, {
      status: 'FAILED',
      networkStatus: 'INSUFFICIENT_FUNDS',
    });
    await phase(element, 'failed');
    expect(text(element, 'status')).to.equal(
      'The payment did not go through. Your bank could not complete the payment.',
    );
  });

  it('failed where the checkout takes no new attempt (another tab started one): no button, ask the shop', async () => {
    const element = await readyCheckout();
    const created = stayOnPage(element);
    element.shadowRoot!.querySelector('button')!.click();
    const { flowUrl } = await created;
    await bank(flowUrl, 'cancel');
    await phase(element, 'failed');
    // Another tab pays the same checkout again with its own key.
    const answer = await fetch(`${element.proxy}/api/payments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'another-tab-key' },
      body: JSON.stringify({ checkoutId: element.checkout }),
    });
    expect(answer.status).to.equal(201);
    const stale = mount({ proxy: element.proxy, checkout: element.checkout });
    await phase(stale, 'failed');
    expect(text(stale, 'status')).to.equal(
      'The payment did not go through. You cancelled the payment at your bank. Please contact the shop to pay for this order.',
    );
    expect(stale.shadowRoot!.querySelector('button')).to.equal(null);
  });

  it('error: the proxy cannot be reached, with a way to try again', async () => {
    const element = mount({ proxy: 'http://127.0.0.1:9', checkout: 'chk_unreachable' });
    await phase(element, 'error');
    expect(text(element, 'status')).to.equal(
      "We can't reach the payment service. Check your connection and try again.",
    );
    expect(text(element, 'button')).to.equal('Try again');
    // Pointing it at a proxy that answers recovers.
    const { proxy } = await stackInfo();
    element.checkout = await createCheckout();
    element.proxy = proxy;
    await phase(element, 'ready');
  });

  it('error: an unknown checkout is refused for good', async () => {
    const { proxy } = await stackInfo();
    const element = mount({ proxy, checkout: 'chk_does_not_exist' });
    await phase(element, 'error');
    expect(text(element, 'status')).to.equal('This payment link is not valid.');
    expect(element.shadowRoot!.querySelector('button')).to.equal(null);
  });

  it('a checkout that is already paid says so', async () => {
    const element = await readyCheckout();
    const created = stayOnPage(element);
    element.shadowRoot!.querySelector('button')!.click();
    await bank((await created).flowUrl, 'authorise');
    await phase(element, 'completed');
    sessionStorage.clear();
    const elsewhere = mount({ proxy: element.proxy, checkout: element.checkout });
    await phase(elsewhere, 'error');
    expect(text(elsewhere, 'status')).to.equal('This order has already been paid.');
    expect(part(elsewhere, 'status')!.classList.contains('success')).to.equal(true);
  });

  it('error: rate limited, with the wait the proxy asked for, and the button held until then', async () => {
    const limited = { KASSA_CREATE_RATE_LIMIT: '1' };
    const { proxy } = await stackInfo('limited', limited);
    const first = mount({ proxy, checkout: await createCheckout({}, 'limited') });
    await phase(first, 'ready');
    const created = stayOnPage(first);
    first.shadowRoot!.querySelector('button')!.click();
    await created;
    const second = mount({ proxy, checkout: await createCheckout({}, 'limited') });
    await phase(second, 'ready');
    second.shadowRoot!.querySelector('button')!.click();
    await phase(second, 'error');
    expect(text(second, 'status')).to.match(/^Too many attempts right now\. Please try again in (60|59) seconds\.$/);
    expect(part(second, 'button')!.getAttribute('aria-disabled')).to.equal('true');
  });

  it('open amount: the amount from the attributes, within the bounds the proxy allows', async () => {
    const { proxy } = await stackInfo();
    const element = mount({ proxy, amount: '25', currency: 'EUR', reference: 'DONATION 7' });
    await phase(element, 'ready');
    expect(text(element, 'amount')).to.equal('€25.00');
    const created = stayOnPage(element);
    element.shadowRoot!.querySelector('button')!.click();
    await created;
    await phase(element, 'authorising');
  });

  it('open amount beyond the bounds is refused by the proxy', async () => {
    const { proxy } = await stackInfo();
    const element = mount({ proxy, amount: '900', currency: 'EUR', reference: 'TOO MUCH' });
    await phase(element, 'ready');
    element.shadowRoot!.querySelector('button')!.click();
    await phase(element, 'error');
    expect(text(element, 'status')).to.equal('The payment could not be started.');
  });

  it('open amount where the proxy does not allow it', async () => {
    const { proxy } = await stackInfo('closed', { KASSA_OPEN_AMOUNT: 'off' });
    const element = mount({ proxy, amount: '25', currency: 'EUR', reference: 'DONATION' });
    await phase(element, 'error');
    expect(text(element, 'status')).to.equal("This shop can't take this payment here.");
  });

  it('nothing to pay: misconfigured', async () => {
    const { proxy } = await stackInfo();
    const element = mount({ proxy });
    await phase(element, 'error');
    expect(text(element, 'status')).to.equal('This payment is not set up correctly.');
  });

  it('a status link the proxy does not know', async () => {
    const { proxy } = await stackInfo();
    const page = await framed({ proxy, checkout: await createCheckout() }, `&kassa_status=${'A'.repeat(43)}`);
    const element = await page.element();
    await phase(element, 'error');
    expect(text(element, 'status')).to.equal('This payment link is not valid.');
    expect(page.iframe.contentWindow!.location.search).not.to.include('kassa_status');
  });
});
