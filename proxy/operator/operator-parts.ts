import type { Registry } from 'prom-client';
import type { ProxyConfig } from '../config.ts';
import type { OperatorStore } from '../state/operators.ts';
import { Credentials } from './credentials.ts';
import { DeviceGrant } from './device-grant.ts';
import type { OperatorAuthOptions } from './operator-auth.ts';
import { OperatorMetrics } from './operator-metrics.ts';
import { OperatorAccounts } from './operators.ts';

export interface OperatorParts {
  credentials: Credentials;
  /** What every operator route's guard needs but its permission (`operatorGuards`). */
  access: Omit<OperatorAuthOptions, 'permission'>;
  deviceGrant: DeviceGrant;
  accounts: OperatorAccounts;
  metrics: OperatorMetrics;
}

/** Operators as people (issue 37): their credentials, the routes' guard, device sign-in; built once per proxy. */
export function createOperatorParts(deps: {
  config: ProxyConfig;
  store: OperatorStore;
  registry: Registry;
}): OperatorParts {
  const credentials = new Credentials(deps.store);
  const metrics = new OperatorMetrics(deps.registry);
  return {
    credentials,
    access: {
      credentials,
      publicUrl: deps.config.publicUrl,
      onRefusal: (permission) => metrics.refused(permission),
    },
    deviceGrant: new DeviceGrant(deps.store, credentials),
    accounts: new OperatorAccounts(deps.store, credentials),
    metrics,
  };
}
