import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  formatSiweMessage,
  isStatementChainName,
  parsePurchaseStatement,
  parseSiweMessage,
  purchaseStatement,
  type SiweMessage,
} from '../../lib/siwe.ts';

const example: SiweMessage = {
  domain: 'shop.example',
  address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  statement: 'Buy 25 eEUR on Kassa Local Two for 25.50 EUR (fee 0.50 EUR included), delivered to this address.',
  uri: 'https://shop.example',
  chainId: 31338,
  nonce: 'k3Jd9XqPz2LmW8aTyB4nV7cE',
  issuedAt: '2026-11-25T10:00:00.000Z',
  expirationTime: '2026-11-25T10:10:00.000Z',
  requestId: 'quo_4f9a2c1e8b7d',
};

const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: length, maxLength: length });
const alnum = (min: number, max: number) =>
  fc.string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
    minLength: min,
    maxLength: max,
  });
const host = fc.oneof(
  fc.domain(),
  fc.constantFrom('127.0.0.1', 'localhost'),
  fc.tuple(fc.constantFrom('127.0.0.1', 'localhost'), fc.integer({ min: 1, max: 65535 })).map(([h, p]) => `${h}:${p}`),
);
const time = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 0, 1) });
const messages = fc
  .record({
    host,
    scheme: fc.constantFrom('https', 'http'),
    address: hex(40).map((digits) => `0x${digits}`),
    statement: fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
      minLength: 1,
      maxLength: 200,
    }),
    chainId: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    nonce: alnum(8, 64),
    issued: time,
    lifetime: fc.integer({ min: 1, max: 86_400_000 }),
    requestId: fc.string({ unit: fc.constantFrom(...'abcXYZ019_-'), minLength: 1, maxLength: 100 }),
  })
  .map((fields): SiweMessage => ({
    domain: new URL(`${fields.scheme}://${fields.host}`).host,
    address: fields.address,
    statement: fields.statement,
    uri: new URL(`${fields.scheme}://${fields.host}`).origin,
    chainId: fields.chainId,
    nonce: fields.nonce,
    issuedAt: new Date(fields.issued).toISOString(),
    expirationTime: new Date(fields.issued + fields.lifetime).toISOString(),
    requestId: fields.requestId,
  }));

