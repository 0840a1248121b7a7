import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Interface, Transaction } from 'ethers';
import { describeTransfer, PreviewError } from '../../lib/transfer-preview.ts';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { chainListSchema, REFORGE_TOKEN_ABI, type ChainEntry } from '../../schemas/reforge.ts';
import { http } from '../support/http.ts';

const SIGNER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** The preview the wallet panel and the extension show before signing, decoded from real prepared transactions. */
describe('transfer preview', () => {
  let sandbox: Sandbox;
  let chains: ChainEntry[];
  let prepared: string;
  const tokens = new Interface(REFORGE_TOKEN_ABI);

  before(async () => {
    sandbox = await startSandbox();
    chains = chainListSchema.parse((await http(`${sandbox.reforge}/getTestChainsAndTokens`)).body);
    const [one, two] = chains;
    prepared = (
      await http(`${sandbox.reforge}/prepareReforge`, {
        body: {
          sourceAmount: '12.5',
          sourceToken: one!.tokens.eGBR!.address,
          destinationToken: two!.tokens.eGBR!.address,
          destinationChainId: two!.chainId,
        },
      })
    ).body.tx;
  });
  after(() => sandbox.stop());

  it('says what is burned, where it is minted and to whom, the contract, method, chain and fee', () => {
    const preview = describeTransfer(prepared, chains, SIGNER.toLowerCase());
    const [one, two] = chains;
    assert.deepEqual(preview.chain, { chainId: one!.chainId, name: one!.name, nativeSymbol: 'ETH' });
    assert.equal(preview.contract, one!.tokens.eGBR!.address);
    assert.equal(preview.method, 'reforge(uint256,uint256,address)');
    assert.equal(preview.burn.amount, '12.5');
    assert.equal(preview.burn.units, 12_500_000_000_000_000_000n);
    assert.equal(preview.burn.token.symbol, 'eGBR');
    assert.deepEqual(
      {
        chainId: preview.mint.chainId,
        symbol: preview.mint.token.symbol,
        amount: preview.mint.amount,
        to: preview.mint.to,
      },
      { chainId: two!.chainId, symbol: 'eGBR', amount: '12.5', to: SIGNER },
    );
    const tx = Transaction.from(prepared);
    assert.equal(preview.maxFeeWei, tx.gasLimit * tx.maxFeePerGas!);
    assert.ok(Number(preview.maxFee) > 0 && Number(preview.maxFee) < 0.01, `a plausible fee: ${preview.maxFee} ETH`);
  });

  const refusals: Array<[string, (tx: Transaction, chains: ChainEntry[]) => void, RegExp]> = [
    ['an unknown chain', (tx) => (tx.chainId = 1n), /chain 1, which is not among the supported chains/],
    ['a call to another contract', (tx) => (tx.to = SIGNER), /not a token on/],
    ['native value sent along', (tx) => (tx.value = 1n), /sends native currency/],
    [
      'another method',
      (tx) => (tx.data = tokens.encodeFunctionData('transfer', [SIGNER, 1n])),
      /calls transfer, not reforge/,
    ],
    [
      'a destination on the same chain',
      (tx, chains) =>
        (tx.data = tokens.encodeFunctionData('reforge', [1n, chains[0]!.chainId, chains[0]!.tokens.eGBR!.address])),
      /not a supported destination/,
    ],
    [
      'bytes after the call’s arguments',
      (tx) => (tx.data = `${tx.data}deadbeef`),
      /carries bytes beyond its arguments/,
    ],
    [
      'an address argument with dirty padding',
      // The destination token's word is an address in its last 20 bytes: its first 12 must be zero.
      (tx) => (tx.data = `${tx.data.slice(0, 2 + 8 + 128)}ff${tx.data.slice(2 + 8 + 128 + 2)}`),
      /The arguments of the reforge call cannot be read/,
    ],
    [
      'a different stablecoin at the destination',
      (tx, chains) =>
        (tx.data = tokens.encodeFunctionData('reforge', [1n, chains[1]!.chainId, chains[1]!.tokens.eUSD!.address])),
      /is not eGBR/,
    ],
  ];
  for (const [what, tamper, message] of refusals) {
    it(`refuses ${what}`, () => {
      const tx = Transaction.from(prepared);
      tamper(tx, chains);
      assert.throws(
        () => describeTransfer(tx.unsignedSerialized, chains),
        (error: unknown) => error instanceof PreviewError && message.test(error.message),
      );
    });
  }

  it('refuses a signed transaction and anything unreadable', () => {
    assert.throws(() => describeTransfer('0x02zz', chains), /cannot be read/);
    assert.throws(() => describeTransfer(prepared, []), /not among the supported chains/);
  });

  it('fast-check: any bytes are a preview of a real transfer or a PreviewError, never anything else', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.nat({ max: 200 }),
        fc.integer({ min: 0, max: 255 }),
        (bytes, at, value) => {
          const candidates = [`0x${Buffer.from(bytes).toString('hex')}`, `0x02${Buffer.from(bytes).toString('hex')}`];
          const mutated = Buffer.from(prepared.slice(2), 'hex');
          if (at < mutated.length) mutated[at] = value;
          candidates.push(`0x${mutated.toString('hex')}`);
          for (const candidate of candidates) {
            try {
              const preview = describeTransfer(candidate, chains);
              assert.equal(preview.method, 'reforge(uint256,uint256,address)');
              assert.equal(preview.burn.token.symbol, preview.mint.token.symbol);
            } catch (error) {
              assert.ok(error instanceof PreviewError, `${candidate}: ${String(error)}`);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
