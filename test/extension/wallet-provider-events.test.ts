/**
 * Kassa's EIP-1193 provider as a page sees it, through the built extension in real Chromium, against
 * the real proxy's chain listing and the emulator's anvil chains (issue 35, defect 9):
 *
 * - its events follow Node's EventEmitter API (EIP-1193: `on` and `removeListener` "per the Node.js
 *   EventEmitter API"): the same script gives the same trace on the provider as on `node:events`;
 * - it is frozen, with its prototypes and its EIP-6963 announcement (EIP-6963's advice): a page
 *   script cannot replace `request`, and what dapps hold still reaches Kassa;
 * - when no chain answers, it emits `disconnect` (4900) and requests reject with 4900; when one only
 *   of them is down, requests for it reject with 4901 and nothing is emitted; when a chain answers
 *   again, `connect`, without the page asking anything;
 * - when the extension is reloaded under the page, it emits `disconnect` (4900), `isConnected()` is
 *   false, the request in flight and every later one reject with 4900.
 *
 * The chains are reached through TCP forwarders the test can take down and bring back: a small
 * proxy in front of the real one lends its chain listing with the forwarders' addresses.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright';
import { UI_CHANNEL } from '../../extension/channels.ts';
import { anvilAccount } from '../support/chains.ts';
import {
  approvalWindow,
  configure,
  importVaultKey,
  launchExtension,
  openDapp,
  providerCall as call,
  setExtensionEnabled,
  type LoadedExtension,
} from '../support/extension.ts';
import { startSites, type Sites } from '../support/sites.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { startForwarder } from '../support/tcp-forwarder.ts';

type Forwarder = Awaited<ReturnType<typeof startForwarder>>;
type Emitter = Pick<
  EventEmitter,
  | 'on'
  | 'once'
  | 'off'
  | 'prependListener'
  | 'prependOnceListener'
  | 'removeListener'
  | 'removeAllListeners'
  | 'emit'
  | 'listeners'
  | 'listenerCount'
  | 'eventNames'
>;

const PASSWORD = 'a long enough password';
const ACCOUNT = anvilAccount(6);

/**
 * One script of EventEmitter calls, its trace: who is called, in what order, with what `this` and
 * arguments, and what each method returns. It runs on `node:events` here and on Kassa's provider in
 * the page (so it must stand alone: Playwright sends its source).
 */
function exerciseEmitter(emitter: Emitter): unknown[] {
  const trace: unknown[] = [];
  const names = new Map<unknown, string>();
  const label = (listener: unknown) => names.get(listener) ?? typeof listener;
  const listener = (name: string) => {
    const fn = function (this: unknown, ...args: unknown[]) {
      trace.push([name, this === emitter, ...args]);
    };
    names.set(fn, name);
    return fn;
  };
  const [a, b, c] = [listener('a'), listener('b'), listener('c')];

  // once and prependOnceListener: each called once, in order, then gone.
  emitter.once('y', b);
  emitter.prependOnceListener('y', c);
  trace.push(['once emit', emitter.emit('y', 'first'), emitter.emit('y', 'second')]);
  emitter.once('w', a);
  emitter.off('w', a);
  trace.push(['once removed by its listener', emitter.emit('w')]);

  emitter.on('newListener', (event: string, added: unknown) => trace.push(['newListener', event, label(added)]));
  emitter.on('removeListener', (event: string, removed: unknown) =>
    trace.push(['removeListener', event, label(removed)]),
  );
  // on returns the emitter; a listener added twice is called twice; prependListener goes first.
  trace.push(['on returns the emitter', emitter.on('x', a) === emitter]);
  emitter.on('x', b);
  emitter.on('x', a);
  emitter.prependListener('x', c);
  trace.push(['emit', emitter.emit('x', 1, 'two', { three: 3 })]);
  trace.push(['count', emitter.listenerCount('x'), emitter.listenerCount('x', a), emitter.listenerCount('none')]);
  // removeListener takes away one of the two, the last added.
  trace.push(['removeListener returns the emitter', emitter.removeListener('x', a) === emitter]);
  trace.push(['listeners', emitter.listeners('x').map(label)]);
  emitter.removeListener('x', listener('never added'));

  // A listener removed during an emit is still called by it, not by the next.
  const remover = function () {
    trace.push(['remover']);
    emitter.removeListener('z', a);
  };
  names.set(remover, 'remover');
  emitter.on('z', remover);
  emitter.on('z', a);
  emitter.emit('z', 'during');
  emitter.emit('z', 'after');

  trace.push(['eventNames', emitter.eventNames().map(String)]);
  emitter.removeAllListeners('x');
  trace.push(['x emptied', emitter.listenerCount('x'), emitter.emit('x'), emitter.eventNames().map(String)]);
  emitter.removeAllListeners();
  trace.push(['all emptied', emitter.eventNames().map(String), emitter.emit('z')]);

  // An error event nobody listens to throws; a listener must be a function.
  try {
    emitter.emit('error', new Error('nobody listens'));
    trace.push(['error event did not throw']);
  } catch (error) {
    trace.push(['error event throws', (error as Error).message]);
  }
  try {
    emitter.on('x', 'not a function' as unknown as () => void);
    trace.push(['a string was taken as a listener']);
  } catch (error) {
    trace.push(['listener refused', (error as Error).name]);
  }
  return trace;
}

