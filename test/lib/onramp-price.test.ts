import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { onrampPrice } from '../../lib/onramp-price.ts';
import { fromCents, parseOnrampSettings, tokensText } from '../../proxy/onramp/onramp-settings.ts';
import { FUZZ_RUNS } from '../support/arbitraries.ts';

/** The on-ramp's price, shown by the element before the quote and charged by the proxy: one rule. */
describe('lib/onramp-price: what the customer pays', () => {
  it('adds the fee to the tokens’ value, the percentage rounded up to the cent', () => {
    assert.deepEqual(onrampPrice('25', { percent: '0', fixed: '0.00' }), { payment: '25.00', fee: '0.00' });
    assert.deepEqual(onrampPrice('25', { percent: '1.5', fixed: '0.30' }), { payment: '25.68', fee: '0.68' });
    assert.deepEqual(onrampPrice('0.01', { percent: '0.01', fixed: '0' }), { payment: '0.02', fee: '0.01' });
    assert.deepEqual(onrampPrice('12.5', { percent: '2', fixed: '0' }), { payment: '12.75', fee: '0.25' });
  });

  it('for any amount and any fee a merchant can set: the least whole cent at or above the percentage, plus the fixed part', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 100_000_000n }),
        fc.bigInt({ min: 0n, max: 9_999n }),
        fc.bigInt({ min: 0n, max: 100_000n }),
        (cents, basisPoints, fixed) => {
          // As the merchant writes it, and as the proxy publishes it after reading it.
          const { fee } = parseOnrampSettings({
            KASSA_ONRAMP_COINS: 'EUR:eEUR',
            KASSA_ONRAMP_FEE: `${tokensText(basisPoints) || '0'}%+${fromCents(fixed)}`,
          })!;
          const price = onrampPrice(tokensText(cents), fee);
          const feeCents = BigInt(price.fee.replace('.', ''));
          const percentPart = feeCents - fixed;
          // percentPart = ceil(cents × basisPoints / 10,000), stated without rounding arithmetic.
          assert.ok(percentPart * 10_000n >= cents * basisPoints, 'never less than the percentage');
          assert.ok((percentPart - 1n) * 10_000n < cents * basisPoints || percentPart === 0n, 'never a cent more');
          assert.equal(BigInt(price.payment.replace('.', '')), cents + feeCents);
          assert.match(price.payment, /^\d+\.\d{2}$/);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });
});
