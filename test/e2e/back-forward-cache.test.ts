/**
 * Back from the bank with the browser's Back button, in Chromium with its back/forward cache on (as in
 * the browsers people use; Playwright turns it off by default): the shop's page is the same document,
 * shown again at once (`pageshow` with `persisted`), not loaded afresh, and the checkout shows the
 * payment's status as it is now. That takes the demo's pages and what the element reads not being
 * `no-store` (Chromium keeps a `no-store` page out of the cache once a script of it has read a
 * `no-store` answer, and many shops send their checkout page so), and the element holding no status
 * stream open while its page is hidden.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright';
import { launchChromium, partText, waitForPhase, watchProblems } from '../support/browser.ts';
import { sandboxClient } from '../support/sandbox-client.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';
import type { Sandbox } from '../../sandbox/server.ts';

/** In each document: an id of its own, and each `pageshow` (whether it came from the back/forward cache). */
function notePageShows(): void {
  const page = window as unknown as { kassaDocument: number; kassaShows: boolean[] };
  page.kassaDocument = Math.random();
  page.kassaShows = [];
  addEventListener('pageshow', (event) => page.kassaShows.push(event.persisted));
}

const documentOf = (page: Page) =>
  page.evaluate(() => {
    const { kassaDocument, kassaShows } = window as unknown as { kassaDocument: number; kassaShows: boolean[] };
    return { id: kassaDocument, shows: kassaShows };
  });

/** The bank settles the payment while the customer is on its page (they authorised in the bank's app). */
async function settleAtBank(sandbox: Sandbox, page: Page, status: 'COMPLETED' | 'FAILED'): Promise<void> {
  const transactionId = new URL(page.url()).pathname.split('/').pop()!;
  const settled = await sandboxClient(sandbox).control(`/payments/${transactionId}/outcome`, { status });
  assert.equal(settled.status, 200, settled.text);
}

/** Back to the shop, and its page shown again (from the cache there is no load event to wait for). */
async function back(page: Page, shownBefore: number): Promise<void> {
  await page.goBack({ waitUntil: 'commit' });
  await page.waitForFunction(
    (count) => ((window as unknown as { kassaShows?: boolean[] }).kassaShows?.length ?? 0) > count,
    shownBefore,
  );
}

/** The status streams open at the proxy now, as its /metrics counts them. */
async function openStreams(stack: Stack): Promise<number> {
  const metrics = (await stack.operator('/metrics')).text;
  return Number(/^kassa_sse_connections(?:\{[^}]*\})? (\d+)$/m.exec(metrics)![1]);
}

describe('e2e: back from the bank, the page from the back/forward cache', () => {
  let env: ShopStack;
  let browser: Browser;

  before(async () => {
    [env, browser] = await Promise.all([startShopStack(), launchChromium({ backForwardCache: true })]);
  });
  after(async () => {
    await browser.close();
    await env.stop();
  });

  it('Back from the bank restores the page at once, and the checkout shows the payment’s current status', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.addInitScript(notePageShows);
    const documents: string[] = [];
    page.on('request', (request) => request.isNavigationRequest() && documents.push(request.url()));
    await page.goto(`${env.shop.origin}/`);
    await waitForPhase(page, 'ready');
    const before = await documentOf(page);

    await page.getByRole('button', { name: 'Pay by bank' }).click();
    await page.waitForURL(/\/pay\/flow\//);
    await settleAtBank(env.stack.sandbox, page, 'COMPLETED');
    await back(page, before.shows.length);

    const restored = await documentOf(page);
    assert.equal(restored.id, before.id, 'the same document: restored, not loaded again');
    assert.deepEqual(restored.shows, [false, true], 'shown again from the back/forward cache');
    assert.equal(documents.filter((url) => url.startsWith(env.shop.origin)).length, 1, 'the shop’s page asked once');
    await waitForPhase(page, 'completed');
    assert.equal(await partText(page, 'status'), 'Payment received. Thank you!');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('twice to the bank: the status stream followed in between is closed while the page is hidden, and opened again on Back', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.addInitScript(notePageShows);
    await page.goto(`${env.shop.origin}/`);
    await waitForPhase(page, 'ready');
    const first = await documentOf(page);
    const streams: string[] = [];
    page.on('request', (request) => request.url().endsWith('/events') && streams.push(request.url()));

    await page.getByRole('button', { name: 'Pay by bank' }).click();
    await page.waitForURL(/\/pay\/flow\//);
    await back(page, 1);
    // Nothing happened at the bank: the payment waits for the customer there.
    await waitForPhase(page, 'authorising');
    assert.equal(streams.length, 1, 'the page follows the payment’s status stream');

    assert.equal(await openStreams(env.stack), 1);

    await page.getByRole('button', { name: 'Continue to your bank' }).click();
    await page.waitForURL(/\/pay\/flow\//);
    // The page, hidden in the cache, holds nothing open at the proxy (the browser would keep it).
    await eventually(
      async () => ((await openStreams(env.stack)) === 0 ? true : undefined),
      'no stream open while the customer is at the bank',
    );
    await settleAtBank(env.stack.sandbox, page, 'FAILED');
    await back(page, 2);
    const restored = await documentOf(page);
    assert.equal(restored.id, first.id, 'the same document, with the stream it had open');
    assert.deepEqual(restored.shows, [false, true, true]);
    await waitForPhase(page, 'failed');
    assert.equal(streams.length, 2, 'the stream opened again for the current status');
    await context.close();
  });
});

describe('e2e: a shop whose checkout page is no-store, back from the bank', () => {
  let stack: Stack;
  let shop: Server;
  let browser: Browser;
  let origin = '';

  before(async () => {
    // The shop's checkout page, sent with no-store as many shops send theirs, with the checkout on it.
    shop = createServer((request, response) => {
      if (request.url !== '/') return void response.writeHead(404).end();
      void stack
        .checkout({ reference: 'NO-STORE-1' })
        .then((checkout) =>
          response
            .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
            .end(
              `<!doctype html><html lang="en"><title>Checkout</title>` +
                `<script type="module" src="${stack.proxy.origin}/kassa.js"></script>` +
                `<main><kassa-checkout proxy="${stack.proxy.origin}" checkout="${checkout}"></kassa-checkout></main>`,
            ),
        );
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(shop.address() as { port: number }).port}`;
    [stack, browser] = await Promise.all([
      startStack({ env: { KASSA_ALLOWED_ORIGINS: origin, KASSA_RETURN_URLS: `${origin}/` } }),
      launchChromium({ backForwardCache: true }),
    ]);
  });
  after(async () => {
    await browser.close();
    await stack.stop();
    shop.close();
  });

  it('the page is restored from the cache: nothing Kassa read keeps it out', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.addInitScript(notePageShows);
    await page.goto(`${origin}/`);
    await waitForPhase(page, 'ready');
    const before = await documentOf(page);
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    await page.waitForURL(/\/pay\/flow\//);
    await settleAtBank(stack.sandbox, page, 'COMPLETED');
    await back(page, 1);
    const restored = await documentOf(page);
    assert.equal(restored.id, before.id, 'the same document: restored, not loaded again');
    assert.deepEqual(restored.shows, [false, true]);
    await waitForPhase(page, 'completed');
    await context.close();
  });
});
