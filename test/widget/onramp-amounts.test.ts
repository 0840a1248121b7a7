/**
 * The tokens a customer types into `<kassa-onramp>`, on their own (any text: fast-check tries many).
 * What they pay for them is lib/onramp-price.ts, the proxy's own rule (test/lib/onramp-price.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compareDecimals, isDecimal } from '../../lib/money.ts';
import { readTokens } from '../../widget/onramp/amounts.ts';
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
});
