/**
 * The wallet's check of a `personal_sign` (extension/background/purchase-proof.ts), on its own, with
 * fast-check: whatever a page sends, the answer is a refusal with an EIP-1193 code, or a proof that is
 * exactly a purchase message the proxy writes, for the asking origin, the connected account, a listed
 * chain, and not expired. The Chromium suites (wallet-purchase-proof.test.ts) drive it through the
 * real extension.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { hexlify, toUtf8Bytes } from 'ethers';
import {
  checkPurchaseProof,
  ISSUED_AT_SKEW_MS,
  personalSignParams,
  type PurchaseProof,
} from '../../extension/background/purchase-proof.ts';
import { ProviderRpcError, RPC } from '../../extension/eip1193.ts';
import { formatSiweMessage, purchaseStatement, type SiweMessage } from '../../lib/siwe.ts';
import type { ChainEntry } from '../../schemas/reforge.ts';

const ACCOUNT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const ORIGIN = 'https://shop.example';
const NOW = Date.UTC(2026, 10, 25, 10, 5);
const token = (symbol: string) => ({
  address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  decimals: 18,
  symbol,
  name: `Kassa ${symbol}`,
});
const chain = (chainId: number, name: string): ChainEntry => ({
  name,
  chainId,
  rpcUrl: 'http://127.0.0.1:8545',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  tokens: { eEUR: token('eEUR'), eGBR: token('eGBR') },
});
const CHAINS = [chain(31337, 'Kassa Local One'), chain(31338, 'Kassa Local Two')];
const context = { origin: ORIGIN, account: ACCOUNT, chains: CHAINS, now: NOW };

const good: SiweMessage = {
  domain: 'shop.example',
  address: ACCOUNT,
  statement: purchaseStatement({
    tokens: '25',
    symbol: 'eEUR',
    chainName: 'Kassa Local Two',
    payment: '25.50',
    currencyCode: 'EUR',
    fee: '0.50',
  }),
  uri: ORIGIN,
  chainId: 31338,
  nonce: 'k3Jd9XqPz2LmW8aTyB4nV7cE',
  issuedAt: new Date(NOW - 60_000).toISOString(),
  expirationTime: new Date(NOW + 540_000).toISOString(),
  requestId: 'quo_4f9a2c1e8b7d0000',
};
const text = (change: Partial<SiweMessage> = {}) => formatSiweMessage({ ...good, ...change });

/** The refusal `run` throws, as `{code, message}`. */
function refusal(run: () => unknown): { code: number; message: string } {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ProviderRpcError, `a ProviderRpcError, not ${String(error)}`);
    return { code: error.code, message: error.message };
  }
  assert.fail('not refused');
}

