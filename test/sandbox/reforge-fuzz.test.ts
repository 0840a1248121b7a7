import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { FUZZ_RUNS as RUNS, rawBody } from '../support/arbitraries.ts';
import { Transaction } from 'ethers';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { anvilAccount } from '../support/chains.ts';
import { http } from '../support/http.ts';

/** Bytes of a valid serialized transaction with some of them overwritten. */
const corrupted = (hex: string) =>
  fc
    .array(fc.record({ at: fc.nat({ max: (hex.length - 2) / 2 - 1 }), byte: fc.integer({ min: 0, max: 255 }) }), {
      minLength: 1,
      maxLength: 4,
    })
    .map((edits) => {
      const bytes = Buffer.from(hex.slice(2), 'hex');
      for (const { at, byte } of edits) bytes[at] = byte;
      return `0x${bytes.toString('hex')}`;
    });

describe('sandbox: fast-check, no reforge input gets a 5xx or crashes the emulator', () => {
  let sandbox: Sandbox;
  let prepared: string;
  let valid: { prepare: Record<string, unknown>; execute: Record<string, unknown> };

  const send = async (path: string, raw: string) => {
    const response = await http(`${sandbox.reforge}${path}`, {
      method: 'POST',
      raw,
      headers: { 'Content-Type': 'application/json' },
    });
    assert.ok(
      response.status < 500,
      `${path} with ${raw.slice(0, 300)} answered ${response.status}: ${response.text.slice(0, 300)}`,
    );
    if (response.status !== 200) {
      assert.equal(response.status, 400);
      assert.equal(typeof response.body.error, 'string', response.text);
    }
    return response;
  };

  before(async () => {
    sandbox = await startSandbox();
    const [one, two] = sandbox.chains;
    valid = {
      prepare: {
        sourceAmount: '1.5',
        sourceToken: one!.tokens.eEUR.address,
        destinationToken: two!.tokens.eEUR.address,
        destinationChainId: two!.chainId,
        sourceRpcUrl: one!.rpcUrl,
      },
      execute: {},
    };
    prepared = (await http(`${sandbox.reforge}/prepareReforge`, { body: { ...valid.prepare, sourceAmount: '0.001' } }))
      .body.tx;
    valid.execute = { tx: prepared, walletData: { rpcUrl: one!.rpcUrl, privateKey: anvilAccount(9).privateKey } };
  });
  after(async () => {
    try {
      // Still answering properly after everything above.
      assert.equal((await http(`${sandbox.reforge}/prepareReforge`, { body: valid.prepare })).status, 200);
    } finally {
      await sandbox.stop();
    }
  });

  it('POST /prepareReforge', async () => {
    await fc.assert(
      fc.asyncProperty(rawBody(valid.prepare), (raw) => send('/prepareReforge', raw).then(() => undefined)),
      { numRuns: RUNS },
    );
  });

  it('POST /prepareReforge with well-formed amounts, chain ids and addresses', async () => {
    const tokens = sandbox.chains.flatMap((chain) => Object.values(chain.tokens).map((token) => token.address));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.double({ min: 0, max: 1e30, noNaN: true }), fc.stringMatching(/^\d{1,40}(\.\d{1,25})?$/)),
        fc.oneof(fc.constantFrom(31337, 31338, '31337', '31338'), fc.integer(), fc.stringMatching(/^\d{1,20}$/)),
        fc.constantFrom(...tokens),
        fc.constantFrom(...tokens),
        async (sourceAmount, destinationChainId, sourceToken, destinationToken) => {
          const response = await send(
            '/prepareReforge',
            JSON.stringify({ sourceAmount, destinationChainId, sourceToken, destinationToken }),
          );
          if (response.status === 200) assert.equal(Transaction.from(response.body.tx).signature, null);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('POST /executeReforge and /executeReforgeAsync', async () => {
    const withTx = (tx: string) => JSON.stringify({ ...valid.execute, tx });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          rawBody(valid.execute),
          corrupted(prepared).map(withTx),
          fc.uint8Array({ maxLength: 300 }).map((bytes) => withTx(`0x${Buffer.from(bytes).toString('hex')}`)),
        ),
        fc.constantFrom('/executeReforge', '/executeReforgeAsync'),
        (raw, path) => send(path, raw).then(() => undefined),
      ),
      { numRuns: RUNS },
    );
  });
});
