/**
 * The relayer's controls: a held chain's mints wait (and are listed) until released; a held burn
 * refunded by force is minted back on its own chain under the same burn id, and never on its
 * destination, even once released. Bodies are checked, and no body gets a 5xx (fast-check).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { parseUnits, type TransactionReceipt } from 'ethers';
import { TOKEN_INTERFACE } from '../../sandbox/chains/token-interface.ts';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { FUZZ_RUNS, rawBody } from '../support/arbitraries.ts';
import { anvilAccount, chainProviders, token, waitUntil } from '../support/chains.ts';
import { http } from '../support/http.ts';
import { sandboxClient } from '../support/sandbox-client.ts';

const ONE = 31337;
const TWO = 31338;

describe('sandbox chains: holding, releasing and refunding the relayer', () => {
  let sandbox: Sandbox;
  let client: ReturnType<typeof sandboxClient>;
  let providers: ReturnType<typeof chainProviders>;

  before(async () => {
    sandbox = await startSandbox();
    client = sandboxClient(sandbox);
    providers = chainProviders(sandbox.chains);
  });
  after(async () => {
    providers.destroy();
    await sandbox.stop();
  });

  const chain = (chainId: number) => sandbox.chains.find((candidate) => candidate.chainId === chainId)!;

  /** Account `index` burns `amount` eUSD on chain one for chain two; the burn id. */
  async function burn(index: number, amount: string): Promise<string> {
    const holder = token(chain(ONE), 'eUSD', anvilAccount(index, providers.get(ONE)));
    const sent = await holder.reforge!(parseUnits(amount, 18), TWO, chain(TWO).tokens.eUSD.address);
    const receipt = (await sent.wait()) as TransactionReceipt;
    const event = receipt.logs.map((log) => TOKEN_INTERFACE.parseLog(log)).find((e) => e?.name === 'ReforgeBurn');
    return event!.args.burnId as string;
  }
  const balance = (chainId: number, index: number) =>
    token(chain(chainId), 'eUSD', providers.get(chainId)).balanceOf!(anvilAccount(index).address) as Promise<bigint>;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('a held chain gets no mint until released; the waiting burn is listed meanwhile', async () => {
    assert.deepEqual((await client.control('/relayer/hold', { chainId: TWO })).body.held, [TWO]);
    const start = await balance(TWO, 3);
    const burnId = await burn(3, '2');
    await waitUntil(
      async () => (await client.control('/relayer')).body.waiting as Array<{ burnId: string }>,
      (waiting) => waiting.some((entry) => entry.burnId === burnId),
      'the burn waits',
    );
    const [waiting] = (await client.control('/relayer')).body.waiting;
    assert.deepEqual(waiting, {
      burnId,
      from: anvilAccount(3).address,
      amount: parseUnits('2', 18).toString(),
      sourceChainId: ONE,
      destinationChainId: TWO,
    });
    await pause(500);
    assert.equal(await balance(TWO, 3), start, 'nothing minted while held');

    assert.deepEqual((await client.control('/relayer/release', { chainId: TWO })).body, { held: [], waiting: [] });
    await waitUntil(
      () => balance(TWO, 3),
      (now) => now === start + parseUnits('2', 18),
      'minted once released',
    );
  });

  it('a held burn refunded by force comes back on its own chain, under its burn id, and never arrives', async () => {
    await client.control('/relayer/hold', { chainId: TWO });
    const [startOne, startTwo] = [await balance(ONE, 4), await balance(TWO, 4)];
    const burnId = await burn(4, '3');
    await waitUntil(
      async () => (await client.control('/relayer/refund', { burnId })).status,
      (status) => status === 200,
      'the refund is accepted once the burn is seen',
    );
    await waitUntil(
      () => balance(ONE, 4),
      (now) => now === startOne,
      'refunded on chain one',
    );
    const source = token(chain(ONE), 'eUSD', providers.get(ONE));
    const refunds = (await source.queryFilter(source.filters.ReforgeMint!(), 0))
      .map((log) => TOKEN_INTERFACE.parseLog(log)!.args)
      .filter((args) => args.burnId === burnId);
    assert.equal(refunds.length, 1, 'one refund, under the same burn id');
    assert.equal(refunds[0]!.to, anvilAccount(4).address);

    await client.control('/relayer/release', { chainId: TWO });
    await pause(800);
    assert.equal(await balance(TWO, 4), startTwo, 'a refunded burn is never minted on its destination');
    assert.equal((await client.control('/relayer/refund', { burnId })).status, 404, 'nothing left to refund');
  });

  it('refuses what it cannot do: an unknown chain, a malformed burn id, a burn that is not held', async () => {
    const unknown = await client.control('/relayer/hold', { chainId: 999 });
    assert.deepEqual([unknown.status, unknown.body.error], [404, 'The sandbox has no chain 999']);
    const malformed = await client.control('/relayer/refund', { burnId: '0x12' });
    assert.deepEqual([malformed.status, malformed.body.error], [400, 'burnId must be 32 bytes in hex']);
    const extra = await client.control('/relayer/hold', { chainId: ONE, all: true });
    assert.equal(extra.status, 400);
    const notHeld = await client.control('/relayer/refund', { burnId: `0x${'ab'.repeat(32)}` });
    assert.equal(notHeld.status, 404);
    assert.deepEqual((await client.control('/relayer')).body, { held: [], waiting: [] });
  });

  it('no body makes the controls answer 5xx (fast-check)', async () => {
    for (const [path, valid] of [
      ['/relayer/hold', { chainId: ONE }],
      ['/relayer/release', { chainId: ONE }],
      ['/relayer/refund', { burnId: `0x${'cd'.repeat(32)}` }],
    ] as const)
      await fc.assert(
        fc.asyncProperty(rawBody(valid), async (raw) => {
          const response = await http(`${sandbox.control}${path}`, {
            raw,
            headers: { 'Content-Type': 'application/json' },
          });
          assert.ok(response.status < 500, `${path} ${raw?.slice(0, 100)}: ${response.status} ${response.text}`);
          if (response.status >= 400) assert.equal(typeof response.body.error, 'string');
        }),
        { numRuns: Math.ceil(FUZZ_RUNS / 3) },
      );
    await client.control('/relayer/release', { chainId: ONE });
  });
});
