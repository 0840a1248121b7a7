/**
 * The receipt's and the first run's small rules, on their own: the fee to 4 significant digits, an
 * explorer link only to an http(s) page of the listed explorer, the merchant's help page only when
 * http(s). The URLs come from outside (the chain listing, a page's attribute): fast-check tries many.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ChainEntry } from '../../schemas/reforge.ts';
import { helpLink } from '../../widget/bridge/first-run-view.ts';
import { explorerLink, significant } from '../../widget/bridge/history-views.ts';
import { FUZZ_RUNS } from '../support/arbitraries.ts';

const HASH = `0x${'ab'.repeat(32)}`;
const chain = (blockExplorerUrl?: string) => ({ name: 'One', chainId: 1, blockExplorerUrl }) as ChainEntry;

describe('wallet panel: receipt figures and links', () => {
  it('the fee to 4 significant digits, in the locale’s notation', () => {
    assert.equal(significant('0.000176684353021104', 'ETH', 'en'), '0.0001767 ETH');
    assert.equal(significant('0.000176684353021104', 'ETH', 'de'), '0,0001767 ETH');
    assert.equal(significant('12345.678', 'ETH', 'en'), '12,350 ETH');
    assert.equal(significant('0.5', 'ETH', 'en'), '0.5 ETH');
  });

  it('an explorer link to /tx/<hash> of an http(s) explorer; none without one', () => {
    assert.equal(explorerLink(chain('https://explorer.example/'), HASH), `https://explorer.example/tx/${HASH}`);
    assert.equal(explorerLink(chain('https://x.example/chain/one'), HASH), `https://x.example/chain/one/tx/${HASH}`);
    assert.equal(explorerLink(chain(), HASH), undefined);
    assert.equal(explorerLink(undefined, HASH), undefined);
    assert.equal(explorerLink(chain('javascript:alert(1)//'), HASH), undefined);
    assert.equal(explorerLink(chain('data:text/html,hi'), HASH), undefined);
  });

  it('whatever the listing says, a link is an http(s) URL or none (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.webUrl(), fc.constantFrom('javascript:x', 'JAVASCRIPT://x', ' https://a.b')),
        (url) => {
          const link = explorerLink(chain(url), HASH);
          assert.ok(link === undefined || /^https?:\/\//.test(link), String(link));
          const help = helpLink(url, 'https://shop.example/wallet');
          assert.ok(help === undefined || /^https?:\/\//.test(help), String(help));
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('the help page: relative to the page, http(s) only, none when not given', () => {
    assert.equal(helpLink('/help', 'https://shop.example/wallet'), 'https://shop.example/help');
    assert.equal(helpLink('', 'https://shop.example/wallet'), undefined);
    assert.equal(helpLink('javascript:alert(1)', 'https://shop.example/wallet'), undefined);
  });
});
