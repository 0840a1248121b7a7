import { Counter, Gauge, type Registry } from 'prom-client';
import type { Approvals } from './approvals.ts';

/**
 * Operators in /metrics: sign-ins by method and outcome, requests refused for a missing permission, and
 * the money actions waiting for a second person.
 */
export class OperatorMetrics {
  private readonly signins: Counter<'method' | 'outcome'>;
  private readonly refusals: Counter<'permission'>;

  constructor(registry: Registry, approvals: Approvals) {
    new Gauge({
      name: 'kassa_operator_approvals_pending',
      help: 'Money actions waiting for a second person’s approval (not expired)',
      registers: [registry],
      async collect() {
        this.set(await approvals.pendingCount());
      },
    });
    this.signins = new Counter({
      name: 'kassa_operator_signins_total',
      help: 'Operator sign-ins, by method (passkey, sso, device, setup) and outcome (ok, refused)',
      labelNames: ['method', 'outcome'] as const,
      registers: [registry],
    });
    this.refusals = new Counter({
      name: 'kassa_operator_refusals_total',
      help: 'Operator requests refused with 403, by the permission the caller’s role lacked',
      labelNames: ['permission'] as const,
      registers: [registry],
    });
  }

  signin(method: string, outcome: 'ok' | 'refused'): void {
    this.signins.inc({ method, outcome });
  }

  refused(permission: string): void {
    this.refusals.inc({ permission });
  }
}
