import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { bankName } from '../../proxy/payments/bank-names.ts';
import { SANDBOX_BANKS } from '../../sandbox/pay/banks.ts';
import { FUZZ_RUNS } from '../support/arbitraries.ts';

describe('proxy: bank names on receipts', () => {
  it('knows every bank of the sandbox by the name its bank page shows', () => {
    for (const bank of SANDBOX_BANKS) assert.equal(bankName(bank.providerId), bank.name);
  });

  it('an unknown bank shows its identifier; none chosen yet, nothing', () => {
    assert.equal(bankName(null), null);
    assert.equal(bankName('bank_elsewhere'), 'bank_elsewhere');
    assert.equal(bankName('constructor'), 'constructor');
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (providerId) => {
        const name = bankName(providerId);
        assert.ok(name === providerId || SANDBOX_BANKS.some((bank) => bank.name === name));
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});
