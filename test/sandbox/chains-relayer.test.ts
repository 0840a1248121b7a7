import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { id, parseUnits, Wallet, type Contract, type JsonRpcProvider, type TransactionReceipt } from 'ethers';
import { LocalChains, type LocalChain } from '../../sandbox/chains/local-chains.ts';
import { Relayer } from '../../sandbox/chains/relayer.ts';
import { TOKEN_INTERFACE } from '../../sandbox/chains/token-interface.ts';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { anvilAccount, chainProviders, token, waitUntil } from '../support/chains.ts';
import { sandboxClient } from '../support/sandbox-client.ts';

/** The burn ids of every ReforgeMint a token emitted, in order. */
async function mintedBurnIds(contract: Contract): Promise<string[]> {
  const events = await contract.queryFilter(contract.filters.ReforgeMint!(), 0);
  return events.map((event) => TOKEN_INTERFACE.parseLog(event)!.args.burnId as string);
}

function burnIdOf(receipt: TransactionReceipt): string {
  const burn = receipt.logs.map((log) => TOKEN_INTERFACE.parseLog(log)).find((event) => event?.name === 'ReforgeBurn');
  assert.ok(burn, 'the burn emits ReforgeBurn');
  return burn.args.burnId as string;
}

describe('sandbox chains: the relayer', () => {
  let chains: LocalChains;
  let relayer: Relayer;
  let one: LocalChain;
  let two: LocalChain;

  const burn = async (
    provider: JsonRpcProvider,
    chain: LocalChain,
    account: number,
    amount: bigint,
    destinationChainId: number,
    destinationToken: string,
  ) => {
    const holder = token(chain, 'eUSD', anvilAccount(account, provider));
    const receipt = (await (
      await holder.reforge!(amount, destinationChainId, destinationToken)
    ).wait()) as TransactionReceipt;
    assert.equal(receipt.status, 1);
    return burnIdOf(receipt);
  };

  before(async () => {
    chains = await LocalChains.start();
    [one, two] = chains.chains as [LocalChain, LocalChain];
    relayer = new Relayer(chains);
    relayer.start();
  });
  after(async () => {
    await relayer.stop();
    await chains.stop();
  });

  it('mints each of many simultaneous burns exactly once on the destination chain', async () => {
    const amounts = [1n, 2n, 3n, 4n, 5n].map((n) => parseUnits(String(n), 18));
    const arriving = token(two, 'eUSD', two.provider);
    const before = await Promise.all(
      amounts.map((_, i) => arriving.balanceOf!(anvilAccount(i).address) as Promise<bigint>),
    );
    const burnIds = await Promise.all(
      amounts.map((amount, i) => burn(one.provider, one, i, amount, two.chainId, two.tokens.eUSD.address)),
    );
    await Promise.all(
      amounts.map((amount, i) =>
        waitUntil(
          () => arriving.balanceOf!(anvilAccount(i).address) as Promise<bigint>,
          (balance) => balance === before[i]! + amount,
          `burn ${i} arrives`,
        ),
      ),
    );
    const minted = await mintedBurnIds(arriving);
    for (const burnId of burnIds)
      assert.equal(minted.filter((idOf) => idOf === burnId).length, 1, `${burnId} minted once`);
  });

  it('mints nothing again when a restarted relayer rescans every block from genesis', async () => {
    const burnId = await burn(one.provider, one, 6, parseUnits('7', 18), two.chainId, two.tokens.eUSD.address);
    const arriving = token(two, 'eUSD', two.provider);
    await waitUntil(
      () => mintedBurnIds(arriving),
      (ids) => ids.includes(burnId),
      'first mint',
    );
    const relayerNonces = () =>
      Promise.all([one, two].map((chain) => chain.provider.getTransactionCount(relayer.address, 'pending')));
    const noncesBefore = await relayerNonces();

    const restarted = new Relayer(chains);
    for (const chain of chains.chains) await restarted.scan(chain, 0);
    await restarted.stop();

    assert.deepEqual(await relayerNonces(), noncesBefore, 'the restarted relayer sent no transaction');
    assert.equal((await mintedBurnIds(arriving)).filter((idOf) => idOf === burnId).length, 1);
  });

  it('refunds on the source chain a burn to an unknown chain, or to another stablecoin, under the same burn id', async () => {
    const account = anvilAccount(7, one.provider);
    const source = token(one, 'eUSD', one.provider);
    const start = (await source.balanceOf!(account.address)) as bigint;
    const toUnknownChain = await burn(one.provider, one, 7, parseUnits('10', 18), 999_999, two.tokens.eUSD.address);
    const toOtherCoin = await burn(one.provider, one, 7, parseUnits('1', 18), two.chainId, two.tokens.eEUR.address);
    const toUnknownToken = await burn(
      one.provider,
      one,
      7,
      parseUnits('2', 18),
      two.chainId,
      Wallet.createRandom().address,
    );
    await waitUntil(
      () => source.balanceOf!(account.address) as Promise<bigint>,
      (balance) => balance === start,
      'all three refunded',
    );
    const refunds = await mintedBurnIds(source);
    for (const burnId of [toUnknownChain, toOtherCoin, toUnknownToken])
      assert.equal(refunds.filter((idOf) => idOf === burnId).length, 1);
    assert.equal(
      await token(two, 'eEUR', two.provider).balanceOf!(account.address),
      parseUnits('1000000', 18),
      'no other coin arrives',
    );
  });
});

