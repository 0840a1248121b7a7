import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Contract, hashMessage, id, parseUnits, Wallet, type EventLog } from 'ethers';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { anvilAccount, chainProviders, token, waitUntil } from '../support/chains.ts';
import { sandboxClient } from '../support/sandbox-client.ts';

const MINT_DELAY_MS = 1_000;
const EIP1271_MAGIC = '0x1626ba7e';

describe('sandbox: the issuer processes the orders a merchant submits', () => {
  let sandbox: Sandbox;
  let client: ReturnType<typeof sandboxClient>;
  let providers: ReturnType<typeof chainProviders>;

  before(async () => {
    sandbox = await startSandbox({ mintDelayMs: MINT_DELAY_MS });
    client = sandboxClient(sandbox);
    providers = chainProviders(sandbox.chains);
  });
  after(async () => {
    providers.destroy();
    await sandbox.stop();
  });

  let serial = 0;
  const submit = async (wallet: string, amount = '25') => {
    const response = await client.orders('orders', {
      body: {
        customerName: 'On-ramp customer',
        chainId: 31338,
        amount,
        mintWallet: wallet,
        customerOrder: `issuer-${++serial}-${Date.now()}`,
        stableCoin: 'eEUR',
      },
    });
    assert.equal(response.status, 201, response.text);
    return response.body.orderId as string;
  };
  const status = async (orderId: string) => (await client.orders(`orders/${orderId}`)).body.orderStatus as string;
  const eEUR = () => token(sandbox.chains[1]!, 'eEUR', providers.get(31338));
  const settled = (orderId: string) =>
    waitUntil(
      () => status(orderId),
      (value) => value !== 'New' && value !== 'Processing',
      'settled',
    );

  it('mints the order on its chain and completes it, after the delay and only once', async () => {
    const wallet = Wallet.createRandom().address;
    const orderId = await submit(wallet, '25.5');
    assert.equal(await settled(orderId), 'Completed');
    // Moved on no sooner than the delay after its creation (by the order's own times: a slow machine only adds to them).
    const { orderDate, lastUpdateTime } = (await client.orders(`orders/${orderId}`)).body as {
      orderDate: number;
      lastUpdateTime: number;
    };
    assert.ok(lastUpdateTime - orderDate >= MINT_DELAY_MS, `completed ${lastUpdateTime - orderDate} ms after creation`);
    // Completed only once the mint is mined: the balance is there as soon as the status says so.
    assert.equal(await eEUR().balanceOf!(wallet), parseUnits('25.5', 18));
    // Completing it again by hand mints nothing more.
    await client.orders(`orders/${orderId}`, { method: 'PUT', body: { orderStatus: 'Completed' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await eEUR().balanceOf!(wallet), parseUnits('25.5', 18));
  });

  it('leaves an order the caller moved on as the caller set it: a cancelled order mints nothing', async () => {
    const wallet = Wallet.createRandom().address;
    const orderId = await submit(wallet);
    await client.orders(`orders/${orderId}`, { method: 'PUT', body: { orderStatus: 'Cancelled' } });
    await new Promise((resolve) => setTimeout(resolve, MINT_DELAY_MS + 300));
    assert.equal(await status(orderId), 'Cancelled');
    assert.equal(await eEUR().balanceOf!(wallet), 0n);
  });

  it('fails the next order when told to, minting nothing; the one after is minted again', async () => {
    const staged = await client.control('/orders/faults', { kind: 'fail' });
    assert.equal(staged.status, 201, staged.text);
    const failing = Wallet.createRandom().address;
    const healthy = Wallet.createRandom().address;
    const failed = await submit(failing);
    const minted = await submit(healthy);
    assert.equal(await settled(failed), 'Failed');
    assert.equal(await settled(minted), 'Completed');
    assert.equal(await eEUR().balanceOf!(failing), 0n);
    assert.equal(await eEUR().balanceOf!(healthy), parseUnits('25', 18));
  });

  it('holds the next order Processing until released, then mints it', async () => {
    await client.control('/orders/faults', { kind: 'hold', times: 1 });
    const wallet = Wallet.createRandom().address;
    const orderId = await submit(wallet);
    await waitUntil(
      () => status(orderId),
      (value) => value === 'Processing',
      'processing',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await status(orderId), 'Processing', 'held');
    assert.deepEqual((await client.control('/orders/faults')).body.held, [orderId]);
    assert.equal(await eEUR().balanceOf!(wallet), 0n);
    assert.equal((await client.control(`/orders/${orderId}/release`, {})).status, 200);
    assert.equal(await settled(orderId), 'Completed');
    assert.equal(await eEUR().balanceOf!(wallet), parseUnits('25', 18));
    assert.equal((await client.control(`/orders/${orderId}/release`, {})).status, 404, 'released once');
  });

  it("mints an order it failed when told to (a stray late mint), under the order's burn id, once", async () => {
    await client.control('/orders/faults', { kind: 'fail' });
    const wallet = Wallet.createRandom().address;
    const orderId = await submit(wallet);
    assert.equal(await settled(orderId), 'Failed');
    const minted = await client.control(`/orders/${orderId}/mint`, {});
    assert.equal(minted.status, 200, minted.text);
    assert.equal(await eEUR().balanceOf!(wallet), parseUnits('25', 18));
    const mints = await eEUR().queryFilter(eEUR().filters.ReforgeMint!(wallet), 0);
    assert.deepEqual(
      mints.map((log) => (log as EventLog).args.burnId as string),
      [id(`kassa-order:${orderId}`)],
    );
    assert.equal((await client.control(`/orders/${orderId}/mint`, {})).status, 200, 'again: nothing more');
    assert.equal(await eEUR().balanceOf!(wallet), parseUnits('25', 18));
    assert.equal(await status(orderId), 'Failed', 'its status is left as it was');
    assert.equal((await client.control('/orders/ord_missing/mint', {})).status, 404);
  });

  it('refuses a fault it does not know, and clears staged faults', async () => {
    const bad = await client.control('/orders/faults', { kind: 'explode' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error as string, /kind/);
    await client.control('/orders/faults', { kind: 'fail', times: 3 });
    assert.deepEqual((await client.control('/orders/faults', undefined, 'DELETE')).body.faults, []);
  });
});

describe('sandbox: contract wallets (EIP-1271)', () => {
  let sandbox: Sandbox;
  let client: ReturnType<typeof sandboxClient>;
  let providers: ReturnType<typeof chainProviders>;

  before(async () => {
    sandbox = await startSandbox({ mintDelayMs: null });
    client = sandboxClient(sandbox);
    providers = chainProviders(sandbox.chains);
  });
  after(async () => {
    providers.destroy();
    await sandbox.stop();
  });

  it("deploys a wallet that accepts its owner's signatures and no one else's", async () => {
    const owner = anvilAccount(3);
    const deployed = await client.control('/chains/31338/smart-wallets', { owner: owner.address });
    assert.equal(deployed.status, 201, deployed.text);
    const wallet = new Contract(
      deployed.body.address as string,
      [
        'function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)',
        'function owner() view returns (address)',
      ],
      providers.get(31338),
    );
    assert.equal(await wallet.owner!(), owner.address);
    const message = 'I own this wallet';
    assert.equal(await wallet.isValidSignature!(hashMessage(message), await owner.signMessage(message)), EIP1271_MAGIC);
    assert.equal(
      await wallet.isValidSignature!(hashMessage(message), await anvilAccount(4).signMessage(message)),
      '0xffffffff',
    );
    assert.equal(await wallet.isValidSignature!(hashMessage(message), '0x1234'), '0xffffffff');
    assert.notEqual(await providers.get(31338).getCode(deployed.body.address as string), '0x');
    assert.equal(await providers.get(31337).getCode(deployed.body.address as string), '0x', 'on its chain only');
  });

  it('refuses an unknown chain (404) and an owner that is not an address (400)', async () => {
    assert.equal((await client.control('/chains/1/smart-wallets', { owner: anvilAccount(3).address })).status, 404);
    const bad = await client.control('/chains/31338/smart-wallets', { owner: 'not-an-address' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error as string, /owner/);
  });
});
