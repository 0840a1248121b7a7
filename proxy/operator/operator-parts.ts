import type { Registry } from 'prom-client';
import type { ProxyConfig } from '../config.ts';
import type { Store } from '../state/store.ts';
import { Approvals } from './approvals.ts';
import { AuditTrail } from './audit-trail.ts';
import { Credentials } from './credentials.ts';
import { DeviceGrant } from './device-grant.ts';
import type { OperatorAuthOptions } from './operator-auth.ts';
import { OperatorMetrics } from './operator-metrics.ts';
import { OperatorAccounts } from './operators.ts';
import type { EdgeParts } from './dual-control.ts';
import { registerOrderActions } from './order-actions.ts';
import type { OrdersClient } from '../upstream/orders-client.ts';

export interface OperatorParts extends EdgeParts {
  credentials: Credentials;
  /** What every operator route's guard needs but its permission (`operatorGuards`). */
  access: Omit<OperatorAuthOptions, 'permission'>;
  deviceGrant: DeviceGrant;
  accounts: OperatorAccounts;
  audit: AuditTrail;
  approvals: Approvals;
  metrics: OperatorMetrics;
}

/** Operators as people (issue 37): their credentials, the routes' guard, device sign-in; built once per proxy. */
export function createOperatorParts(deps: {
  config: ProxyConfig;
  store: Store;
  orders: OrdersClient;
  registry: Registry;
  approvalTtlMs?: number | undefined;
}): OperatorParts {
  const { operators } = deps.store;
  const credentials = new Credentials(operators);
  const audit = new AuditTrail(deps.store.audit);
  const approvals = new Approvals(deps.store.approvals, audit, {
    threshold: deps.config.approvalThreshold,
    ttlMs: deps.approvalTtlMs,
  });
  const metrics = new OperatorMetrics(deps.registry, approvals);
  registerOrderActions(approvals, deps.orders);
  return {
    credentials,
    access: {
      credentials,
      publicUrl: deps.config.publicUrl,
      onRefusal: (permission) => metrics.refused(permission),
    },
    deviceGrant: new DeviceGrant(operators, credentials),
    accounts: new OperatorAccounts(operators, credentials, audit),
    audit,
    approvals,
    trustProxy: deps.config.trustProxy,
    metrics,
  };
}