describe('sandbox chains: completed orders are minted', () => {
  let sandbox: Sandbox;
  let client: ReturnType<typeof sandboxClient>;
  let providers: ReturnType<typeof chainProviders>;
  const wallet = Wallet.createRandom().address;

  before(async () => {
    // Completed by hand, as an operator does: no issuer processes these orders.
    sandbox = await startSandbox({ mintDelayMs: null });
    client = sandboxClient(sandbox);
    providers = chainProviders(sandbox.chains);
  });
  after(async () => {
    providers.destroy();
    await sandbox.stop();
  });

  const order = (overrides: Record<string, unknown>) => ({
    customerName: 'Ada',
    chainId: 31338,
    amount: '250.75',
    mintWallet: wallet,
    customerOrder: `mint-${Math.random()}`,
    stableCoin: 'eGBR',
    ...overrides,
  });

  it('refuses an order on a chain the emulator does not run', async () => {
    const response = await client.orders('orders', { body: order({ chainId: 1 }) });
    assert.equal(response.status, 400);
    assert.equal(response.body.error, 'Invalid chainId: 1 (supported: 31337, 31338)');
  });

  it('mints amount of stableCoin to mintWallet on chainId once the order is Completed, and only then', async () => {
    const created = await client.orders('orders', { body: order({}) });
    const orderId = created.body.orderId as string;
    const eGBR = token(sandbox.chains[1]!, 'eGBR', providers.get(31338));
    await client.orders(`orders/${orderId}`, { method: 'PUT', body: { orderStatus: 'Processing' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await eGBR.balanceOf!(wallet), 0n, 'nothing before completion');
    assert.equal(
      (await client.orders(`orders/${orderId}`, { method: 'PUT', body: { orderStatus: 'Completed' } })).status,
      200,
    );
    await waitUntil(
      () => eGBR.balanceOf!(wallet) as Promise<bigint>,
      (balance) => balance === parseUnits('250.75', 18),
      'order minted',
    );
    // Setting Completed again is a no-op: still one mint, under the order's burn id.
    await client.orders(`orders/${orderId}`, { method: 'PUT', body: { orderStatus: 'Completed' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await eGBR.balanceOf!(wallet), parseUnits('250.75', 18));
    assert.deepEqual(await mintedBurnIds(eGBR), [id(`kassa-order:${orderId}`)]);
    assert.equal(
      await token(sandbox.chains[0]!, 'eGBR', providers.get(31337)).balanceOf!(wallet),
      0n,
      "minted on the order's chain only",
    );
  });
});
