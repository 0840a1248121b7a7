/**
 * What a customer without a wallet in the browser pastes into `<kassa-onramp>` (the address, the
 * signature from their wallet app), on its own (any text: fast-check tries many), and the wallet
 * apps' universal links for a page's address.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Wallet } from 'ethers';
import fc from 'fast-check';
import { readAddress, readSignature } from '../../widget/onramp/outside-wallet/address-reading.ts';
import { WALLET_APPS } from '../../widget/onramp/outside-wallet/wallet-apps.ts';
import { FUZZ_RUNS } from '../support/arbitraries.ts';

const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-fA-F]{${length}}$`));

describe('on-ramp: a wallet outside the browser', () => {
  it('reads an address as wallets share it, and nothing else', () => {
    const address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    assert.equal(readAddress(` ${address}\n`), address);
    assert.equal(readAddress(`ethereum:${address}@31338`), address);
    assert.equal(readAddress(`ethereum:${address}?value=1`), address);
    assert.equal(readAddress(address.slice(0, -1)), undefined);
    assert.equal(readAddress(address.slice(2)), undefined);
    assert.equal(readAddress(`0x${'0'.repeat(40)}`), undefined, 'the zero address is nobody’s');
    assert.equal(readAddress(`${address}00`), undefined);
  });

  it('any text: what reads as an address is 0x and 40 hex digits', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 60 }),
          hex(40).map((digits) => `0x${digits}`),
        ),
        (text) => {
          const address = readAddress(text);
          if (address !== undefined) assert.match(address, /^0x[0-9a-fA-F]{40}$/);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('reads a signature as wallet apps show it; refuses a private key’s and a phrase’s shape', async () => {
    const wallet = Wallet.createRandom();
    const signature = await wallet.signMessage('hello');
    assert.deepEqual(readSignature(signature), { ok: true, signature });
    assert.deepEqual(readSignature(`  ${signature.slice(2, 70)}\n${signature.slice(70).toUpperCase()} `), {
      ok: true,
      signature,
    });
    assert.deepEqual(readSignature(wallet.privateKey), { ok: false, problem: 'key' });
    assert.deepEqual(readSignature(wallet.privateKey.slice(2)), { ok: false, problem: 'key' });
    assert.deepEqual(readSignature(wallet.mnemonic!.phrase), { ok: false, problem: 'phrase' });
    assert.deepEqual(readSignature(''), { ok: false, problem: 'empty' });
    assert.deepEqual(readSignature('0x1234'), { ok: false, problem: 'invalid' });
    assert.deepEqual(readSignature(`${signature}0`), { ok: false, problem: 'invalid' });
    assert.deepEqual(readSignature('0xzz'), { ok: false, problem: 'invalid' });
  });

  it('any text: what reads as a signature is 0x and an even number of hex digits, never 64 of them', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          hex(64),
          hex(130).map((digits) => `0x${digits}`),
        ),
        (text) => {
          const reading = readSignature(text);
          if (!reading.ok) return;
          assert.match(reading.signature, /^0x([0-9a-f]{2})+$/);
          assert.notEqual(reading.signature.length, 66);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('every wallet app’s link carries the page’s address, query and all, and goes to the app’s own https host', () => {
    const page = new URL('https://shop.example/buy?kassa_purchase=abc&x=1');
    for (const app of WALLET_APPS) {
      const link = new URL(app.link(page));
      assert.equal(link.protocol, 'https:', app.name);
      assert.ok(
        decodeURIComponent(link.href).includes('shop.example/buy?kassa_purchase=abc&x=1'),
        `${app.name}: ${link.href}`,
      );
    }
  });
});
