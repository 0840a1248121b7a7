import { Counter, type Registry } from 'prom-client';

/** Operators in /metrics: sign-ins by method and outcome, and requests refused for a missing permission. */
export class OperatorMetrics {
  private readonly signins: Counter<'method' | 'outcome'>;
  private readonly refusals: Counter<'permission'>;

  constructor(registry: Registry) {
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
