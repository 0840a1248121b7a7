/**
 * What sign-in tells the audit trail and /metrics: every sign-in, failed sign-in and sign-out, and the
 * changes a person makes to their own credentials, each naming who, from where, with which request.
 */
import type { Context } from 'hono';
import type { Role } from '../../../schemas/operators.ts';
import { clientAddress } from '../../../server-kit/client-address.ts';
import type { Logger } from '../../logger.ts';
import type { OperatorMetrics } from '../operator-metrics.ts';

/** How a sign-in was made: the label of `kassa_operator_signins_total{method}`. */
export type SigninMethod = 'passkey' | 'sso' | 'setup' | 'invitation';

/** Who acted, as the audit names them (design-37.md's actor). */
export interface AuditActor {
  /** Null for a failed sign-in nobody could be named for. */
  operatorId: string | null;
  name: string;
  role: Role | null;
  via: 'web' | 'device' | 'api' | 'cli' | 'setup' | 'system';
}

/** One record of the audit trail, as proxy/operator/audit-trail.ts appends it (design-37.md). */
export interface AuditEntry {
  at: number;
  actor: AuditActor;
  action: string;
  target: { type: string; id: string } | null;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
  /** The state before and after, as JSON; never a secret. */
  before: unknown;
  after: unknown;
}

/** Appends to the audit trail; it throws when the trail cannot be written, and the action fails with it. */
export type AuditAppend = (entry: AuditEntry) => Promise<void>;

export type SigninEvent = Pick<AuditEntry, 'actor' | 'action' | 'target'> &
  Partial<Pick<AuditEntry, 'before' | 'after'>>;

export class SigninEvents {
  constructor(
    private readonly deps: {
      append: AuditAppend;
      metrics: OperatorMetrics;
      logger: Logger;
      trustProxy: boolean;
      now?: () => number;
    },
  ) {}

  /** Appends `event` to the audit trail with the request's id, address and user agent. */
  record(c: Context, event: SigninEvent): Promise<void> {
    return this.deps.append({
      at: (this.deps.now ?? Date.now)(),
      requestId: (c.get('requestId') as string | undefined) ?? null,
      ip: clientAddress(c, this.deps.trustProxy),
      userAgent: c.req.header('User-Agent')?.slice(0, 300) ?? null,
      before: null,
      after: null,
      ...event,
    });
  }

  /** A person signed in: counted, and in the trail. */
  async signedIn(
    c: Context,
    method: SigninMethod,
    operator: { operatorId: string; name: string; role: Role },
    sessionId: string,
  ): Promise<void> {
    await this.record(c, {
      actor: { operatorId: operator.operatorId, name: operator.name, role: operator.role, via: 'web' },
      action: 'signin',
      target: { type: 'credential', id: sessionId },
      after: { method },
    });
    this.deps.metrics.signin(method, 'ok');
  }

  /**
   * A sign-in refused: counted, in the trail with why (which the person is not told), and in the log.
   * A trail that cannot be written does not change the refusal.
   */
  async failed(
    c: Context,
    method: SigninMethod,
    why: string,
    operator: { operatorId: string; name: string; role: Role } | null,
  ): Promise<void> {
    this.deps.metrics.signin(method, 'refused');
    this.deps.logger.info('operator sign-in refused', { method, why, operatorId: operator?.operatorId ?? null });
    await this.record(c, {
      actor: operator
        ? { operatorId: operator.operatorId, name: operator.name, role: operator.role, via: 'web' }
        : { operatorId: null, name: 'unknown', role: null, via: 'web' },
      action: 'signin.failed',
      target: null,
      after: { method, why },
    }).catch((error: unknown) => this.deps.logger.error('audit trail not written for a failed sign-in', { error }));
  }
}
