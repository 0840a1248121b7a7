import { expect } from 'chai';
import {
  bank,
  createCheckout,
  framed,
  mount,
  onOtherOrigin,
  paymentCreated,
  paymentsOf,
  phase,
  stackInfo,
  text,
  until,
} from './support.ts';

/** Lets window.open work as ever, and keeps what it opened. */
function watchPopups(target: Window = window): Array<Window | null> {
  const opened: Array<Window | null> = [];
  const open = target.open.bind(target);
  target.open = (...args) => {
    const popup = open(...args);
    opened.push(popup);
    return popup;
  };
  return opened;
}

describe('<kassa-checkout mode="popup">', () => {
  let opened: Array<Window | null>;
  const open = Object.getOwnPropertyDescriptor(window, 'open')!;
  beforeEach(() => (opened = watchPopups()));
  afterEach(() => {
    Object.defineProperty(window, 'open', open);
    opened.forEach((popup) => popup?.close());
  });

  it('opens the bank in a popup from the click, waits there, and closes it when the bank has answered', async () => {
    const [{ proxy }, checkout] = await Promise.all([stackInfo(), createCheckout()]);
    const element = mount({ proxy, checkout, mode: 'popup' });
    await phase(element, 'ready');
    const created = paymentCreated(element);
    element.shadowRoot!.querySelector('button')!.click();
    // Opened synchronously in the click, before the proxy answered: browsers block it otherwise.
    expect(opened).to.have.length(1);
    const { flowUrl } = await created;
    await phase(element, 'authorising');
    expect(text(element, 'status')).to.equal('Finish the payment at your bank.');
    expect(text(element, 'button')).to.equal('Continue to your bank');
    const popup = opened[0]!;
    await until(() => onOtherOrigin(popup), 'the popup to reach the bank');
    await bank(flowUrl, 'authorise');
    await phase(element, 'completed');
    expect(popup.closed).to.equal(true);
  });

  it('a popup the customer closed: "Continue to your bank" opens the same payment again', async () => {
    const [{ proxy }, checkout] = await Promise.all([stackInfo(), createCheckout()]);
    const element = mount({ proxy, checkout, mode: 'popup' });
    await phase(element, 'ready');
    const first = paymentCreated(element);
    element.shadowRoot!.querySelector('button')!.click();
    const { transactionId } = await first;
    await phase(element, 'authorising');
    opened[0]!.close();
    const second = paymentCreated(element);
    element.shadowRoot!.querySelector('button')!.click();
    expect((await second).transactionId).to.equal(transactionId);
    expect(opened).to.have.length(2);
    expect(await paymentsOf(checkout)).to.have.length(1);
  });

  it('a blocked popup falls back to sending the page to the bank', async () => {
    const [{ proxy }, checkout] = await Promise.all([stackInfo(), createCheckout()]);
    const page = await framed({ proxy, checkout, mode: 'popup' });
    const element = await page.element();
    await phase(element, 'ready');
    const frameWindow = page.iframe.contentWindow!;
    frameWindow.open = () => null;
    let shownWhenLeaving = '';
    frameWindow.addEventListener('beforeunload', () => (shownWhenLeaving = element.phase));
    element.shadowRoot!.querySelector('button')!.click();
    await until(() => shownWhenLeaving, 'the page to leave for the bank');
    expect(shownWhenLeaving).to.equal('redirecting');
  });
});
