import type { ProxyConfig } from '../../config.ts';
import type { Logger } from '../../logger.ts';
import type { Store } from '../../state/store.ts';
import type { OperatorParts } from '../operator-parts.ts';
import { Ceremonies } from './ceremonies.ts';
import { OidcClient } from './oidc.ts';
import { PasskeyEnrolment } from './passkey-enrolment.ts';
import { PasskeySignin } from './passkey-signin.ts';
import { Passkeys } from './passkeys.ts';
import { SigninEvents } from './signin-events.ts';
import { SigninLimits } from './signin-limits.ts';
import { SsoAccounts } from './sso-accounts.ts';
import { SsoSignin } from './sso-signin.ts';
import { WebSessions } from './web-session.ts';

export interface SigninParts {
  sessions: WebSessions;
  passkeys: PasskeySignin;
  enrolment: PasskeyEnrolment;
  /** Null unless the company's OpenID Connect provider is set up (KASSA_OIDC_ISSUER). */
  sso: SsoSignin | null;
  events: SigninEvents;
  limits: SigninLimits;
}

/** The operators' sign-in (issue 37): passkeys, the company's provider, the web session; built once per proxy. */
export function createSigninParts(deps: {
  config: ProxyConfig;
  store: Store;
  operators: OperatorParts;
  logger: Logger;
}): SigninParts {
  const { config, store, operators, logger } = deps;
  const ceremonies = new Ceremonies(store.operators.ceremonies);
  const passkeys = new Passkeys(store.operators, ceremonies);
  const limits = new SigninLimits();
  const sessions = new WebSessions(operators.credentials, store.operators, config.trustProxy);
  const events = new SigninEvents({
    audit: operators.audit,
    metrics: operators.metrics,
    logger,
    trustProxy: config.trustProxy,
  });
  return {
    sessions,
    passkeys: new PasskeySignin({
      store: store.operators,
      passkeys,
      limits,
      sessions,
      events,
      trustProxy: config.trustProxy,
    }),
    enrolment: new PasskeyEnrolment({
      store: store.operators,
      passkeys,
      accounts: operators.accounts,
      sessions,
      events,
    }),
    sso: config.oidc
      ? new SsoSignin({
          oidc: new OidcClient(config.oidc, config.upstreamTimeoutMs),
          accounts: new SsoAccounts(config.oidc, store.operators, operators.accounts),
          ceremonies,
          sessions,
          events,
          limits,
          trustProxy: config.trustProxy,
        })
      : null,
    events,
    limits,
  };
}