/** A proxy lending the real one's chain listing, each chain's RPC URL replaced by its forwarder's. */
async function listingThrough(proxy: string, forwarders: Map<number, Forwarder>): Promise<Server> {
  const server = createServer((request, response) => {
    void (async () => {
      if (!request.url?.startsWith('/api/bridge/chains'))
        return response.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"not here"}');
      const listing = (await (await fetch(`${proxy}${request.url}`)).json()) as Array<{
        chainId: number;
        rpcUrl: string;
      }>;
      for (const chain of listing) chain.rpcUrl = `http://127.0.0.1:${forwarders.get(chain.chainId)!.port}`;
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(listing));
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** The page's record of the provider's `disconnect` events (besides those discoverKassa keeps), and of answers. */
function recordDisconnects(page: Page): Promise<void> {
  return page.evaluate(() => {
    const seen = (window as unknown as { providerEvents: Array<[string, unknown]> }).providerEvents;
    const provider = (window as unknown as { kassa: { on(event: string, listener: (error: Error) => void): void } })
      .kassa;
    provider.on('disconnect', (error) =>
      seen.push([
        'disconnect',
        {
          isError: error instanceof Error,
          name: error.name,
          code: (error as Error & { code: number }).code,
          message: error.message,
        },
      ]),
    );
  });
}

/** The page asks, and notes the answer (or the refusal's code) after the events it heard before. */
function askAndNote(page: Page, method: string): Promise<void> {
  return page.evaluate(async (method) => {
    const seen = (window as unknown as { providerEvents: Array<[string, unknown]> }).providerEvents;
    const provider = (window as unknown as { kassa: { request(args: unknown): Promise<unknown> } }).kassa;
    try {
      await provider.request({ method });
      seen.push([`${method} answered`, null]);
    } catch (error) {
      seen.push([`${method} refused`, (error as { code: number }).code]);
    }
  }, method);
}

const eventsOf = (page: Page) =>
  page.evaluate(() => (window as unknown as { providerEvents: Array<[string, unknown]> }).providerEvents);
/** The last `count` things the page heard (accountsChanged aside), a `disconnect` by its code. */
const lastHeard = async (page: Page, count: number) =>
  (await eventsOf(page))
    .filter(([name]) => name !== 'accountsChanged')
    .slice(-count)
    .map(([name, value]) => (name === 'disconnect' ? [name, (value as { code: number }).code] : [name, value]));
const eventNamesOf = async (page: Page) => (await eventsOf(page)).map(([name]) => name);
const isConnected = (page: Page) =>
  page.evaluate(() => (window as unknown as { kassa: { isConnected(): boolean } }).kassa.isConnected());
/** Waits until the page has heard `count` events named `name`. */
const heard = (page: Page, name: string, count = 1) =>
  page.waitForFunction(
    ([name, count]) =>
      (window as unknown as { providerEvents: Array<[string, unknown]> }).providerEvents.filter(
        ([event]) => event === name,
      ).length >= count,
    [name, count] as const,
  );

describe('extension: the provider’s events, disconnection and freezing (EIP-1193, EIP-6963)', () => {
  let sites: Sites;
  let stack: Stack;
  let extension: LoadedExtension;
  let listing: Server;
  const forwarders = new Map<number, Forwarder>();
  const [ONE, TWO] = [31337, 31338];

  before(async () => {
    sites = await startSites();
    stack = await startStack();
    for (const chain of stack.sandbox.chains)
      forwarders.set(chain.chainId, await startForwarder(Number(new URL(chain.rpcUrl).port)));
    listing = await listingThrough(stack.proxy.origin, forwarders);
    extension = await launchExtension();
    await configure(extension, `http://127.0.0.1:${(listing.address() as AddressInfo).port}`);
  });
  /** The user moves the wallet to another chain, as the Wallet tab does. */
  const switchWallet = async (chainId: number) => {
    const wallet = await extension.openPage('ui/popup.html?tab=wallet');
    const answer = await wallet.evaluate(
      ([channel, chainId]) => chrome.runtime.sendMessage({ channel, request: { kind: 'wallet.switchChain', chainId } }),
      [UI_CHANNEL, chainId] as const,
    );
    await wallet.close();
    assert.equal((answer as { ok: boolean }).ok, true, JSON.stringify(answer));
  };
  after(async () => {
    await extension?.dispose();
    listing?.close();
    for (const forwarder of forwarders.values()) await forwarder.close();
    await stack?.stop();
    await sites?.close();
  });

  it('emit, on, once, removeListener… behave as Node’s EventEmitter; emit tells the page only', async () => {
    const page = await extension.context.newPage();
    await page.goto(`${sites.origin('events.localhost')}/`);
    // window.ethereum is Kassa's here (no other wallet): no listener of the test's on it.
    await page.waitForFunction(() => (window as { ethereum?: { isKassa?: boolean } }).ethereum?.isKassa === true);
    // The script's source as tsx compiled it names its functions with a helper of its own (`__name`).
    const inPage = await page.evaluate<unknown[]>(
      `(() => { const __name = (fn) => fn; return (${exerciseEmitter.toString()})(window.ethereum); })()`,
    );
    assert.deepEqual(inPage, exerciseEmitter(new EventEmitter()));

    // A listener that throws keeps neither the next ones nor Kassa from going on; the page still sees its error.
    const thrown = page.waitForEvent('pageerror');
    const calledAfter = await page.evaluate(() => {
      const provider = (window as unknown as { ethereum: EventEmitter }).ethereum;
      let after = false;
      provider.on('accountsChanged', () => {
        throw new Error('a dapp’s listener failed');
      });
      provider.on('accountsChanged', () => (after = true));
      return provider.emit('accountsChanged', ['0x0000000000000000000000000000000000000001']) && after;
    });
    assert.equal(calledAfter, true);
    assert.equal((await thrown).message, 'a dapp’s listener failed');
    // emit is the page telling itself: what Kassa answers, and whether it is connected, are the worker's to say.
    assert.deepEqual(
      await page.evaluate(async () => {
        const provider = (
          window as unknown as {
            ethereum: EventEmitter & { request(args: unknown): Promise<unknown>; isConnected(): boolean };
          }
        ).ethereum;
        const chainId = await provider.request({ method: 'eth_chainId' });
        provider.emit('disconnect', new Error('a page script says so'));
        return [chainId, await provider.request({ method: 'eth_accounts' }), provider.isConnected()];
      }),
      ['0x7a69', [], true],
    );
    await page.close();
  });

  it('a page script cannot replace request or change the provider; the EIP-6963 announcement is frozen', async () => {
    const page = await openDapp(extension, `${sites.origin('frozen.localhost')}/`);
    const attempts = await page.evaluate(() => {
      const provider = (window as unknown as { kassa: Record<string, unknown> }).kassa;
      const announced = (window as unknown as { announced: Array<{ info: { rdns: string } }> }).announced.find(
        (detail) => detail.info.rdns === 'dev.kassa.wallet',
      )!;
      const stolen: unknown[] = [];
      // Not a function literal: tsx would name it with a helper the page lacks.
      const evil = stolen.push.bind(stolen);
      const prototype = Object.getPrototypeOf(provider) as Record<string, unknown>;
      // Each attempt as Reflect reports it: false where strict code gets a TypeError and sloppy code nothing.
      const outcome = {
        assign: Reflect.set(provider, 'request', evil),
        define: Reflect.defineProperty(provider, 'request', { value: evil }),
        remove: Reflect.deleteProperty(provider, 'isKassa'),
        removeInherited: Reflect.deleteProperty(prototype, 'request'),
        add: Reflect.set(provider, 'isMetaMask', true),
        prototype: Reflect.set(prototype, 'request', evil),
        inherited: Reflect.set(Object.getPrototypeOf(prototype) as object, 'on', evil),
        swapPrototype: Reflect.setPrototypeOf(provider, { request: evil }),
        detail: Reflect.set(announced, 'provider', { request: evil }),
        info: Reflect.set(announced.info, 'rdns', 'evil.wallet'),
        sloppy: (() => {
          try {
            provider.request = evil;
          } catch {
            // a strict caller's TypeError: the same refusal
          }
          return provider.request === evil;
        })(),
        frozen: [provider, prototype, Object.getPrototypeOf(prototype), announced, announced.info].map((object) =>
          Object.isFrozen(object),
        ),
        sameRequest: provider.request === prototype.request,
        isMetaMask: 'isMetaMask' in provider,
        rdns: announced.info.rdns,
        detailProvider: (announced as unknown as { provider: unknown }).provider === provider,
        stolen,
      };
      return outcome;
    });
    assert.deepEqual(attempts, {
      assign: false,
      define: false,
      remove: false,
      removeInherited: false,
      add: false,
      prototype: false,
      inherited: false,
      swapPrototype: false,
      detail: false,
      info: false,
      sloppy: false,
      frozen: [true, true, true, true, true],
      sameRequest: true,
      isMetaMask: false,
      rdns: 'dev.kassa.wallet',
      detailProvider: true,
      stolen: [],
    });
    // What the page holds still reaches Kassa; a dapp asking again gets the same frozen announcement.
    assert.deepEqual(await call(page, 'eth_chainId'), { result: '0x7a69' });
    assert.equal(
      await page.evaluate(() => {
        let again: unknown;
        window.addEventListener('eip6963:announceProvider', (event) => {
          const detail = (event as CustomEvent<{ info: { rdns: string } }>).detail;
          if (detail.info.rdns === 'dev.kassa.wallet') again = detail;
        });
        window.dispatchEvent(new Event('eip6963:requestProvider'));
        const first = (window as unknown as { announced: Array<{ info: { rdns: string } }> }).announced.find(
          (detail) => detail.info.rdns === 'dev.kassa.wallet',
        );
        return again === first && Object.isFrozen(again);
      }),
      true,
    );
    await page.close();
  });

  it('no chain answers: disconnect (4900), requests refused 4900; one comes back: connect, unasked', async () => {
    const page = await openDapp(extension, `${sites.origin('chains.localhost')}/`);
    await recordDisconnects(page);
    assert.deepEqual(await call(page, 'eth_chainId'), { result: '0x7a69' });
    await heard(page, 'connect');
    assert.equal(await isConnected(page), true);

    // The wallet's chain alone is down: Kassa still serves the other, so it is connected (EIP-1193: 4901).
    forwarders.get(ONE)!.refuse();
    assert.equal((await call(page, 'eth_blockNumber')).error?.code, 4901);
    assert.equal(await isConnected(page), true);

    // Both down, and the page asks nothing: the service worker finds out and the page hears `disconnect`.
    forwarders.get(TWO)!.refuse();
    await heard(page, 'disconnect');
    assert.equal(await isConnected(page), false);
    const [, error] = (await eventsOf(page)).find(([name]) => name === 'disconnect')!;
    assert.deepEqual(
      { ...(error as Record<string, unknown>), message: undefined },
      { isError: true, name: 'ProviderRpcError', code: 4900, message: undefined },
    );
    assert.match((error as { message: string }).message, /None of Kassa's chains answers/);
    assert.equal((await call(page, 'eth_blockNumber')).error?.code, 4900);

    // One comes back: `connect` with the wallet's chain, without the page asking.
    forwarders.get(TWO)!.resume();
    await heard(page, 'connect', 2);
    assert.equal(await isConnected(page), true);
    assert.deepEqual((await eventsOf(page)).filter(([name]) => name === 'connect').at(-1), [
      'connect',
      { chainId: '0x7a69' },
    ]);
    forwarders.get(ONE)!.resume();
    assert.match(String((await call(page, 'eth_blockNumber')).result), /^0x[0-9a-f]+$/);

    // Down while the page asks: it hears `disconnect` before the refusal (4900); back, `connect` before the answer.
    forwarders.get(ONE)!.refuse();
    forwarders.get(TWO)!.refuse();
    await askAndNote(page, 'eth_blockNumber');
    forwarders.get(ONE)!.resume();
    forwarders.get(TWO)!.resume();
    await heard(page, 'connect', 3);
    await askAndNote(page, 'eth_blockNumber');
    assert.deepEqual(await lastHeard(page, 4), [
      ['disconnect', 4900],
      ['eth_blockNumber refused', 4900],
      ['connect', { chainId: '0x7a69' }],
      ['eth_blockNumber answered', null],
    ]);

    // The wallet moves to another chain while none answers: the page hears it once one is back,
    // `connect` with that chain then `chainChanged` (as MetaMask tells it).
    forwarders.get(ONE)!.refuse();
    forwarders.get(TWO)!.refuse();
    await heard(page, 'disconnect', 3);
    await switchWallet(TWO);
    forwarders.get(TWO)!.resume();
    await heard(page, 'connect', 4);
    forwarders.get(ONE)!.resume();
    await switchWallet(ONE);
    await heard(page, 'chainChanged', 2);
    assert.deepEqual(await lastHeard(page, 4), [
      ['disconnect', 4900],
      ['connect', { chainId: '0x7a6a' }],
      ['chainChanged', '0x7a6a'],
      ['chainChanged', '0x7a69'],
    ]);
    await page.close();
  });

  /** A page of `host` that asked Kassa something, and so heard `connect`, with its `disconnect`s recorded. */
  const connectedPage = async (host: string) => {
    const page = await openDapp(extension, `${sites.origin(host)}/`);
    await recordDisconnects(page);
    assert.deepEqual(await call(page, 'eth_chainId'), { result: '0x7a69' });
    await heard(page, 'connect');
    return page;
  };
  const GONE = { code: 4900, message: 'Kassa was disabled or updated: reload the page' };
  /** The page heard `disconnect` (4900) once, is not connected, and every request is refused with 4900. */
  const expectGone = async (page: Page) => {
    await heard(page, 'disconnect');
    assert.equal(await isConnected(page), false);
    const [, error] = (await eventsOf(page)).find(([name]) => name === 'disconnect')!;
    assert.deepEqual(error, { isError: true, name: 'ProviderRpcError', ...GONE });
    for (const method of ['eth_chainId', 'eth_accounts', 'eth_blockNumber'])
      assert.deepEqual(await call(page, method), { error: GONE });
    assert.equal((await eventNamesOf(page)).filter((name) => name === 'disconnect').length, 1, 'told once');
  };

  it('disabled under the page: disconnect (4900), isConnected() false, requests refused 4900 at once', async () => {
    await importVaultKey(extension, ACCOUNT, PASSWORD);
    const page = await connectedPage('disabled.localhost');
    // A request waiting for the user when Kassa goes away is answered, not left hanging.
    const opening = approvalWindow(extension);
    const waiting = call(page, 'eth_requestAccounts');
    await opening;
    await setExtensionEnabled(extension, false);
    assert.equal((await waiting).error?.code, 4900);
    await expectGone(page);

    // Enabled again, Kassa reaches pages loaded from then on: this one once it is reloaded.
    await setExtensionEnabled(extension, true);
    assert.deepEqual(await call(page, 'eth_chainId'), { error: GONE });
    await page.reload();
    await page.waitForFunction(() => Boolean((window as { kassa?: unknown }).kassa));
    assert.deepEqual(await call(page, 'eth_chainId'), { result: '0x7a69' });
    await heard(page, 'connect');
    assert.equal(await isConnected(page), true);
  });

  // Last: in headless Chromium an unpacked extension reloaded this way does not come back.
  it('reloaded by chrome.runtime.reload(): disconnect (4900), isConnected() false, requests refused 4900', async () => {
    const page = await connectedPage('reload.localhost');
    await extension.worker.evaluate(() => chrome.runtime.reload()).catch(() => undefined);
    await expectGone(page);
  });
});
