import { expect } from 'chai';
import type { PaymentStatusView } from '../../schemas/proxy-api.ts';
import type { CheckoutErrorDetail, PaymentCreatedDetail } from '../../widget/kassa-checkout.ts';
import { bank, createCheckout, holdAtBank, mount, phase, record, stackInfo, stayOnPage, until } from './support.ts';

const TYPES = ['kassa-payment-created', 'kassa-status', 'kassa-completed', 'kassa-failed', 'kassa-error'];

/** A framework's component that renders the checkout inside its own shadow root. */
const host = document.createElement('div');
const shadowHost = (): ShadowRoot => host.shadowRoot ?? host.attachShadow({ mode: 'open' });
before(() => document.body.append(host));
after(() => host.remove());

describe('<kassa-checkout>: events', () => {
  it('a completed payment: payment-created, each status, completed; all bubble out of shadow roots to the document', async () => {
    const seen = record(document, ...TYPES);
    const [{ proxy }, checkout] = await Promise.all([stackInfo(), createCheckout()]);
    const element = mount({ proxy, checkout }, shadowHost());
    await phase(element, 'ready');
    const created = stayOnPage(element);
    element.shadowRoot!.querySelector('button')!.click();
    const detail: PaymentCreatedDetail = await created;
    expect(detail).to.include({ checkoutId: checkout, environment: 'sandbox', replayed: false });
    expect(detail.transactionId).to.match(/^[0-9a-f-]{36}$/);
    expect(detail.flowUrl).to.match(/\/pay\/flow\//);
    // The bank holds the payment until the element has told its status at least once.
    const held = await holdAtBank(detail.transactionId);
    await bank(detail.flowUrl, 'authorise');
    await until(() => seen.some(({ event }) => event.type === 'kassa-status'), 'a status while the bank holds it');
    await held.release();
    await phase(element, 'completed');

    const types = seen.map(({ event }) => event.type);
    expect(types[0]).to.equal('kassa-payment-created');
    expect(types.at(-1)).to.equal('kassa-completed');
    expect(types.slice(1, -1).every((type) => type === 'kassa-status')).to.equal(true);
    for (const { event, origin } of seen) {
      expect(event.bubbles && event.composed, event.type).to.equal(true);
      expect(origin === element, `${event.type} comes from the element`).to.equal(true);
    }
    expect(seen[0]!.event.cancelable).to.equal(true);
    const statuses = seen
      .filter(({ event }) => event.type === 'kassa-status')
      .map(({ event }) => (event.detail as PaymentStatusView).status);
    expect(statuses[0]).to.equal('PENDING');
    expect(statuses.at(-1)).to.equal('COMPLETED');
    const completed = seen.at(-1)!.event.detail as PaymentStatusView;
    expect(completed).to.include({
      transactionId: detail.transactionId,
      status: 'COMPLETED',
      amount: '42.50',
      currencyCode: 'EUR',
      checkoutId: checkout,
    });
  });

  it('a failed payment: failed, with networkStatus and retryable', async () => {
    const [{ proxy }, checkout] = await Promise.all([stackInfo(), createCheckout()]);
    const element = mount({ proxy, checkout });
    const failed = record(element, 'kassa-failed');
    await phase(element, 'ready');
    const created = stayOnPage(element);
    element.shadowRoot!.querySelector('button')!.click();
    await bank((await created).flowUrl, 'cancel');
    await phase(element, 'failed');
    expect(failed).to.have.length(1);
    expect(failed[0]!.event.detail as PaymentStatusView).to.include({
      status: 'FAILED',
      networkStatus: 'CANCELLED',
      retryable: true,
    });
  });

  it('a payment found again (another tab paid first with its own key): replayed', async () => {
    const [{ proxy }, checkout] = await Promise.all([stackInfo(), createCheckout()]);
    const first = mount({ proxy, checkout });
    await phase(first, 'ready');
    const created = stayOnPage(first);
    first.shadowRoot!.querySelector('button')!.click();
    const original = await created;
    sessionStorage.clear();
    const other = mount({ proxy, checkout });
    await phase(other, 'ready');
    const again = stayOnPage(other);
    other.shadowRoot!.querySelector('button')!.click();
    expect(await again).to.include({ transactionId: original.transactionId, replayed: true });
  });

  it('an error: kind, status and the proxy’s message', async () => {
    const element = mount({ proxy: 'http://127.0.0.1:9', checkout: 'chk_x' });
    const errors = record(element, 'kassa-error');
    await phase(element, 'error');
    const detail = errors[0]!.event.detail as CheckoutErrorDetail;
    expect(detail).to.include({ kind: 'unreachable', status: 0 });
    const { proxy } = await stackInfo();
    const unknown = mount({ proxy, checkout: 'chk_unknown' });
    const refused = record(unknown, 'kassa-error');
    await phase(unknown, 'error');
    expect(refused[0]!.event.detail).to.deep.equal({
      kind: 'rejected',
      status: 404,
      message: 'Unknown checkout',
      retryAfter: undefined,
    });
  });
});
