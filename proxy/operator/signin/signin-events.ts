/**
 * What sign-in tells the audit trail (audit-trail.ts) and /metrics: every sign-in, failed sign-in and
 * sign-out, and the accounts sign-in makes or changes, each naming who, from where, with which request.
 */
import type { Context } from 'hono';
import type { Role } from '../../../schemas/operators.ts';
import type { Logger } from '../../logger.ts';
import { personActor, type AuditActor, type AuditContext, type AuditDetails, type AuditTrail } from '../audit-trail.ts';
import { auditContextOf } from '../dual-control.ts';
import type { OperatorMetrics } from '../operator-metrics.ts';
import type { OperatorEnv } from '../operator-auth.ts';
import type { Acting } from '../operators.ts';

/** How a sign-in was made: the label of `kassa_operator_signins_total{method}`. */
export type SigninMethod = 'passkey' | 'sso' | 'setup' | 'invitation';

/** Who signs in, as the trail names them. */
type Person = { operatorId: string; name: string; role: Role };

/** The proxy itself acting at a sign-in (an account the company's provider vouched for, made or changed). */
export const SSO_ACTOR: AuditActor = { operatorId: null, name: 'sso', role: null, via: 'system' };

export class SigninEvents {
  constructor(
    private readonly deps: { audit: AuditTrail; metrics: OperatorMetrics; logger: Logger; trustProxy: boolean },
  ) {}

  /** The request's id, address and user agent, for its records. */
  context(c: Context<OperatorEnv>): AuditContext {
    return auditContextOf(c, this.deps.trustProxy);
  }

  /** Who acts in this request, for the accounts' own audited changes. */
  acting(c: Context<OperatorEnv>, actor: AuditActor): Acting {
    return { actor, context: this.context(c) };
  }

  /** Appends what `actor` did in this request to the audit trail. */
  async record(c: Context<OperatorEnv>, actor: AuditActor, action: string, details: AuditDetails = {}): Promise<void> {
    await this.deps.audit.record(actor, action, this.context(c), details);
  }

  /** A person signed in: in the trail (with the session made), and counted. */
  async signedIn(c: Context<OperatorEnv>, method: SigninMethod, person: Person, sessionId: string): Promise<void> {
    await this.record(c, personActor(person, 'web'), 'signin', {
      target: { type: 'credential', id: sessionId },
      after: { method },
    });
    this.deps.metrics.signin(method, 'ok');
  }

  /**
   * A sign-in refused: counted, in the trail with why (which the person is not told) and in the log.
   * A trail that cannot be written does not change the refusal.
   */
  async failed(c: Context<OperatorEnv>, method: SigninMethod, why: string, person: Person | null): Promise<void> {
    this.deps.metrics.signin(method, 'refused');
    this.deps.logger.info('operator sign-in refused', { method, why, operatorId: person?.operatorId ?? null });
    const actor: AuditActor = person
      ? personActor(person, 'web')
      : { operatorId: null, name: 'unknown', role: null, via: 'web' };
    await this.record(c, actor, 'signin.failed', { after: { method, why } }).catch((error: unknown) =>
      this.deps.logger.error('audit trail not written for a failed sign-in', { error }),
    );
  }
}
