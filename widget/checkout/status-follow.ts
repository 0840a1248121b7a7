import type { PaymentStatusView } from '../../schemas/proxy-api.ts';
import { emit } from '../shared/kassa-event.ts';
import type { FlowHost } from './flow-host.ts';
import { StatusStreamController } from './status-stream-controller.ts';

/**
 * The checkout's status stream and what each status does to it: a chunk, since the first render has
 * no payment to follow.
 */
export function statusStream(flow: FlowHost): StatusStreamController {
  return new StatusStreamController(flow, {
    onState: (view) => showStatus(flow, view),
    onFailure: (error) => {
      if (error.status === 404) flow.attempts?.clear();
      flow.fail(error, () => void flow.load());
    },
  });
}

function showStatus(flow: FlowHost, view: PaymentStatusView): void {
  // Back from the bank, nothing has focus: the keyboard starts at the payment's status, not at the page's top.
  if (!flow.payment && flow.returned && document.activeElement === document.body) void focusStatus(flow);
  void flow.loadReceipt().catch(() => undefined);
  flow.payment = view;
  flow.summary = view;
  emit(flow, 'kassa-status', view);
  if (view.status === 'COMPLETED' || view.status === 'FAILED') {
    flow.closeBankWindow();
    flow.phase = view.status === 'COMPLETED' ? 'completed' : 'failed';
    emit(flow, view.status === 'COMPLETED' ? 'kassa-completed' : 'kassa-failed', view);
    return;
  }
  // Until the bank answers (INITIATED), the customer has yet to authorise, unless they came back.
  const answered = flow.returned || (view.networkStatus !== null && view.networkStatus !== 'INITIATED');
  if (answered) flow.closeBankWindow();
  flow.phase = answered ? 'waiting' : flow.phase === 'phone' ? 'phone' : 'authorising';
}

async function focusStatus(flow: FlowHost): Promise<void> {
  await flow.updateComplete;
  const status = flow.shadowRoot?.querySelector<HTMLElement>('[part~="status"]');
  status?.setAttribute('tabindex', '-1');
  status?.focus();
}
