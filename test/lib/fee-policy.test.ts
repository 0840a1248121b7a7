import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  FEE_RULES,
  feeCeiling,
  FeeReadError,
  gwei,
  judgeFees,
  readChainFees,
  suggestedFees,
  type ChainFees,
} from '../../lib/fee-policy.ts';

const GWEI = 1_000_000_000n;
const hex = (value: bigint) => `0x${value.toString(16)}`;
/** An eth_feeHistory answer with these base fees and (one percentile of) tips. */
const history = (baseFees: bigint[], tips: bigint[]) => async () => ({
  oldestBlock: '0x1',
  baseFeePerGas: baseFees.map(hex),
  gasUsedRatio: tips.map(() => 0.1),
  reward: tips.map((tip) => [hex(tip)]),
});

/** The fee rules Kassa's wallet and the wallet panel share (lib/fee-policy.ts). */
describe('fee policy', () => {
  it('reads the next base fee and the median of recent tips, leaving empty blocks out', async () => {
    const fees = await readChainFees(
      history([10n * GWEI, 11n * GWEI, 12n * GWEI], [0n, 2n * GWEI, 1n * GWEI, 3n * GWEI]),
    );
    assert.deepEqual(fees, { baseFeePerGas: 12n * GWEI, priorityFeePerGas: 2n * GWEI });
  });

  it('one block of a million gwei of tips does not move the tip; an idle chain gets the floor', async () => {
    const tips = [1n, 1n, 1n, 1n, 1_000_000n].map((tip) => tip * GWEI);
    assert.equal((await readChainFees(history([GWEI], tips))).priorityFeePerGas, GWEI);
    assert.equal((await readChainFees(history([GWEI], [0n, 0n]))).priorityFeePerGas, FEE_RULES.minPriorityFee);
  });

  it('refuses a page’s million gwei, a tip above the ceiling, a max fee below the base fee; warns above 1.5 × its own', () => {
    const chain: ChainFees = { baseFeePerGas: 10n * GWEI, priorityFeePerGas: GWEI };
    const own = suggestedFees(chain);
    assert.deepEqual(own, { maxFeePerGas: 21n * GWEI, maxPriorityFeePerGas: GWEI });
    assert.deepEqual(feeCeiling(chain), { maxFeePerGas: 43n * GWEI, maxPriorityFeePerGas: 3n * GWEI });
    assert.deepEqual(judgeFees(own, chain), { ok: true, high: false });
    assert.deepEqual(judgeFees({ maxFeePerGas: 40n * GWEI, maxPriorityFeePerGas: GWEI }, chain), {
      ok: true,
      high: true,
    });
    const million = 1_000_000n * GWEI;
    assert.deepEqual(judgeFees({ maxFeePerGas: million, maxPriorityFeePerGas: million }, chain), {
      ok: false,
      refusal: 'above-ceiling',
    });
    assert.deepEqual(judgeFees({ maxFeePerGas: 30n * GWEI, maxPriorityFeePerGas: 4n * GWEI }, chain), {
      ok: false,
      refusal: 'tip-above-ceiling',
    });
    assert.deepEqual(judgeFees({ maxFeePerGas: 9n * GWEI, maxPriorityFeePerGas: GWEI }, chain), {
      ok: false,
      refusal: 'below-base-fee',
    });
    assert.deepEqual(judgeFees({ maxFeePerGas: GWEI, maxPriorityFeePerGas: 2n * GWEI }, chain), {
      ok: false,
      refusal: 'tip-above-max-fee',
    });
    assert.equal(gwei(1_500_000_000n), '1.5');
    assert.equal(gwei(7n), '0.000000007');
  });

  it('fast-check: Kassa’s own fees and the ceiling itself pass, one wei above the ceiling does not', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.bigInt({ min: 1n, max: 10n ** 13n }), (base, tip) => {
        const chain = { baseFeePerGas: base, priorityFeePerGas: tip };
        assert.deepEqual(judgeFees(suggestedFees(chain), chain), { ok: true, high: false });
        const ceiling = feeCeiling(chain);
        assert.equal(judgeFees(ceiling, chain).ok, true);
        assert.equal(judgeFees({ ...ceiling, maxFeePerGas: ceiling.maxFeePerGas + 1n }, chain).ok, false);
      }),
    );
  });

  it('fast-check: any answer of a chain is its fees or a FeeReadError, never anything else', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (answer) => {
        try {
          const fees = await readChainFees(async () => answer);
          assert.equal(typeof fees.baseFeePerGas, 'bigint');
          assert.ok(fees.priorityFeePerGas >= FEE_RULES.minPriorityFee);
        } catch (error) {
          assert.ok(error instanceof FeeReadError, String(error));
        }
      }),
    );
  });
});
