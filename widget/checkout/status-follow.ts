import type { PaymentStatusView } from '../../schemas/proxy-api.ts';
import { emit } from '../shared/kassa-event.ts';
import { focusStatus } from '../shared/focus-status.ts';
import type { FlowStep, PaymentFlow } from './flow-steps.ts';
import { paymentEnd } from './payment-end.ts';
import { StatusStreamController } from './status-stream-controller.ts';

/**
 * The checkout's status stream and the steps each status makes: a chunk, since the first render has
 * no payment to follow. The flow shows the status and the page hears it; then the flow takes the
 * phase it leads to, and the page hears the end. What the end says and offers comes with the stream
 * (payment-end.ts), and the receipt's chunk is fetched meanwhile.
 */
export function statusStream(flow: PaymentFlow): StatusStreamController {
  flow.apply({ end: paymentEnd(flow) });
  void loadReceipt(flow);
  return new StatusStreamController(flow.host, {
    onState: (view) => {
      void loadReceipt(flow);
      // Back from the bank: the keyboard starts at the payment's status, not at the page's top.
      if (!flow.payment && flow.returned) void focusStatus(flow.host);
      flow.apply({ payment: view, summary: view });
      emit(flow.host, 'kassa-status', view);
      flow.apply(nextStep(flow, view));
      if (final(view)) emit(flow.host, view.status === 'COMPLETED' ? 'kassa-completed' : 'kassa-failed', view);
    },
    onFailure: (error) => {
      if (error.status === 404) flow.attempts?.clear();
      flow.fail(error, () => void flow.load());
    },
  });
}

const final = (view: PaymentStatusView) => view.status === 'COMPLETED' || view.status === 'FAILED';

/** Where a status leads: the end, or waiting for the bank, whose popup closes once it has answered. */
function nextStep({ returned, host, bankWindow }: PaymentFlow, view: PaymentStatusView): FlowStep {
  if (final(view)) {
    bankWindow?.close();
    return { bankWindow: undefined, phase: view.status === 'COMPLETED' ? 'completed' : 'failed' };
  }
  // Until the bank answers (INITIATED), the customer has yet to authorise, unless they came back.
  const answered = returned || (view.networkStatus !== null && view.networkStatus !== 'INITIATED');
  if (!answered) return { phase: host.phase === 'phone' ? 'phone' : 'authorising' };
  bankWindow?.close();
  return { bankWindow: undefined, phase: 'waiting' };
}

/** The receipt of a completed payment: its chunk, once (tried again with the next status if it failed). */
async function loadReceipt(flow: PaymentFlow): Promise<void> {
  if (flow.receipt) return;
  const { Receipt } = await import('./receipt.ts').catch(() => ({ Receipt: undefined }));
  if (Receipt) flow.apply({ receipt: flow.receipt ?? new Receipt(flow.host) });
}