describe('extension: the purchase proof check', () => {
  it('accepts the proxy’s message for its own site and account, as text or as hex', () => {
    const proof = checkPurchaseProof(text(), context);
    assert.equal(proof.text, text());
    assert.equal(proof.chain.name, 'Kassa Local Two');
    assert.deepEqual(proof.statement, {
      tokens: '25',
      symbol: 'eEUR',
      chainName: 'Kassa Local Two',
      payment: '25.50',
      currencyCode: 'EUR',
      fee: '0.50',
    });
    assert.deepEqual(personalSignParams([hexlify(toUtf8Bytes(text())), ACCOUNT.toLowerCase()]), {
      text: text(),
      address: ACCOUNT.toLowerCase(),
    });
    assert.deepEqual(personalSignParams([text(), ACCOUNT]), { text: text(), address: ACCOUNT });
    // Issued a little in the future (clocks differ): still accepted.
    checkPurchaseProof(text({ issuedAt: new Date(NOW + ISSUED_AT_SKEW_MS).toISOString() }), context);
  });

  it('refuses each way a message can be wrong, with its code', () => {
    const cases: Array<[string, string, number, RegExp]> = [
      [
        'another site',
        text({ domain: 'evil.example', uri: 'https://evil.example' }),
        RPC.unauthorized,
        /is for evil\.example, not for shop\.example/,
      ],
      ['another scheme', text({ uri: 'http://shop.example' }), RPC.unauthorized, /is for shop\.example/],
      [
        'another port',
        text({ domain: 'shop.example:8443', uri: 'https://shop.example:8443' }),
        RPC.unauthorized,
        /for shop\.example:8443/,
      ],
      [
        'another account',
        text({ address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' }),
        RPC.unauthorized,
        /names 0x3C44/,
      ],
      ['not EIP-55', text({ address: ACCOUNT.toLowerCase() }), RPC.unauthorized, /not the account/],
      ['expired', text({ expirationTime: new Date(NOW).toISOString() }), RPC.invalidParams, /expired at/],
      [
        'from the future',
        text({
          issuedAt: new Date(NOW + ISSUED_AT_SKEW_MS + 1_000).toISOString(),
          expirationTime: new Date(NOW + 3_600_000).toISOString(),
        }),
        RPC.invalidParams,
        /still to come/,
      ],
      ['an unlisted chain', text({ chainId: 1 }), RPC.unsupported, /Chain 1 is not among/],
      [
        'another chain’s name',
        text({ chainId: 31337 }),
        RPC.unsupported,
        /names Kassa Local Two, but its Chain ID 31337 is Kassa Local One/,
      ],
      [
        'another statement',
        text({ statement: 'Sign in to shop.example.' }),
        RPC.unsupported,
        /only the ownership proof/,
      ],
      ['appended', `${text()}\n`, RPC.unsupported, /only the ownership proof/],
      ['resources', `${text()}\nResources:\n- https://evil.example`, RPC.unsupported, /only the ownership proof/],
    ];
    for (const [what, message, code, reason] of cases) {
      const refused = refusal(() => checkPurchaseProof(message, context));
      assert.equal(refused.code, code, what);
      assert.match(refused.message, reason, what);
    }
    const unlisted = {
      ...context,
      chains: [chain(31338, 'Kassa Local Two')].map((entry) => ({ ...entry, tokens: {} })),
    };
    assert.match(refusal(() => checkPurchaseProof(text(), unlisted)).message, /Kassa Local Two carries no eEUR/);
  });

  it('whatever text a page sends, it is refused or exactly a proof for this site, account and time (fast-check)', () => {
    const lines = text().split('\n');
    const texts = fc.oneof(
      fc.string({ maxLength: 600 }),
      fc.string({ unit: 'binary', maxLength: 600 }),
      // The real message with a line changed, removed, added or edited.
      fc
        .tuple(
          fc.nat({ max: lines.length }),
          fc.string({ unit: 'grapheme-ascii', maxLength: 80 }),
          fc.constantFrom('set', 'insert', 'append'),
        )
        .map(([at, line, how]) => {
          const copy = [...lines];
          if (how === 'set') copy[at % lines.length] = line;
          else if (how === 'insert') copy.splice(at, 0, line);
          else copy[at % lines.length] += line;
          return copy.join('\n');
        }),
      fc
        .tuple(fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 }))
        .map(([before, after]) => `${before}${text()}${after}`),
    );
    fc.assert(
      fc.property(texts, (candidate) => {
        let proof: PurchaseProof;
        try {
          proof = checkPurchaseProof(candidate, context);
        } catch (error) {
          assert.ok(error instanceof ProviderRpcError, String(error));
          assert.ok(([RPC.unsupported, RPC.unauthorized, RPC.invalidParams] as number[]).includes(error.code));
          return;
        }
        assert.equal(formatSiweMessage(proof.message), candidate, 'exactly what the proxy writes');
        assert.equal(proof.message.uri, ORIGIN);
        assert.equal(proof.message.address, ACCOUNT);
        assert.ok(Date.parse(proof.message.expirationTime) > NOW);
        assert.ok(CHAINS.some((entry) => entry.chainId === proof.message.chainId));
      }),
      { numRuns: 2_000 },
    );
  });

  it('personal_sign params: [message, address] or a clear refusal, never anything else (fast-check)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (params) => {
        try {
          const read = personalSignParams(params);
          assert.ok(Array.isArray(params) && params.length === 2);
          assert.equal(typeof read.text, 'string');
        } catch (error) {
          assert.ok(error instanceof ProviderRpcError, String(error));
          assert.ok(([RPC.invalidParams, RPC.unsupported] as number[]).includes(error.code));
        }
      }),
      { numRuns: 2_000 },
    );
    assert.equal(
      refusal(() => personalSignParams([ACCOUNT, text()])).code,
      RPC.invalidParams,
      'the order is [message, address]',
    );
    assert.equal(refusal(() => personalSignParams(['0xc328ff', ACCOUNT])).code, RPC.unsupported, 'not UTF-8');
  });
});
