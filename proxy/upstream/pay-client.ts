import { decimalToNumber } from '../../lib/money.ts';
import {
  initiateRequestSchema,
  initiateResponseSchema,
  paymentRecordSchema,
  type Environment,
  type InitiateRequestInput,
  type InitiateResponse,
  type PaymentRecord,
} from '../../schemas/pay.ts';
import type { RateBudget } from '../state/coordination.ts';
import { checkAnswer, type MismatchReport } from './answer-check.ts';
import { takeBudget, type BudgetWait } from './budget-gate.ts';
import { callReporting, expectOk, type UpstreamApi, type UpstreamResponse } from './http-call.ts';
import { withRetries, type RetryPolicy } from './retry.ts';
import type { TokenManager } from './token-manager.ts';
import { UpstreamError } from './upstream-error.ts';
import type { UpstreamHealth } from './upstream-health.ts';

export interface PayClientOptions {
  api: UpstreamApi;
  tokens: TokenManager;
  budget: RateBudget;
  health: UpstreamHealth;
  /** Told of every answer that is not about the payment asked for. */
  onMismatch: MismatchReport;
  /**
   * Send a redirectUrl of plain http to a private-network address too (KASSA_ALLOW_PRIVATE_HTTP), while
   * the service's token says sandbox.
   */
  allowPrivateHttp?: boolean;
}

/** What Kassa knows of a payment it reads: the service's answer must agree with all of it. */
export type KnownPayment = { transactionId: string; amount: string; currencyCode: string; reference: string };

/** Why a payment is read: a webhook's hint goes before the routine reads of watchers and the follower. */
export type ReadPriority = 'hint' | 'routine';

/** Filled in by `initiate`: whether a request left Kassa whose payment may exist upstream though it failed. */
export interface InitiateTrace {
  orphanPossible: boolean;
}

/**
 * Initiate is retried only because Kassa's own idempotency stands in front of it: a retry can at worst
 * leave an orphaned PENDING payment upstream whose flowUrl no customer ever receives, so no money can
 * move twice (docs/proxy.md, "Payments that never started").
 */
const INITIATE_RETRIES: RetryPolicy = { attempts: 3, baseDelayMs: 300, maxDelayMs: 2_000, deadlineMs: 12_000 };
const NEW_PAYMENT: BudgetWait = { maxWaitMs: 5_000 };
/**
 * Reads never queue for the budget, and always leave a share of it to new payments. Those prompted by
 * webhooks (a payment's news, at most one per payment per 5 s) may use 90 % of a minute's requests: a
 * customer who has paid is not kept waiting for the shop's next customers. Those of watchers and the
 * follower (a fallback for lost webhooks) may use 40 %, so that new payments keep 60 % however many
 * customers watch, and a tenth under any storm of webhooks.
 */
const READS: Record<ReadPriority, BudgetWait> = {
  hint: { maxWaitMs: 0, reserveShare: 0.1 },
  routine: { maxWaitMs: 0, reserveShare: 0.6 },
};

/** The payment initiation service, inside its limits: budgets, tokens, retries, timeouts. */
export class PayClient {
  constructor(private readonly options: PayClientOptions) {}

  async initiate(
    request: InitiateRequestInput,
    trace: InitiateTrace = { orphanPossible: false },
  ): Promise<{ payment: InitiateResponse; environment: Environment }> {
    // KASSA_ALLOW_PRIVATE_HTTP is a sandbox's: credentials the service calls live keep the real rule.
    const privateHttp =
      this.options.allowPrivateHttp === true && (await this.options.tokens.token()).environment === 'sandbox';
    const body = initiateRequestSchema(privateHttp).parse(request);
    return withRetries(async () => {
      const { response, environment } = await this.authorized('post', 'v1/payments/initiate', NEW_PAYMENT, body, trace);
      try {
        const payment = this.expect(response, initiateResponseSchema, 'initiate');
        const { amount, currencyCode, reference } = body;
        checkAnswer('pay', 'initiate', { amount, currencyCode, reference }, payment, this.options.onMismatch);
        return { payment, environment };
      } catch (error) {
        // A 2xx that cannot be used: the service made a payment all the same.
        if (response.status < 300) trace.orphanPossible = true;
        throw error;
      }
    }, INITIATE_RETRIES);
  }

  /**
   * The payment's record, or null when the service does not know it (404). One request, never
   * retried here: whoever asked (a webhook, a watcher, the follower) asks again later, through the
   * per-payment read gate. The answer must be the payment asked for, with its amount, currency and
   * reference, or it is refused (UpstreamMismatchError).
   */
  async read(payment: KnownPayment, priority: ReadPriority): Promise<PaymentRecord | null> {
    const { transactionId, amount, currencyCode, reference } = payment;
    const { response } = await this.authorized(
      'get',
      `v1/payments/${encodeURIComponent(transactionId)}`,
      READS[priority],
    );
    if (response.status === 404) return null;
    const record = this.expect(response, paymentRecordSchema, 'read');
    checkAnswer(
      'pay',
      'read',
      { transactionId, amount: decimalToNumber(amount), currencyCode, reference },
      record,
      this.options.onMismatch,
    );
    return record;
  }

  /** One request with a valid token; a 401 gets one fresh token exchange and one more try. */
  private async authorized(
    method: 'get' | 'post',
    path: string,
    wait: BudgetWait,
    json?: unknown,
    trace?: InitiateTrace,
  ): Promise<{ response: UpstreamResponse; environment: Environment }> {
    const { tokens, budget, health, api } = this.options;
    for (let attempt = 0; ; attempt++) {
      const token = await tokens.token();
      await takeBudget(budget, 'pay', wait);
      let response: UpstreamResponse;
      try {
        response = await callReporting(health, api, 'pay', method, path, {
          json,
          headers: { Authorization: `Bearer ${token.accessToken}` },
        });
      } catch (error) {
        // The request left, and its answer was lost: it may have been processed.
        if (trace && (error as UpstreamError).details?.requestSent !== false) trace.orphanPossible = true;
        throw error;
      }
      if (trace && response.status >= 500) trace.orphanPossible = true;
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
