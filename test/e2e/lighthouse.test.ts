/**
 * Lighthouse on the demo shop's three pages (mobile, its default preset), as a merchant's
 * performance team would run it before embedding Kassa: no layout shift worth the name, full
 * accessibility, best practices, no Kassa script sent uncompressed, and nothing that keeps the page
 * out of the back/forward cache. The performance score depends on the machine: bench/lighthouse.ts
 * prints it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auditPages, type PageAudit } from '../support/lighthouse.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';

const PATHS = ['/', '/donate', '/wallet'];

describe('e2e: Lighthouse on the demo’s pages (mobile)', () => {
  let env: ShopStack;
  let audits: PageAudit[];

  before(async () => {
    env = await startShopStack();
    audits = await auditPages(PATHS.map((path) => `${env.shop.origin}${path}`));
  });
  after(() => env.stop());

  for (const [index, path] of PATHS.entries()) {
    it(`${path}: layout shift at most 0.02, accessibility 100, best practices at least 96, Kassa’s scripts compressed, back/forward cache allowed`, () => {
      const audit = audits[index]!;
      const seen = JSON.stringify(audit, null, 2);
      assert.ok(audit.cumulativeLayoutShift <= 0.02, `cumulative layout shift ${audit.cumulativeLayoutShift}: ${seen}`);
      assert.equal(audit.accessibility, 100, seen);
      assert.ok(audit.bestPractices >= 96, seen);
      assert.deepEqual(
        audit.uncompressed.filter((url) => url.startsWith(env.stack.proxy.origin)),
        [],
        'no script from the proxy sent uncompressed',
      );
      assert.deepEqual(audit.backForwardCacheFailures, [], seen);
    });
  }
});
