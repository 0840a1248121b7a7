/**
 * Who the service worker answers, in real Chromium with the built extension: its requests (settings,
 * the vault, approvals…) and its pages' ports only for this extension's own pages. A content script,
 * which runs in every web page, gets a refusal for any request and a closed port; only the provider
 * port is its own. The content script's world is reached through the DevTools protocol, as code that
 * took it over would run there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CDPSession, Page } from 'playwright';
import { APPROVAL_PORT, PAYMENTS_PORT, UI_CHANNEL } from '../../extension/channels.ts';
import { launchExtension, type LoadedExtension } from '../support/extension.ts';
import { startSites, type Sites } from '../support/sites.ts';

/**
 * Asks the worker (which wakes it), then opens each port, from wherever it runs: what it was answered,
 * and whether each port was closed, sent a message, or was still open after five seconds.
 */
const PROBE = `(async () => {
  const answer = await chrome.runtime.sendMessage({ channel: ${JSON.stringify(UI_CHANNEL)}, request: { kind: 'vault.status' } });
  const port = (name) => new Promise((resolve) => {
    const opened = chrome.runtime.connect({ name });
    opened.onDisconnect.addListener(() => resolve('closed'));
    opened.onMessage.addListener(() => resolve('a message'));
    setTimeout(() => resolve('open'), 5000);
  });
  return { answer, ports: [await port(${JSON.stringify(PAYMENTS_PORT)}), await port(${JSON.stringify(APPROVAL_PORT)}), await port('kassa-unknown')] };
})()`;

interface Probed {
  answer: { ok: boolean; error?: string; value?: unknown };
  ports: string[];
}

describe('extension: the worker answers only its own pages', () => {
  let extension: LoadedExtension;
  let sites: Sites;

  before(async () => {
    sites = await startSites();
    extension = await launchExtension();
  });
  after(async () => {
    await extension?.dispose();
    await sites?.close();
  });

  /** The content script's world (Kassa's isolated world) in `page`, as a DevTools execution context. */
  async function contentScriptWorld(page: Page): Promise<{ cdp: CDPSession; contextId: number }> {
    const cdp = await extension.context.newCDPSession(page);
    const contexts: Array<{ id: number; origin: string; auxData?: { type?: string } }> = [];
    cdp.on('Runtime.executionContextCreated', ({ context }) => contexts.push(context));
    await cdp.send('Runtime.enable');
    const world = contexts.find(
      (context) => context.auxData?.type === 'isolated' && context.origin === `chrome-extension://${extension.id}`,
    );
    assert.ok(world, `Kassa's content script runs in the page: ${JSON.stringify(contexts)}`);
    return { cdp, contextId: world.id };
  }

  it('refuses a content script’s requests and closes the ports it opens', async () => {
    const page = await extension.context.newPage();
    await page.goto(`${sites.origin('shop.localhost')}/`);
    const { cdp, contextId } = await contentScriptWorld(page);
    const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', {
      expression: PROBE,
      contextId,
      awaitPromise: true,
      returnByValue: true,
    });
    assert.equal(exceptionDetails, undefined, JSON.stringify(exceptionDetails));
    assert.deepEqual(result.value as Probed, {
      answer: { ok: false, error: 'Only Kassa’s own pages may ask this' },
      ports: ['closed', 'closed', 'closed'],
    });
    await cdp.detach();
    await page.close();
  });

  it('answers its own pages, and keeps their ports open', async () => {
    const page = await extension.openPage('ui/popup.html?tab=settings');
    const probed = await page.evaluate<Probed>(PROBE);
    assert.equal(probed.answer.ok, true, JSON.stringify(probed.answer));
    assert.equal((probed.answer.value as { state: string }).state, 'empty');
    // The payments port answers at once (no proxy is set: the stream is unavailable); the approval
    // port only keeps the worker alive; an unknown one is closed.
    assert.deepEqual(probed.ports, ['a message', 'open', 'closed']);
    await page.close();
  });
});
