/**
 * The on-ramp's figures before the quote, on their own: the tokens the customer types (any text:
 * fast-check tries many), and what they pay, which must be exactly what the proxy will charge for any
 * amount and any fee the merchant may set (proxy/onramp/onramp-settings.ts `feeCents`, published
 * through /api/onramp/config as onramp-catalog.ts does).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compareDecimals, isDecimal } from '../../lib/money.ts';
import { feeCents, fromCents, parseOnrampSettings, tokensText } from '../../proxy/onramp/onramp-settings.ts';
import { paymentFor, readTokens } from '../../widget/onramp/amounts.ts';
import { FUZZ_RUNS } from '../support/arbitraries.ts';

const LOCALES = ['en', 'de', 'fr', 'es', 'nl'];

describe('on-ramp: the amounts before the quote', () => {
  it('reads the tokens typed: the locale’s separator, at most two decimals, within the bounds, and says why not', () => {
    assert.deepEqual(readTokens('25', 'en', '1', '500'), { ok: true, amount: '25' });
    assert.deepEqual(readTokens(' 12,50 ', 'de', '1', '500'), { ok: true, amount: '12.5' });
    assert.deepEqual(readTokens('12.5', 'de', '1', '500'), { ok: true, amount: '12.5' });
    assert.deepEqual(readTokens('', 'en', '1', '500'), { ok: false, problem: 'empty' });
    assert.deepEqual(readTokens('0', 'en', '1', '500'), { ok: false, problem: 'below' });
    assert.deepEqual(readTokens('0.99', 'en', '1', '500'), { ok: false, problem: 'below' });
    assert.deepEqual(readTokens('500.01', 'en', '1', '500'), { ok: false, problem: 'above' });
    assert.deepEqual(readTokens('1.005', 'en', '1', '500'), { ok: false, problem: 'decimals' });
    assert.deepEqual(readTokens('1e3', 'en', '1', '500'), { ok: false, problem: 'invalid' });
    assert.deepEqual(readTokens('-5', 'en', '1', '500'), { ok: false, problem: 'invalid' });
    assert.deepEqual(readTokens('1,000', 'en', '1', '5000'), { ok: false, problem: 'invalid' });
  });

  it('any text: never throws, and what it accepts is a decimal of at most two places within the bounds', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.constantFrom(...LOCALES), (text, locale) => {
        const reading = readTokens(text, locale, '1', '500');
        if (!reading.ok) return;
        assert.ok(isDecimal(reading.amount, 2), reading.amount);
        assert.ok(compareDecimals(reading.amount, '1') >= 0 && compareDecimals(reading.amount, '500') <= 0);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('what the customer pays is what the proxy charges, for any amount and fee', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 100_000_000n }),
        fc.bigInt({ min: 0n, max: 9_999n }),
        fc.bigInt({ min: 0n, max: 100_000n }),
        (tokens, basisPoints, fixed) => {
          const settings = parseOnrampSettings({
            KASSA_ONRAMP_COINS: 'EUR:eEUR',
            KASSA_ONRAMP_LIMITS: '0.01..1000000',
            KASSA_ONRAMP_FEE: `${tokensText(basisPoints) || '0'}%+${fromCents(fixed)}`,
          })!;
          assert.equal(settings.feeBasisPoints, basisPoints);
          assert.equal(settings.feeFixedCents, fixed);
          // The fee as /api/onramp/config publishes it (onramp-catalog.ts).
          const published = { percent: tokensText(basisPoints) || '0', fixed: fromCents(fixed) };
          const charged = feeCents(settings, tokens);
          assert.deepEqual(paymentFor(tokensText(tokens), published), {
            payment: fromCents(tokens + charged),
            fee: fromCents(charged),
          });
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });
});
