import type { Health } from '../../schemas/proxy-api.ts';
import type { Logger } from '../logger.ts';
import type { UpstreamService } from './upstream-error.ts';

type PayHealth = Health['payments'];
type ServiceHealth = Health['orders'];

/**
 * The last known state of each upstream service, for `/api/health` and for the operator's logs: a
 * change is logged once when it happens, not on every failing request.
 */
export class UpstreamHealth {
  readonly pay: PayHealth = {
    state: 'unknown',
    environment: null,
    detail: null,
    freezeReason: null,
    frozenAt: null,
    since: null,
  };
  readonly orders: ServiceHealth = { state: 'unknown', detail: null };
  readonly reforge: ServiceHealth = { state: 'unknown', detail: null };

  constructor(private readonly logger: Logger) {}

  report(
    service: UpstreamService,
    state: PayHealth['state'],
    detail: string | null = null,
    extra: Partial<PayHealth> = {},
  ): void {
    const current = service === 'pay' ? this.pay : this[service];
    const changed = current.state !== state || current.detail !== detail;
    Object.assign(
      current,
      { state, detail },
      service === 'pay' ? { freezeReason: null, frozenAt: null, ...extra } : {},
    );
    if (service === 'pay' && changed) this.pay.since = new Date().toISOString();
    if (!changed) return;
    const fields = { service, state, detail, ...extra };
    if (state === 'ok') this.logger.info('upstream healthy', fields);
    else if (state === 'invalid_client' || state === 'account_frozen' || state === 'rejected')
      this.logger.error('upstream refuses Kassa credentials', fields);
    else this.logger.warn('upstream degraded', fields);
  }

  get degraded(): boolean {
    return [this.pay.state, this.orders.state, this.reforge.state].some(
      (state) => state !== 'ok' && state !== 'unknown',
    );
  }
}
