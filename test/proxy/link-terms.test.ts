import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { REFERENCE_MAX, REFERENCE_PATTERN } from '../../schemas/pay.ts';
import { LINK_COUNTER_DIGITS, newLinkSchema, referenceTemplateSchema, type NewLink } from '../../schemas/links.ts';
import { InvalidInputError, NotAllowedError } from '../../proxy/domain/domain-errors.ts';
import { errorAnswer } from '../../proxy/http/error-answers.ts';
import { isLinkCode, newLinkCode } from '../../proxy/links/link-codes.ts';
import { linkRefusalError, LinkUsedUpError } from '../../proxy/links/link-errors.ts';
import { amountToPay, linkRecord, referenceOf, type ShopTerms } from '../../proxy/links/link-terms.ts';
import { LINK_STATES } from '../../proxy/state/links.ts';
import { link } from '../support/store-records.ts';

const SHOP: ShopTerms = {
  openAmount: { min: '1', max: '500', currencyCode: 'EUR' },
  returnUrls: ['https://shop.example/thanks'],
};
const BY = { kind: 'operator', id: 'op_1' } as const;
const NOW = Date.parse('2026-11-27T12:00:00Z');

const asked = (fields: Record<string, unknown>): NewLink =>
  newLinkSchema.parse({ title: 'Lesson', currencyCode: 'EUR', reference: 'LESSON-{n}', ...fields });

describe('link codes', () => {
  it('are 144 random bits in base64url, never the same twice, and carry nothing else', () => {
    const codes = Array.from({ length: 2_000 }, newLinkCode);
    assert.equal(new Set(codes).size, codes.length);
    for (const code of codes) {
      assert.ok(isLinkCode(code), code);
      assert.equal(Buffer.from(code, 'base64url').length, 18, '18 bytes: 144 bits');
    }
    // Each of the 64 characters shows up in every position over 2,000 codes: nothing fixed, nothing counted.
    for (let position = 0; position < 24; position += 7)
      assert.ok(new Set(codes.map((code) => code[position])).size > 50, `position ${position} varies`);
  });

  it('refuses anything but a code before the store is asked', () => {
    for (const bad of ['', 'x', `${newLinkCode()}a`, newLinkCode().slice(1), '../../etc/passwd/aaaaaaaaa', 'a b'])
      assert.equal(isLinkCode(bad), false, bad);
  });
});

/** Templates of a reference's characters, some with {n} somewhere, some too long. */
const template = fc
  .tuple(fc.array(fc.constantFrom(..."ABCXYZabz0189/-?:().,'+ "), { maxLength: 34 }), fc.option(fc.nat({ max: 34 })))
  .map(([chars, at]) => {
    const text = chars.join('');
    return at === null ? text : `${text.slice(0, at)}{n}${text.slice(at)}`;
  });

describe('reference templates', () => {
  it('take {n} at most once, and only what a payment reference may hold', () => {
    assert.equal(referenceTemplateSchema.safeParse('INV-{n}').success, true);
    assert.equal(referenceTemplateSchema.safeParse('Club fee 2026').success, true);
    assert.equal(referenceTemplateSchema.safeParse('{n}').success, true);
    for (const bad of [
      '{n}-{n}',
      'INV-{m}',
      'INV_{n}',
      '',
      'A'.repeat(REFERENCE_MAX - LINK_COUNTER_DIGITS + 1) + '{n}',
    ])
      assert.equal(referenceTemplateSchema.safeParse(bad).success, false, bad);
  });

  it('give every use a reference the payment service takes, whatever the template and the number', () => {
    fc.assert(
      fc.property(template, fc.integer({ min: 1, max: 999_999_999 }), (template, n) => {
        fc.pre(referenceTemplateSchema.safeParse(template).success);
        const reference = referenceOf(template, n);
        assert.ok(reference.length <= REFERENCE_MAX, reference);
        assert.ok(REFERENCE_PATTERN.test(reference), reference);
      }),
    );
    assert.equal(referenceOf('INV-{n}', 42), 'INV-42');
    assert.equal(referenceOf('Club fee', 42), 'Club fee');
  });
});