describe('lib/siwe: the purchase ownership message (EIP-4361)', () => {
  it('writes the EIP-4361 text, line by line', () => {
    assert.equal(
      formatSiweMessage(example),
      [
        'shop.example wants you to sign in with your Ethereum account:',
        '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        '',
        'Buy 25 eEUR on Kassa Local Two for 25.50 EUR (fee 0.50 EUR included), delivered to this address.',
        '',
        'URI: https://shop.example',
        'Version: 1',
        'Chain ID: 31338',
        'Nonce: k3Jd9XqPz2LmW8aTyB4nV7cE',
        'Issued At: 2026-11-25T10:00:00.000Z',
        'Expiration Time: 2026-11-25T10:10:00.000Z',
        'Request ID: quo_4f9a2c1e8b7d',
      ].join('\n'),
    );
  });

  it('reads back exactly what it writes, for any message it can write', () => {
    fc.assert(
      fc.property(messages, (message) => {
        assert.deepEqual(parseSiweMessage(formatSiweMessage(message)), message);
      }),
      { numRuns: 500 },
    );
  });

  it('reads nothing but its own text: whatever it accepts, it would write the same way', () => {
    const text = formatSiweMessage(example);
    const edits = fc.oneof(
      // a character changed, inserted or removed anywhere
      fc
        .tuple(fc.nat({ max: text.length - 1 }), fc.string({ maxLength: 3 }), fc.nat({ max: 2 }))
        .map(([at, insert, remove]) => text.slice(0, at) + insert + text.slice(at + remove)),
      fc.string({ maxLength: 400 }).map((tail) => text + tail),
      fc.string({ maxLength: 600 }),
    );
    fc.assert(
      fc.property(edits, (edited) => {
        const parsed = parseSiweMessage(edited);
        if (parsed !== null) assert.equal(formatSiweMessage(parsed), edited);
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses trailing or leading text, other versions, and a URI that is not the domain', () => {
    const text = formatSiweMessage(example);
    assert.equal(parseSiweMessage(`${text}\n`), null);
    assert.equal(parseSiweMessage(`${text}\nResources:\n- https://evil.example`), null);
    assert.equal(parseSiweMessage(`\n${text}`), null);
    assert.equal(parseSiweMessage(text.replace('Version: 1', 'Version: 2')), null);
    assert.equal(parseSiweMessage(text.replace('URI: https://shop.example', 'URI: https://evil.example')), null);
    assert.equal(parseSiweMessage(text.replace('Chain ID: 31338', 'Chain ID: 031338')), null);
    assert.equal(parseSiweMessage(text.replace('\n', '\r\n')), null);
  });

  it('will not write a message it could not read back', () => {
    assert.throws(() => formatSiweMessage({ ...example, statement: 'two\nlines' }), /statement/);
    assert.throws(() => formatSiweMessage({ ...example, uri: 'https://evil.example' }), /URI/);
    assert.throws(() => formatSiweMessage({ ...example, nonce: 'short' }), /Nonce/);
    assert.throws(() => formatSiweMessage({ ...example, expirationTime: example.issuedAt }), /expires/);
  });
});

describe('lib/siwe: the purchase statement', () => {
  const statements = fc.record({
    tokens: fc
      .tuple(fc.integer({ min: 0, max: 999_999 }), fc.option(fc.integer({ min: 1, max: 99 })))
      .map(([whole, cents]) => (cents === null ? String(whole) : `${whole}.${String(cents).padStart(2, '0')}`)),
    symbol: fc.constantFrom('eUSD', 'eEUR', 'eGBR', 'eSGD'),
    chainName: fc.constantFrom(
      'Kassa Local One',
      'Kassa Local Two',
      'OP Mainnet',
      'zkSync Era',
      'Base',
      'BNB Smart Chain',
    ),
    payment: fc.integer({ min: 1, max: 99_999_999 }).map((cents) => (cents / 100).toFixed(2)),
    currencyCode: fc.constantFrom('EUR', 'GBP'),
    fee: fc.integer({ min: 0, max: 9_999 }).map((cents) => (cents / 100).toFixed(2)),
  });

  it('says what is bought, where, and for how much, and reads back the same', () => {
    assert.equal(
      purchaseStatement({
        tokens: '25',
        symbol: 'eEUR',
        chainName: 'Kassa Local Two',
        payment: '25.00',
        currencyCode: 'EUR',
        fee: '0.00',
      }),
      'Buy 25 eEUR on Kassa Local Two for 25.00 EUR, delivered to this address.',
    );
    fc.assert(
      fc.property(statements, (purchase) => {
        assert.deepEqual(parsePurchaseStatement(purchaseStatement(purchase)), { ...purchase });
      }),
      { numRuns: 500 },
    );
  });

  it('refuses any other statement, and chain names that would make it read two ways', () => {
    assert.equal(parsePurchaseStatement('Sign in to shop.example'), null);
    assert.equal(parsePurchaseStatement('Buy 25 eEUR on Kassa Local Two for 25.00 EUR, delivered to 0xabc.'), null);
    assert.equal(
      parsePurchaseStatement('Buy 25 eEUR on Two for 1.00 EUR for 25.00 EUR, delivered to this address.'),
      null,
    );
    assert.equal(
      parsePurchaseStatement('Buy 25 eEUR on Two for 25.00 EUR (fee 0.50 GBP included), delivered to this address.'),
      null,
    );
    assert.equal(isStatementChainName('Kassa Local Two'), true);
    for (const name of ['Pay for this', 'Two  spaces', ' Leading', 'Émoji', 'a\u202eb', '', 'x'.repeat(61)])
      assert.equal(isStatementChainName(name), false, name);
  });
});
