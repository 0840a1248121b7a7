import type { PaymentStatusView } from '../../schemas/proxy-api.ts';
import { ProxyClient } from '../shared/proxy-client.ts';
import { StateStreamController } from '../shared/state-stream-controller.ts';

/** The payment service's final statuses (TERMINAL_STATUSES in schemas/pay.ts, not imported: no zod here). */
const isFinalStatus = (status: string): boolean => status === 'COMPLETED' || status === 'FAILED';

class StatusClient extends ProxyClient {
  async status(statusToken: string): Promise<PaymentStatusView> {
    return (await this.call<PaymentStatusView>(`/api/payments/status/${encodeURIComponent(statusToken)}`)).body;
  }

  statusEventsUrl(statusToken: string): string {
    return `${this.origin}/api/payments/status/${encodeURIComponent(statusToken)}/events`;
  }
}

/**
 * Follows a payment's status until it is final: its stream of `status` events, or polling where
 * the stream is blocked (shared/state-stream-controller.ts).
 */
export class StatusStreamController extends StateStreamController<PaymentStatusView> {
  /** Follows this payment (and stops following any other). */
  follow(client: ProxyClient, statusToken: string): void {
    const status = new StatusClient(client.origin);
    this.watch({
      eventsUrl: status.statusEventsUrl(statusToken),
      event: 'status',
      read: () => status.status(statusToken),
      key: (view) => `${view.status} ${view.networkStatus} ${view.updatedAt} ${view.retryable}`,
      final: (view) => isFinalStatus(view.status),
    });
  }
}
