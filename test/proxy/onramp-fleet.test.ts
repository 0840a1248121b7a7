import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Wallet } from 'ethers';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { FLEET_STORES, spawnInstance, startFleet } from '../support/fleet.ts';
import { http } from '../support/http.ts';
import { balanceOf, mintsTo, ONRAMP_ENV, onrampCustomer, ordersOf, units, type OnrampSite } from '../support/onramp.ts';
import { eventually, proxyEnvFor, SHOP_ORIGIN } from '../support/stack.ts';

/** A proxy (one process, or one instance of a fleet) as the on-ramp's customers reach it. */
function site(origin: () => string, sandbox: Sandbox): OnrampSite {
  const control = (path: string, body?: unknown, method?: string) =>
    http(`${sandbox.control}${path}`, { method: method ?? (body === undefined ? 'GET' : 'POST'), body });
  const browser = (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    http(`${origin()}${path}`, { ...init, headers: { Origin: SHOP_ORIGIN, ...init.headers } });
  return {
    sandbox,
    control,
    browser,
    pay: (checkoutId: string) =>
      browser('/api/payments', { body: { checkoutId }, headers: { 'Idempotency-Key': `key-${checkoutId}` } }),
  };
}

describe('proxy: a purchase survives a crash between its payment and its mint order', () => {
  let sandbox: Sandbox;
  let dir: string;
  before(async () => {
    sandbox = await startSandbox({ settlementDelayMs: 0, mintDelayMs: 0 });
    dir = mkdtempSync(join(tmpdir(), 'kassa-onramp-crash-'));
  });
  after(async () => {
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kill -9 while the order is being made: the restarted proxy finds that order, and mints once', async () => {
    const env = {
      ...proxyEnvFor(sandbox, join(dir, 'kassa.db')),
      ...ONRAMP_ENV,
      KASSA_RATE_LIMIT: '0',
      KASSA_CREATE_RATE_LIMIT: '0',
      KASSA_UPSTREAM_TIMEOUT_MS: '60000',
    };
    const lines: string[] = [];
    let instance = await spawnInstance(env, lines);
    await http(`${sandbox.control}/keys/${sandbox.keyId}`, {
      method: 'PATCH',
      body: { webhookUrl: `${instance.origin}/hooks/payments/${env.KASSA_WEBHOOK_SECRET}` },
    });
    // The order service makes the order, and its answer never comes back to this instance.
    await http(`${sandbox.control}/faults`, {
      body: { service: 'orders', kind: 'slow', stage: 'after', path: '/orders', delayMs: 60_000, times: 1 },
    });
    const wallet = Wallet.createRandom();
    const customer = onrampCustomer(
      site(() => instance.origin, sandbox),
      wallet,
    );
    try {
      const { purchaseToken, purchaseId } = await customer.buyAndPay({ amount: '15' });
      // The order service counts the create when it has made the order: the answer is what is held back.
      // (Reading the orders here would take the held answer's place: the fault is on /orders.)
      await eventually(
        async () =>
          ((await http(`${sandbox.control}/metrics`)).body['orders.create'] as number) >= 1 ? true : undefined,
        'the order made upstream',
      );
      await instance.crash!();
      await http(`${sandbox.control}/faults`, { method: 'DELETE' });
      instance = await spawnInstance(env, lines);
      // The killed instance's lease on the purchase (30 s) runs out before the new one may take it over.
      await customer.until(purchaseToken, 'delivered');
      assert.equal((await ordersOf({ sandbox }, purchaseId)).length, 1, 'one order');
      assert.equal((await mintsTo({ sandbox }, 31338, 'eEUR', wallet.address)).length, 1, 'one mint');
      assert.equal(await balanceOf({ sandbox }, 31338, 'eEUR', wallet.address), units('15'));
    } finally {
      await instance.stop();
    }
  });
});

for (const { store, name } of FLEET_STORES)
  describe(`proxy: three instances on ${name} race for the same purchases`, () => {
    it('each paid purchase gets one order and one mint, whichever instance saw what', async () => {
      const sandbox = await startSandbox({ settlementDelayMs: 0, mintDelayMs: 0 });
      const fleet = await startFleet({ instances: 3, sandbox, env: ONRAMP_ENV, proxy: { onrampSweepMs: 100 }, store });
      try {
        const wallets = Array.from({ length: 6 }, () => Wallet.createRandom());
        const bought = await Promise.all(
          wallets.map((wallet, index) =>
            onrampCustomer(
              site(() => fleet.origin(index % 3), sandbox),
              wallet,
            ).buyAndPay({ amount: '5' }),
          ),
        );
        // Every instance is woken for every payment (the status bus) and sweeps every 100 ms.
        await Promise.all(
          bought.map(({ purchaseToken }, index) =>
            onrampCustomer(
              site(() => fleet.origin((index + 1) % 3), sandbox),
              wallets[index]!,
            ).until(purchaseToken, 'delivered'),
          ),
        );
        for (const [index, { purchaseId }] of bought.entries()) {
          assert.equal((await ordersOf({ sandbox }, purchaseId)).length, 1, `one order for ${purchaseId}`);
          assert.equal((await mintsTo({ sandbox }, 31338, 'eEUR', wallets[index]!.address)).length, 1, 'one mint');
        }
      } finally {
        await fleet.stop();
        await sandbox.stop();
      }
    });
  });
