import type { KyInstance } from 'ky';
import {
  initiateRequestSchema,
  initiateResponseSchema,
  paymentRecordSchema,
  type Environment,
  type InitiateRequestInput,
  type InitiateResponse,
  type PaymentRecord,
} from '../../schemas/pay.ts';
import type { RateBudget } from '../coordination/coordination.ts';
import { takeBudget, type BudgetWait } from './budget-gate.ts';
import { callReporting, expectOk, type UpstreamResponse } from './http-call.ts';
import { READ_RETRIES, withRetries, type RetryPolicy } from './retry.ts';
import type { TokenManager } from './token-manager.ts';
import { UpstreamError } from './upstream-error.ts';
import type { UpstreamHealth } from './upstream-health.ts';

export interface PayClientOptions {
  api: KyInstance;
  tokens: TokenManager;
  budget: RateBudget;
  health: UpstreamHealth;
}

/**
 * Initiate is retried only because Kassa's own idempotency stands in front of it: a retry can at worst
 * leave an orphaned PENDING payment upstream whose flowUrl no customer ever receives, so no money can
 * move twice (docs/proxy.md, "Payments that never started").
 */
const INITIATE_RETRIES: RetryPolicy = { attempts: 3, baseDelayMs: 300, maxDelayMs: 2_000, deadlineMs: 12_000 };
const FOREGROUND: BudgetWait = { maxWaitMs: 5_000 };
/** Background reads (following pending payments) leave a fifth of the budget to new payments. */
const BACKGROUND: BudgetWait = { maxWaitMs: 0, reserve: 20 };

/** The payment initiation service, inside its limits: budgets, tokens, retries, timeouts. */
export class PayClient {
  constructor(private readonly options: PayClientOptions) {}

  async initiate(request: InitiateRequestInput): Promise<{ payment: InitiateResponse; environment: Environment }> {
    const body = initiateRequestSchema.parse(request);
    return withRetries(async () => {
      const { response, environment } = await this.authorized('post', 'v1/payments/initiate', FOREGROUND, body);
      return { payment: this.expect(response, initiateResponseSchema, 'initiate'), environment };
    }, INITIATE_RETRIES);
  }

  /** The payment's record, or null when the service does not know it (404). */
  async read(transactionId: string, mode: 'foreground' | 'background' = 'foreground'): Promise<PaymentRecord | null> {
    const policy = mode === 'foreground' ? READ_RETRIES : { ...READ_RETRIES, attempts: 1 };
    return withRetries(async () => {
      const { response } = await this.authorized(
        'get',
        `v1/payments/${encodeURIComponent(transactionId)}`,
        mode === 'foreground' ? FOREGROUND : BACKGROUND,
      );
      if (response.status === 404) return null;
      return this.expect(response, paymentRecordSchema, 'read');
    }, policy);
  }

  /** One request with a valid token; a 401 gets one fresh token exchange and one more try. */
  private async authorized(
    method: 'get' | 'post',
    path: string,
    wait: BudgetWait,
    json?: unknown,
  ): Promise<{ response: UpstreamResponse; environment: Environment }> {
    const { tokens, budget, health, api } = this.options;
    for (let attempt = 0; ; attempt++) {
      const token = await tokens.token();
      await takeBudget(budget, 'pay', wait);
      const response = await callReporting(health, api, 'pay', method, path, {
        json,
        headers: { Authorization: `Bearer ${token.accessToken}` },
      });
      if (response.status === 401 && attempt === 0) {
        await tokens.invalidate(token.accessToken);
        continue;
      }
      return { response, environment: token.environment };
    }
  }

  private expect<T>(response: UpstreamResponse, schema: Parameters<typeof expectOk<T>>[2], operation: string): T {
    try {
      return expectOk('pay', response, schema, this.options.health, operation);
    } catch (error) {
      // The service says to slow down: the whole budget waits, not just this request.
      if (error instanceof UpstreamError && error.failure === 'rate_limited')
        void this.options.budget.pause(error.details.retryAfterMs ?? 5_000).catch(() => undefined);
      throw error;
    }
  }
}
