import { Hono } from 'hono';
import { isRecord, parseJsonBody, readJsonBody } from '../../server-kit/json-body.ts';
import { initiateRequestSchema, type TokenError } from '../../schemas/pay.ts';
import type { SandboxClock } from '../clock.ts';
import type { Metrics } from '../metrics.ts';
import { clientAddress } from '../../server-kit/client-address.ts';
import { SlidingWindowLimiter } from '../../server-kit/sliding-window.ts';
import type { AccessTokens } from './access-tokens.ts';
import type { AccountState } from './account-state.ts';
import type { KeyRegistry } from './key-registry.ts';
import type { PaymentLedger } from './payment-ledger.ts';

export interface PayApiDeps {
  clock: SandboxClock;
  keys: KeyRegistry;
  account: AccountState;
  tokens: AccessTokens;
  ledger: PaymentLedger;
  metrics: Metrics;
  /** The payment endpoints' limit per key and minute: the seed's 100 unless a benchmark raises it. */
  paymentsPerMinute?: number | undefined;
  /** Take a redirectUrl of plain http to a private-network address too (--allow-private-http). */
  allowPrivateHttp?: boolean | undefined;
}

const INVALID_CLIENT: TokenError = { error: 'invalid_client', error_description: 'Invalid client credentials' };

/** `/v1/auth/token` and the payment endpoints, with the limits the seed states. */
export function payApi(deps: PayApiDeps): Hono<{ Variables: { keyId: string } }> {
  const app = new Hono<{ Variables: { keyId: string } }>();
  const tokenLimit = new SlidingWindowLimiter(10, 60_000, () => deps.clock.now());
  const paymentLimit = new SlidingWindowLimiter(deps.paymentsPerMinute ?? 100, 60_000, () => deps.clock.now());

  app.post('/v1/auth/token', async (c) => {
    deps.metrics.count('pay.token');
    const body = await readJsonBody(c);
    if (!body.ok) return c.json<TokenError>({ error: 'invalid_request', error_description: body.error }, 400);
    const fields = isRecord(body.value) ? body.value : {};
    const secret = typeof fields.client_secret === 'string' ? fields.client_secret : '';
    const lookup = secret ? deps.keys.bySecret(secret) : ({ ok: false, reason: 'unknown' } as const);
    // Known keys are limited per key; anything else per caller address, so guessing is limited too.
    const bucket = lookup.ok ? lookup.key.keyId : `address:${clientAddress(c)}`;
    const limit = tokenLimit.take(bucket);
    if (!limit.allowed) {
      c.header('Retry-After', String(limit.retryAfterSeconds));
      return c.json<TokenError>(
        { error: 'rate_limit_exceeded', error_description: 'Too many token requests: at most 10 per minute' },
        429,
      );
    }
    if (!isRecord(body.value))
      return c.json<TokenError>(
        { error: 'invalid_request', error_description: 'Request body must be a JSON object' },
        400,
      );
    if (fields.grant_type !== 'client_credentials') {
      return c.json<TokenError>(
        { error: 'unsupported_grant_type', error_description: "Only 'client_credentials' grant type is supported" },
        400,
      );
    }
    if (!lookup.ok) return c.json(INVALID_CLIENT, 401);
    const frozen = deps.account.frozen;
    if (frozen) {
      return c.json<TokenError>(
        {
          error: 'account_frozen',
          error_description: 'The account is frozen',
          freeze_reason: frozen.reason,
          frozen_at: frozen.at,
        },
        403,
      );
    }
    return c.json({
      access_token: await deps.tokens.issue(lookup.key),
      token_type: 'Bearer',
      expires_in: deps.tokens.lifetime,
      environment: lookup.key.environment,
    });
  });

  app.use('/v1/payments/*', async (c, next) => {
    const header = c.req.header('Authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) return c.json({ error: 'Missing bearer token: send Authorization: Bearer <access token>' }, 401);
    const verified = await deps.tokens.verify(match[1]!);
    if (!verified.ok) return c.json({ error: verified.error }, 401);
    const key = deps.keys.get(verified.keyId);
    const usable = key ? deps.keys.usable(key) : undefined;
    if (!usable?.ok) return c.json({ error: 'API key is no longer active' }, 401);
    const limit = paymentLimit.take(verified.keyId);
    if (!limit.allowed) {
      c.header('Retry-After', String(limit.retryAfterSeconds));
      return c.json({ error: 'Rate limit exceeded: at most 100 payment requests per minute' }, 429);
    }
    c.set('keyId', verified.keyId);
    await next();
  });

  app.post('/v1/payments/initiate', async (c) => {
    deps.metrics.count('pay.initiate');
    const parsed = await parseJsonBody(c, initiateRequestSchema(deps.allowPrivateHttp));
    if (!parsed.ok) return c.json({ error: parsed.error }, 400);
    return c.json(deps.ledger.initiate(c.get('keyId'), parsed.data), 201);
  });

  app.get('/v1/payments/:transactionId', (c) => {
    deps.metrics.count('pay.read');
    const record = deps.ledger.read(c.req.param('transactionId'), c.get('keyId'));
    if (!record) return c.json({ error: 'Payment not found' }, 404);
    return c.json(record);
  });

  return app;
}
