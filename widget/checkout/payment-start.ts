import type { CreatedPayment, CreatePaymentRequest } from '../../schemas/proxy-api.ts';
import { languageOf, resolveLocale } from '../shared/i18n.ts';
import { emit } from '../shared/kassa-event.ts';
import { ProxyClient, type ProxyError } from '../shared/proxy-client.ts';
import { isNavigableFlowUrl } from './bank-page.ts';
import type { PaymentFlow, Phone } from './flow-steps.ts';
import type { CheckoutErrorDetail, PaymentCreatedDetail } from './events.ts';

/**
 * Starting a payment, which only a click does: a chunk, fetched as soon as the checkout is ready,
 * so that kassa.js holds what the first render needs. What each step leads to is handed to the flow
 * (checkout-flow.ts), which applies it.
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

type Created = CreatedPayment & { replayed: boolean };

/**
 * Starts the payment, or, with the attempt's key, finds the one already started: paying with the
 * phone and then in this browser (or the other way round) is one payment. Undefined when it could
 * not (the flow has the step that says why) or a newer load() came meanwhile.
 */
async function start(flow: PaymentFlow, retry: () => void, popup?: Window): Promise<Created | undefined> {
  const client = new PaymentClient(flow.client!.origin);
  const attempts = flow.attempts!;
  const generation = flow.generation;
  const attempt = attempts.begin();
  let created;
  try {
    created = await client.createPayment(request(flow), attempt.key);
  } catch (error) {
    popup?.close();
    if (generation !== flow.generation) return;
    const { status, message, details } = error as ProxyError;
    // The key went with another request (the checkout's attributes changed): start a new attempt.
    if (status === 422) attempts.clear();
    // A return URL the proxy does not allow (KASSA_RETURN_URLS): the shop's setup, not the customer's doing.
    if ((details as { reason?: string } | undefined)?.reason === 'return-url-not-allowed')
      return void flow.misconfigured('return-url-not-allowed', message, 'refused', status);
    return void flow.fail(error, retry);
  }
  if (generation !== flow.generation) return void popup?.close();
  if (!isNavigableFlowUrl(created.flowUrl, client.origin)) {
    popup?.close();
    attempts.clear();
    flow.show({ message: 'untrusted' });
    return void emit<CheckoutErrorDetail>(flow.host, 'kassa-error', {
      kind: 'untrusted-flow-url',
      status: 0,
      message: `Refused to open the payment page ${created.flowUrl}`,
    });
  }
  attempts.save({ key: attempt.key, statusToken: created.statusToken });
  return { ...created, flowUrl: inLanguage(created.flowUrl, resolveLocale(flow.host, flow.host.locale)) };
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
export async function payAtBank(flow: PaymentFlow, popup?: Window): Promise<void> {
  const created = await start(flow, () => void flow.pay(), popup);
  if (!created) return;
  const { transactionId, environment, flowUrl, replayed } = created;
  const proceed = emit<PaymentCreatedDetail>(
    flow.host,
    'kassa-payment-created',
    { transactionId, checkoutId: flow.host.checkout || null, environment, flowUrl, replayed },
    true,
  );
  if (proceed && !popup) {
    flow.apply({ phase: 'redirecting' });
    await flow.host.updateComplete;
    return location.assign(flowUrl);
  }
  if (popup && proceed) popup.location.href = flowUrl;
  else popup?.close();
  flow.apply({ bankWindow: proceed ? popup : undefined, phase: 'authorising', follow: created.statusToken });
}

/**
 * Starts the payment (or finds it) and shows the QR code of its hand-off link: the phone opens the
 * bank, and the element follows the payment live and shows the result with nothing to do here.
 */
export async function payOnPhone(flow: PaymentFlow, phone: Phone): Promise<void> {
  const retry = () => void flow.pay(true);
  const created = await start(flow, retry);
  if (!created) return;
  // A reload shows the QR code again rather than "Continue to your bank".
  flow.attempts!.save({ ...flow.attempts!.read()!, phone: true });
  await showPhone(flow, phone, created.statusToken, retry);
}

/** Resumes paying with the phone after a reload: the QR code again, or the result if it came meanwhile. */
export function resumePhone(flow: PaymentFlow, phone: Phone, statusToken: string): Promise<void> {
  return showPhone(flow, phone, statusToken, () => void flow.load());
}

async function showPhone(flow: PaymentFlow, phone: Phone, statusToken: string, retry: () => void): Promise<void> {
  const generation = flow.generation;
  try {
    // The receipt and the status stream come now too: once the QR code shows, the page asks nothing more of the network.
    await Promise.all([phone.open(flow.client!.origin, statusToken), import('./receipt.ts'), flow.loadStream()]);
  } catch (error) {
    // The payment ended meanwhile (409) or is too old to hand off (410): its status says how.
    const { status } = error as ProxyError;
    if (status === 409 || status === 410) return flow.apply({ follow: statusToken }, generation);
    if (generation === flow.generation) flow.fail(error, retry);
    return;
  }
  flow.apply({ phase: 'phone', follow: statusToken }, generation);
}

function request({ host, field, summary }: PaymentFlow): CreatePaymentRequest {
  const returnUrl = host.returnUrl || undefined;
  return host.checkout
    ? { checkoutId: host.checkout, returnUrl }
    : {
        amount: field?.amount || summary!.amount,
        currencyCode: summary!.currencyCode,
        reference: summary!.reference,
        returnUrl,
      };
}
