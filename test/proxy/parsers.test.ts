import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  compareDecimals,
  decimalToNumber,
  fromUnits,
  isDecimal,
  numberToDecimal,
  sameAmount,
  toUnits,
} from '../../lib/money.ts';
import { isHttpsOrLoopback } from '../../lib/url-rules.ts';
import { isAllowedFlowUrl } from '../../proxy/payments/flow-hosts.ts';
import { returnUrlFor } from '../../proxy/payments/return-url.ts';
import { retryAfterMs } from '../../proxy/events/retry-after.ts';
import { errorAnswer } from '../../proxy/http/error-answers.ts';

/** A decimal string in plain notation, as Kassa keeps money. */
const decimal = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.nat({ max: 18 }))
  .map(([units, scale]) => fromUnits(units, scale));

describe('decimal money (lib/money.ts)', () => {
  it('toUnits and fromUnits are inverse, whatever the scale', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 40n }), fc.nat({ max: 30 }), (units, scale) => {
        const text = fromUnits(units, scale);
        assert.ok(isDecimal(text, scale), text);
        assert.equal(toUnits(text, scale), units);
      }),
    );
  });

  it('compares like the numbers they denote, without floats', () => {
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        const scale = 18;
        const expected = Math.sign(Number(toUnits(a, scale) - toUnits(b, scale)));
        assert.equal(compareDecimals(a, b), expected);
        assert.equal(compareDecimals(b, a), 0 - expected);
        assert.equal(sameAmount(a, b), expected === 0);
      }),
    );
    assert.ok(sameAmount('100.50', '100.5'));
    assert.equal(compareDecimals('0.1', '0.09'), 1);
  });

  it('accepts only plain non-negative decimals: no sign, exponent, spaces or leading zeros', () => {
    for (const bad of ['', '-1', '+1', '1e5', ' 1', '1 ', '01', '1.', '.5', '1,5', '0x10', 'NaN', 'Infinity', '١'])
      assert.equal(isDecimal(bad), false, bad);
    for (const good of ['0', '0.5', '10', '100.50', '123456789012345678901234567890.123'])
      assert.equal(isDecimal(good), true, good);
    fc.assert(
      fc.property(fc.string(), (text) => {
        if (isDecimal(text)) assert.match(text, /^(0|[1-9]\d*)(\.\d+)?$/);
      }),
    );
  });

  it('turns JSON numbers into the exact decimal they denote, or refuses', () => {
    fc.assert(
      fc.property(fc.double(), (value) => {
        const text = numberToDecimal(value);
        if (text === undefined) return;
        assert.ok(isDecimal(text));
        assert.equal(decimalToNumber(text), value === 0 ? 0 : value);
      }),
    );
    assert.equal(numberToDecimal(1e21), undefined);
    assert.equal(numberToDecimal(-1), undefined);
    assert.equal(numberToDecimal(100.5), '100.5');
  });
});

describe('URL rules', () => {
  it('isHttpsOrLoopback: https anywhere, plain http only to loopback, never credentials; never throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true })), (value) => {
        if (!isHttpsOrLoopback(value)) return;
        const url = new URL(value);
        assert.ok(url.protocol === 'https:' || ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname), value);
        assert.equal(url.username + url.password, '');
      }),
      { numRuns: 500 },
    );
    assert.equal(isHttpsOrLoopback('http://127.0.0.1.evil.example/'), false);
    assert.equal(isHttpsOrLoopback('javascript:alert(1)'), false);
  });

  it('a flowUrl is allowed only on a configured host (host alone: default port only)', () => {
    const hosts = ['bank.example', 'pay.example:8443', '127.0.0.1:4000'];
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl()), (value) => {
        if (!isAllowedFlowUrl(value, hosts)) return;
        const url = new URL(value);
        assert.ok(hosts.includes(url.host), value);
      }),
      { numRuns: 500 },
    );
    assert.equal(isAllowedFlowUrl('https://bank.example/flow/1', hosts), true);
    assert.equal(isAllowedFlowUrl('https://bank.example:444/flow/1', hosts), false);
    assert.equal(isAllowedFlowUrl('http://bank.example/flow/1', hosts), false, 'no plain http off loopback');
    assert.equal(isAllowedFlowUrl('https://pay.example:8443/x', hosts), true);
    assert.equal(isAllowedFlowUrl('http://127.0.0.1:4000/pay/flow/1', hosts), true);
  });

  it('a return URL from the browser: only a configured origin and path, always carrying its own status token', () => {
    const allowed = ['https://shop.example/return', 'https://shop.example/checkout/done?lang=en'];
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.webUrl({ withQueryParameters: true, withFragments: true }),
          fc.constant('https://shop.example/return?kassa_status=forged&x=1'),
        ),
        (requested) => {
          let result: string;
          try {
            result = returnUrlFor(requested, allowed, 'TOKEN');
          } catch (error) {
            assert.ok(error instanceof Error && errorAnswer(error).problem.status === 400, String(error));
            return;
          }
          const url = new URL(result);
          assert.ok(
            allowed.some((entry) => new URL(entry).origin === url.origin && new URL(entry).pathname === url.pathname),
            result,
          );
          assert.deepEqual(url.searchParams.getAll('kassa_status'), ['TOKEN']);
          assert.equal(url.hash, '');
        },
      ),
      { numRuns: 500 },
    );
    assert.equal(returnUrlFor(undefined, allowed, 'T'), 'https://shop.example/return?kassa_status=T');
  });
});

describe('Retry-After (events/retry-after.ts)', () => {
  const now = Date.UTC(2026, 10, 27, 12, 0, 0);

  it('delay-seconds and HTTP dates, with space around them: the wait they ask for, a past date none', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000_000 }), fc.constantFrom('', ' ', '\t'), (seconds, pad) => {
        assert.equal(retryAfterMs(`${pad}${seconds}${pad}`, now), seconds * 1000);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: -86_400 * 365, max: 86_400 * 365 }), (offset) => {
        const text = new Date(now + offset * 1000).toUTCString();
        assert.equal(retryAfterMs(text, now), Math.max(0, offset * 1000), text);
      }),
    );
  });

  it('anything else is no wait asked (undefined), never NaN or a negative wait', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.date().map((date) => date.toString()),
          fc.constant(null),
        ),
        (value) => {
          const wait = retryAfterMs(value, now);
          assert.ok(wait === undefined || (wait >= 0 && !Number.isNaN(wait)), `${value} → ${wait}`);
        },
      ),
      { numRuns: 500 },
    );
    for (const value of [null, '', '-5', '1.5', '2 minutes', 'Fri, 27 Nov 2026 12:00:00 UTC', '2026-11-27T12:00:00Z'])
      assert.equal(retryAfterMs(value, now), undefined, String(value));
  });
});
