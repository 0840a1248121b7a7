import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BIDI_CONTROLS, codePointName, splitBidiControls } from '../../lib/bidi.ts';
import { createOrderRequestSchema } from '../../schemas/orders.ts';

const CONTROLS = [...'\u202a\u202b\u202c\u202d\u202e', ...'\u2066\u2067\u2068\u2069', '\u200e', '\u200f', '\u061c'];
const order = (customerName: string) => ({
  customerName,
  chainId: 31337,
  amount: '1',
  mintWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  customerOrder: 'o-1',
  stableCoin: 'eUSD',
});

/** Bidirectional formatting characters: what an order's names may not carry, and how views show them. */
describe('bidi control characters', () => {
  it('knows all eleven, and names them as code points', () => {
    for (const control of CONTROLS) assert.ok(BIDI_CONTROLS.test(control), codePointName(control));
    assert.equal(codePointName('\u202e'), 'U+202E');
    assert.equal(codePointName('\u061c'), 'U+061C');
    assert.deepEqual(splitBidiControls('\u202eevil!\u2066'), ['\u202e', 'evil!', '\u2066']);
  });

  it('fast-check: a name with one anywhere is refused with its reason; splitting keeps every character', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.constantFrom(...CONTROLS),
        fc.string({ maxLength: 40 }),
        (before, control, after) => {
          const name = `A${before}${control}${after}`;
          assert.equal(splitBidiControls(name).join(''), name);
          const parsed = createOrderRequestSchema.safeParse(order(name));
          assert.equal(parsed.success, false);
          assert.ok(
            parsed.error.issues.some((issue) => /bidirectional control characters/.test(issue.message)) ||
              /\p{Cc}/u.test(name) ||
              name.trim().length > 100,
          );
        },
      ),
    );
  });

  it('fast-check: a name without any is not refused for them', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 100 }), (name) => {
        fc.pre(!BIDI_CONTROLS.test(name));
        const parsed = createOrderRequestSchema.safeParse(order(name));
        if (!parsed.success) assert.ok(!parsed.error.issues.some((issue) => /bidirectional/.test(issue.message)), name);
      }),
    );
  });
});
