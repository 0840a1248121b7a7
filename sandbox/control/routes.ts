import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import {
  clockRequestSchema,
  createKeyRequestSchema,
  expireSecretRequestSchema,
  faultRequestSchema,
  freezeRequestSchema,
  outcomeRequestSchema,
  patchKeyRequestSchema,
} from '../../schemas/sandbox.ts';
import type { SandboxClock } from '../clock.ts';
import type { FaultBook } from '../faults.ts';
import type { Metrics } from '../metrics.ts';
import type { AccountState } from '../pay/account-state.ts';
import type { KeyRegistry, ApiKey } from '../pay/key-registry.ts';
import { PaymentStateError, type PaymentLedger } from '../pay/payment-ledger.ts';
import type { WebhookSender } from '../pay/webhook-sender.ts';

export interface ControlDeps {
  clock: SandboxClock;
  keys: KeyRegistry;
  account: AccountState;
  ledger: PaymentLedger;
  webhooks: WebhookSender;
  faults: FaultBook;
  metrics: Metrics;
  orderApiKeys: Set<string>;
}

/** Stands in for the upstream dashboards and stages test scenarios (docs/upstream.md, "Control API"). */
export function controlApi(deps: ControlDeps): Hono {
  const app = new Hono();
  const bad = (c: Context, error: string) => c.json({ error }, 400);

  const withKey = (handler: (c: Context, key: ApiKey) => Response | Promise<Response>) => (c: Context) => {
    const key = deps.keys.get(c.req.param('keyId') ?? '');
    return key ? handler(c, key) : c.json({ error: 'Key not found' }, 404);
  };

  app.get('/keys', (c) => c.json(deps.keys.list().map((key) => deps.keys.summary(key))));

  app.post('/keys', async (c) => {
    const parsed = await parseJsonBody(c, createKeyRequestSchema);
    if (!parsed.ok) return bad(c, parsed.error);
    const { key, clientSecret } = deps.keys.create(parsed.data);
    return c.json({ keyId: key.keyId, clientSecret, environment: key.environment, active: key.active }, 201);
  });

  app.get(
    '/keys/:keyId',
    withKey((c, key) => c.json(deps.keys.summary(key))),
  );

  app.patch(
    '/keys/:keyId',
    withKey(async (c, key) => {
      const parsed = await parseJsonBody(c, patchKeyRequestSchema);
      if (!parsed.ok) return bad(c, parsed.error);
      const change = parsed.data;
      if (change.destination !== undefined && key.environment === 'live') {
        return bad(
          c,
          'destination cannot be changed on a live key: create a new key for the new destination and revoke this one',
        );
      }
      if (change.webhookUrl !== undefined) key.webhookUrl = change.webhookUrl;
      if (change.name !== undefined) key.name = change.name;
      if (change.description !== undefined) key.description = change.description;
      if (change.destination !== undefined) key.destination = change.destination;
      if (change.expiresAt !== undefined)
        key.expiresAt = change.expiresAt === null ? null : Date.parse(change.expiresAt);
      return c.json(deps.keys.summary(key));
    }),
  );

  app.post(
    '/keys/:keyId/rotate',
    withKey((c, key) => c.json({ clientSecret: deps.keys.rotate(key) })),
  );

  app.post(
    '/keys/:keyId/expire-secret',
    withKey(async (c, key) => {
      const parsed = await parseJsonBody(c, expireSecretRequestSchema);
      if (!parsed.ok) return bad(c, parsed.error);
      if (!deps.keys.owns(key, parsed.data.clientSecret)) return bad(c, 'clientSecret is not a secret of this key');
      if (key.secretHashes.size === 1) return bad(c, "That is the key's only secret: rotate first, or revoke the key");
      deps.keys.expireSecret(key, parsed.data.clientSecret);
      return c.json(deps.keys.summary(key));
    }),
  );

  app.post(
    '/keys/:keyId/revoke',
    withKey((c, key) => {
      key.revoked = true;
      return c.json(deps.keys.summary(key));
    }),
  );

  app.post(
    '/keys/:keyId/approve',
    withKey((c, key) => {
      if (key.revoked) return bad(c, 'A revoked key cannot be approved');
      key.active = true;
      return c.json(deps.keys.summary(key));
    }),
  );

  app.post('/account/freeze', async (c) => {
    const parsed = await parseJsonBody(c, freezeRequestSchema);
    if (!parsed.ok) return bad(c, parsed.error);
    deps.account.setFrozen(parsed.data.reason);
    return c.json({ frozen: deps.account.frozen });
  });

  app.post('/account/unfreeze', (c) => {
    deps.account.unfreeze();
    return c.json({ frozen: null });
  });

  /** Makes a move on a payment and answers its record; 404 for unknown ids, 409 when it cannot move. */
  const paymentMove = (c: Context, move: (transactionId: string) => void) => {
    const transactionId = c.req.param('transactionId') ?? '';
    try {
      move(transactionId);
    } catch (error) {
      if (error instanceof PaymentStateError) return c.json({ error: error.message }, error.status);
      throw error;
    }
    return c.json(deps.ledger.read(transactionId));
  };

  app.post('/payments/:transactionId/outcome', async (c) => {
    const parsed = await parseJsonBody(c, outcomeRequestSchema);
    if (!parsed.ok) return bad(c, parsed.error);
    const { status, networkStatus, providerId } = parsed.data;
    return paymentMove(c, (transactionId) =>
      deps.ledger.settle(transactionId, {
        status,
        networkStatus: networkStatus ?? (status === 'COMPLETED' ? 'PAYMENT_EXECUTED_CREDITED' : 'REJECTED'),
        providerId: providerId ?? (deps.ledger.read(transactionId)?.providerId ? undefined : 'bank_xyz'),
      }),
    );
  });

  app.post('/payments/:transactionId/hold', (c) => paymentMove(c, (id) => deps.ledger.hold(id)));
  app.post('/payments/:transactionId/release', (c) => paymentMove(c, (id) => deps.ledger.release(id)));

  app.get('/webhooks', (c) => c.json(deps.webhooks.log(c.req.query('transactionId'))));

  app.get('/faults', (c) => c.json(deps.faults.list()));
  app.post('/faults', async (c) => {
    const parsed = await parseJsonBody(c, faultRequestSchema);
    if (!parsed.ok) return bad(c, parsed.error);
    return c.json(deps.faults.add(parsed.data), 201);
  });
  app.delete('/faults', (c) => {
    deps.faults.clear();
    return c.json({ cleared: true });
  });

  app.post('/order-keys', (c) => {
    const apiKey = `ok_${randomBytes(20).toString('base64url')}`;
    deps.orderApiKeys.add(apiKey);
    return c.json({ apiKey }, 201);
  });

  app.post('/clock', async (c) => {
    const parsed = await parseJsonBody(c, clockRequestSchema);
    if (!parsed.ok) return bad(c, parsed.error);
    deps.clock.advance(parsed.data.advanceSeconds * 1000);
    return c.json({ now: deps.clock.iso() });
  });

  app.get('/metrics', (c) => c.json(deps.metrics.snapshot()));
  app.delete('/metrics', (c) => {
    deps.metrics.reset();
    return c.json({ reset: true });
  });

  return app;
}