describe('a new link, within the shop’s terms', () => {
  it('keeps what was asked, numbered from 0, active, naming who made it', () => {
    const made = linkRecord(
      asked({ amount: '25.50', maxUses: 1, language: 'de', returnUrl: 'https://shop.example/thanks?x=1' }),
      SHOP,
      BY,
      NOW,
    );
    assert.ok(isLinkCode(made.code));
    assert.deepEqual(
      { ...made, code: 'c' },
      {
        ...link({ code: 'c', createdAt: NOW, updatedAt: NOW }),
        amount: '25.50',
        maxUses: 1,
        language: 'de',
        returnUrl: 'https://shop.example/thanks?x=1',
        createdBy: BY,
      },
    );
  });

  it('takes an open amount only where the shop enabled one, within its bounds and currency', () => {
    const open = linkRecord(asked({ openAmount: { min: '5' } }), SHOP, BY, NOW);
    assert.deepEqual([open.amount, open.minAmount, open.maxAmount], [null, '5', '500']);
    assert.throws(() => linkRecord(asked({ openAmount: {} }), { ...SHOP, openAmount: null }, BY, NOW), NotAllowedError);
    assert.throws(() => linkRecord(asked({ openAmount: {}, currencyCode: 'GBP' }), SHOP, BY, NOW), /must be EUR/);
    assert.throws(() => linkRecord(asked({ openAmount: { max: '501' } }), SHOP, BY, NOW), /within 1..500 EUR/);
    assert.throws(() => linkRecord(asked({ openAmount: { min: '0.5' } }), SHOP, BY, NOW), /within 1..500 EUR/);
    assert.throws(() => linkRecord(asked({ openAmount: { min: '9', max: '8' } }), SHOP, BY, NOW), /greater than/);
  });

  it('refuses a return URL the shop does not allow, a past expiry, and a total no payment fits', () => {
    assert.throws(
      () => linkRecord(asked({ amount: '5', returnUrl: 'https://evil.example/thanks' }), SHOP, BY, NOW),
      InvalidInputError,
    );
    assert.throws(
      () => linkRecord(asked({ amount: '5', expiresAt: '2026-11-27T11:59:59Z' }), SHOP, BY, NOW),
      /in the future/,
    );
    assert.throws(() => linkRecord(asked({ amount: '5', maxTotal: '4.99' }), SHOP, BY, NOW), /at least 5/);
    assert.throws(() => linkRecord(asked({ openAmount: { min: '3' }, maxTotal: '2' }), SHOP, BY, NOW), /at least 3/);
    assert.equal(
      linkRecord(asked({ amount: '5', expiresAt: '2026-11-28T00:00:00+01:00' }), SHOP, BY, NOW).expiresAt,
      Date.parse('2026-11-27T23:00:00Z'),
    );
  });

  it('asks for exactly one of a fixed and an open amount', () => {
    assert.equal(newLinkSchema.safeParse({ title: 'x', currencyCode: 'EUR', reference: 'R' }).success, false);
    assert.equal(
      newLinkSchema.safeParse({ title: 'x', currencyCode: 'EUR', reference: 'R', amount: '1', openAmount: {} }).success,
      false,
    );
    assert.equal(
      newLinkSchema.safeParse({ title: ' ', currencyCode: 'EUR', reference: 'R', amount: '1' }).success,
      false,
    );
  });
});

describe('what a customer pays', () => {
  it('is the fixed amount, or the typed one within the link’s bounds', () => {
    assert.equal(amountToPay(link({ amount: '10.00' }), undefined), '10.00');
    assert.equal(amountToPay(link({ amount: '10.00' }), '10'), '10.00');
    assert.throws(() => amountToPay(link({ amount: '10.00' }), '11'), /fixed/);
    const open = link({ amount: null, minAmount: '5', maxAmount: '50' });
    assert.equal(amountToPay(open, '5'), '5');
    assert.equal(amountToPay(open, '50'), '50');
    assert.throws(() => amountToPay(open, undefined), /amount is required/);
    assert.throws(
      () => amountToPay(open, '50.01'),
      (error: InvalidInputError) => (error.details as { reason: string }).reason === 'amount-out-of-bounds',
    );
  });
});

describe('why a link takes no payment', () => {
  it('is a typed error of its kind, with the reason a page words for its customer', () => {
    const answers = (['used-up', 'total-reached', 'paused', 'ended', 'expired'] as const).map((reason) => {
      const { problem } = errorAnswer(linkRefusalError(reason));
      return [reason, problem.status, (problem.details as { reason: string }).reason];
    });
    assert.deepEqual(answers, [
      ['used-up', 422, 'used-up'],
      ['total-reached', 422, 'total-reached'],
      ['paused', 409, 'paused'],
      ['ended', 410, 'ended'],
      ['expired', 410, 'expired'],
    ]);
    assert.ok(linkRefusalError('used-up') instanceof LinkUsedUpError);
    assert.deepEqual(LINK_STATES, ['active', 'paused', 'ended']);
  });
});
