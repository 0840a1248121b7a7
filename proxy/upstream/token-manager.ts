import { tokenErrorSchema, tokenResponseSchema, type Environment } from '../../schemas/pay.ts';
import type { CachedToken, RateBudget, TokenStore } from '../state/coordination.ts';
import type { Logger } from '../logger.ts';
import { takeBudget } from './budget-gate.ts';
import { callUpstream, type UpstreamApi } from './http-call.ts';
import { retryAfterMs, UpstreamError } from './upstream-error.ts';
import type { UpstreamHealth } from './upstream-health.ts';

export interface TokenManagerOptions {
  api: UpstreamApi;
  /** The client secret, then optionally the next one (rotation without downtime). */
  secrets: readonly string[];
  store: TokenStore;
  budget: RateBudget;
  health: UpstreamHealth;
  logger: Logger;
  /** Renew this long before expiry (5 minutes by default, at most half the lifetime). */
  marginMs?: number;
  /** How long an exchange may queue for the token budget. */
  maxWaitMs?: number;
  /** After a refusal, do not ask again for this long (30 s by default). */
  refusalHoldMs?: number;
}

/**
 * Access tokens for the payment service: one exchange in flight at a time, the token cached for its
 * lifetime minus a margin, a fresh exchange when the service answers 401. Refusals (invalid_client,
 * account_frozen) are reported to the operator through health and logs, and held for a while so
 * that a stream of customers cannot spend the 10-a-minute token budget on a known answer.
 */
export class TokenManager {
  private refusal: { until: number; error: UpstreamError } | undefined;

  constructor(private readonly options: TokenManagerOptions) {}

  /** The environment the credentials belong to: from the last token, else from the secret's prefix. */
  async environment(): Promise<Environment> {
    const cached = await this.options.store.get();
    if (cached) return cached.environment;
    return this.options.secrets[0]!.startsWith('cs_live_') ? 'live' : 'sandbox';
  }

  async token(): Promise<CachedToken> {
    const fresh = await this.fresh();
    if (fresh) return fresh;
    return this.options.store.exclusive(async () => (await this.fresh()) ?? this.exchange());
  }

  /** The service refused this token (401): forget it, so the next call exchanges again. */
  async invalidate(accessToken: string): Promise<void> {
    await this.options.store.clear(accessToken);
  }

  private async fresh(): Promise<CachedToken | undefined> {
    const cached = await this.options.store.get();
    return cached && cached.refreshAt > Date.now() ? cached : undefined;
  }

  private async exchange(): Promise<CachedToken> {
    if (this.refusal && Date.now() < this.refusal.until) throw this.refusal.error;
    const { secrets, health, logger } = this.options;
    for (const [index, secret] of secrets.entries()) {
      const which = index === 0 ? 'KASSA_PAY_CLIENT_SECRET' : 'KASSA_PAY_CLIENT_SECRET_NEXT';
      await takeBudget(this.options.budget, 'pay', { maxWaitMs: this.options.maxWaitMs ?? 10_000 });
      let response;
      try {
        response = await callUpstream(this.options.api, 'pay', 'post', 'v1/auth/token', {
          json: { grant_type: 'client_credentials', client_secret: secret },
        });
      } catch (error) {
        health.report('pay', 'unreachable', (error as Error).message);
        throw error;
      }
      if (response.status === 200) {
        const parsed = tokenResponseSchema.safeParse(response.body);
        if (!parsed.success) {
          health.report('pay', 'unreachable', 'token endpoint sent an unexpected answer');
          throw new UpstreamError('pay', 'unavailable', 'The payment service sent an unexpected token answer');
        }
        const lifetimeMs = parsed.data.expires_in * 1000;
        const margin = Math.min(this.options.marginMs ?? 5 * 60_000, lifetimeMs / 2);
        const token: CachedToken = {
          accessToken: parsed.data.access_token,
          environment: parsed.data.environment,
          refreshAt: Date.now() + lifetimeMs - margin,
        };
        await this.options.store.set(token);
        if (index > 0)
          logger.warn('payment service refuses KASSA_PAY_CLIENT_SECRET; using KASSA_PAY_CLIENT_SECRET_NEXT', {
            setting: which,
          });
        health.report('pay', 'ok', null, { environment: token.environment });
        this.refusal = undefined;
        return token;
      }
      const error = tokenErrorSchema.safeParse(response.body);
      const code = error.success ? error.data.error : undefined;
      if (response.status === 429) {
        const wait = retryAfterMs(response.headers.get('retry-after')) ?? 60_000;
        await this.options.budget.pause(wait);
        throw new UpstreamError('pay', 'rate_limited', 'The payment service limits token requests right now', {
          status: 429,
          retryAfterMs: wait,
        });
      }
      if (code === 'invalid_client') {
        logger.error('payment service refuses the client secret (invalid_client)', { setting: which });
        continue;
      }
      if (code === 'account_frozen' && error.success) {
        const { freeze_reason: freezeReason = null, frozen_at: frozenAt = null } = error.data;
        health.report('pay', 'account_frozen', error.data.error_description ?? 'account frozen', {
          freezeReason,
          frozenAt,
        });
        throw this.hold(
          new UpstreamError('pay', 'credentials', 'The payment account is frozen', {
            status: response.status,
            upstreamMessage: freezeReason ?? undefined,
          }),
        );
      }
      if (response.status >= 500) {
        health.report('pay', 'unreachable', `token endpoint answered ${response.status}`);
        throw new UpstreamError('pay', 'unavailable', 'The payment service failed to issue a token', {
          status: response.status,
        });
      }
      health.report('pay', 'rejected', `token endpoint answered ${response.status} ${code ?? ''}`.trim());
      throw this.hold(
        new UpstreamError('pay', 'credentials', 'The payment service refused the token request', {
          status: response.status,
          upstreamMessage: code,
        }),
      );
    }
    health.report('pay', 'invalid_client', 'every configured client secret is refused (invalid_client)');
    throw this.hold(
      new UpstreamError('pay', 'credentials', 'The payment service refuses the client secret', {
        status: 401,
        upstreamMessage: 'invalid_client',
      }),
    );
  }

  private hold(error: UpstreamError): UpstreamError {
    this.refusal = { until: Date.now() + (this.options.refusalHoldMs ?? 30_000), error };
    return error;
  }
}
