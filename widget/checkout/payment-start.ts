import type { CreatedPayment, CreatePaymentRequest } from '../../schemas/proxy-api.ts';
import { languageOf, resolveLocale } from '../shared/i18n.ts';
import { emit } from '../shared/kassa-event.ts';
import { ProxyClient, type ProxyError } from '../shared/proxy-client.ts';
import { isNavigableFlowUrl } from './bank-page.ts';
import type { FlowHost, Phone } from './flow-host.ts';
import type { PaymentCreatedDetail } from './events.ts';

/**
 * Starting a payment, which only a click does: a chunk, fetched as soon as the checkout is ready,
 * so that kassa.js holds what the first render needs.
 */

class PaymentClient extends ProxyClient {
  /**
   * Retries with the same key answer the same payment. `replayed`: the checkout already had a live
   * payment (200), which is answered instead of a new one.
   */
  async createPayment(
    request: CreatePaymentRequest,
    idempotencyKey: string,
  ): Promise<CreatedPayment & { replayed: boolean }> {
    const { body, status } = await this.call<CreatedPayment>('/api/payments', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
      body: JSON.stringify(request),
    });
    return { ...body, replayed: status === 200 };
  }
}

/**
 * Starts the payment, or, with the attempt's key, finds the one already started: paying with the
 * phone and then in this browser (or the other way round) is one payment.
 */
async function start(
  flow: FlowHost,
  retry: () => void,
  popup?: Window,
): Promise<(CreatedPayment & { replayed: boolean }) | undefined> {
  const client = new PaymentClient(flow.client!.origin);
  const attempts = flow.attempts!;
  const generation = flow.generation;
  const attempt = attempts.begin();
  flow.problems.clear();
  flow.phase = 'creating';
  let created;
  try {
    created = await client.createPayment(request(flow), attempt.key);
  } catch (error) {
    popup?.close();
    if (generation !== flow.generation) return;
    // The key went with another request (the checkout's attributes changed): start a new attempt.
    if ((error as ProxyError).status === 422) attempts.clear();
    // A return URL the proxy does not allow (KASSA_RETURN_URLS): the shop's setup, not the customer's doing.
    if (((error as ProxyError).details as { reason?: string } | undefined)?.reason === 'return-url-not-allowed') {
      const { status, message } = error as ProxyError;
      flow.phase = 'error';
      flow.problems.misconfigured(
        { kind: 'misconfigured', code: 'return-url-not-allowed', status, message },
        'refused',
      );
      return;
    }
    flow.fail(error, retry);
    return;
  }
  if (generation !== flow.generation) return void popup?.close();
  if (!isNavigableFlowUrl(created.flowUrl, client.origin)) {
    popup?.close();
    attempts.clear();
    flow.show({ message: 'untrusted' });
    flow.problems.report({
      kind: 'untrusted-flow-url',
      status: 0,
      message: `Refused to open the payment page ${created.flowUrl}`,
    });
    return;
  }
  attempts.save({ key: attempt.key, statusToken: created.statusToken });
  flow.returned = false;
  return { ...created, flowUrl: inLanguage(created.flowUrl, resolveLocale(flow, flow.locale)) };
}

/**
 * The bank's page in the element's language: a payment is started without one (the payment service
 * takes none), so it goes on the page's address as `lang`. A phone's bank page follows the phone.
 */
function inLanguage(flowUrl: string, locale: string): string {
  const url = new URL(flowUrl);
  url.searchParams.set('lang', languageOf(locale));
  return url.href;
}

/** Starts the payment (or finds it) and sends the customer to the bank, in this tab or a popup opened in the click. */
export async function payAtBank(flow: FlowHost, popup?: Window): Promise<void> {
  const created = await start(flow, () => void flow.pay(), popup);
  if (!created) return;
  const { transactionId, environment, flowUrl, replayed } = created;
  const proceed = emit<PaymentCreatedDetail>(
    flow,
    'kassa-payment-created',
    { transactionId, checkoutId: flow.checkout || null, environment, flowUrl, replayed },
    true,
  );
  if (proceed && !popup) {
    flow.phase = 'redirecting';
    await flow.updateComplete;
    location.assign(flowUrl);
    return;
  }
  if (popup && proceed) {
    flow.bankWindow = popup;
    popup.location.href = flowUrl;
  } else {
    popup?.close();
  }
  flow.phase = 'authorising';
  void flow.follow(created.statusToken);
}

/**
 * Starts the payment (or finds it) and shows the QR code of its hand-off link: the phone opens the
 * bank, and the element follows the payment live and shows the result with nothing to do here.
 */
export async function payOnPhone(flow: FlowHost, phone: Phone): Promise<void> {
  const retry = () => void flow.payOnPhone();
  const created = await start(flow, retry);
  if (!created) return;
  // A reload shows the QR code again rather than "Continue to your bank".
  flow.attempts!.save({ ...flow.attempts!.read()!, phone: true });
  await showPhone(flow, phone, created.statusToken, retry);
}

/** Resumes paying with the phone after a reload: the QR code again, or the result if it came meanwhile. */
export async function resumePhone(flow: FlowHost, phone: Phone, statusToken: string): Promise<void> {
  await showPhone(flow, phone, statusToken, () => void flow.load());
}

async function showPhone(flow: FlowHost, phone: Phone, statusToken: string, retry: () => void): Promise<void> {
  const generation = flow.generation;
  try {
    // The receipt and the status stream come now too: once the QR code shows, the page asks nothing more of the network.
    await Promise.all([phone.open(flow.client!.origin, statusToken), flow.loadReceipt(), flow.loadStream()]);
  } catch (error) {
    if (generation !== flow.generation) return;
    // The payment ended meanwhile (409) or is too old to hand off (410): its status says how.
    if ((error as ProxyError).status === 409 || (error as ProxyError).status === 410)
      return void flow.follow(statusToken);
    flow.fail(error, retry);
    return;
  }
  if (generation !== flow.generation) return;
  flow.phase = 'phone';
  void flow.follow(statusToken);
}

function request({ checkout, returnUrl, field, summary }: FlowHost): CreatePaymentRequest {
  return checkout
    ? { checkoutId: checkout, returnUrl: returnUrl || undefined }
    : {
        amount: field?.amount || summary!.amount,
        currencyCode: summary!.currencyCode,
        reference: summary!.reference,
        returnUrl: returnUrl || undefined,
      };
}
