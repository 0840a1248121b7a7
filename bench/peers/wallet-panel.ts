/**
 * The wallet panel: `<kassa-bridge>` (its chunk, loaded by kassa.js on first use) against the LI.FI
 * widget in a minimal React app built with Vite, both served by one static server on loopback and
 * timed in headless Chromium the same way: from navigation start to the panel's connect-a-wallet
 * button shown (see page-probes.ts). Requests leaving loopback are refused, as there is no internet
 * here: LI.FI's own API is unreachable, and what it shows then is what is timed. Kassa's panel
 * reads its chains from a Kassa proxy on loopback, as it would from the shop's own proxy.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Browser } from 'playwright';
import { ensureWidgetBuilt, WIDGET_BUNDLE } from '../../demo/widget-build.ts';
import { launchChromium } from '../../test/support/browser.ts';
import { startStack } from '../../test/support/stack.ts';
import { median } from '../stats.ts';
import { filesSize, gzipSize } from './gzip-size.ts';
import { ANNOUNCED_WALLET, KASSA_WALLET_BUTTON, LIFI_CONNECT_BUTTON, readyProbe } from './page-probes.ts';
import { kb, reasonOf, type Figure, type Report } from './report.ts';
import { startStaticServer } from './static-server.ts';
import { buildApp } from './vite-app.ts';
import { installPeer } from './work-folder.ts';

const RUNS = 7;
export const LIFI = {
  '@lifi/widget': '4.5.0',
  '@lifi/widget-provider-ethereum': '4.1.3',
  '@tanstack/react-query': '5.108.0',
  '@wagmi/core': '3.6.5',
  react: '19.3.1',
  'react-dom': '19.3.1',
  wagmi: '3.7.7',
};

/** LI.FI's README example, EVM chains only (what `<kassa-bridge>` covers), without JSX so no plugin is needed. */
const LIFI_MAIN = `import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { LiFiWidget } from '@lifi/widget';
import { EthereumProvider } from '@lifi/widget-provider-ethereum';

createRoot(document.getElementById('root')).render(
  createElement(LiFiWidget, { integrator: 'kassa-bench', config: { providers: [EthereumProvider()] } }),
);
`;
const LIFI_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>LI.FI widget</title></head>
<body><div id="root"></div><script type="module" src="./main.js"></script></body></html>
`;
const kassaPage = (
  proxy: string,
) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Kassa wallet panel</title>
<script type="module" src="/kassa/kassa.js"></script></head>
<body><kassa-bridge proxy="${proxy}" network="test"></kassa-bridge></body></html>
`;

interface PanelRun {
  readyMs: number;
  /** Gzipped sizes of the JavaScript the page fetched from the static server. */
  jsGzip: number;
  /** Their file names, in the order they arrived. */
  jsFiles: string[];
}

/** One cold page load in a fresh context: the time to ready and the JavaScript it fetched. */
async function loadPanel(browser: Browser, url: string, find: string): Promise<PanelRun> {
  const context = await browser.newContext();
  const origin = new URL(url).origin;
  await context.route(
    (target) => !target.href.startsWith('http://127.0.0.1:') && !target.href.startsWith('data:'),
    (route) => route.abort('internetdisconnected'),
  );
  const page = await context.newPage();
  await page.addInitScript({ content: ANNOUNCED_WALLET });
  await page.addInitScript({ content: readyProbe(find) });
  const scripts: Promise<number>[] = [];
  const names: string[] = [];
  page.on('response', (response) => {
    if (!response.url().startsWith(origin) || !response.url().endsWith('.js')) return;
    names.push(response.url().slice(response.url().lastIndexOf('/') + 1));
    scripts.push(response.body().then((body) => gzipSize(body)));
  });
  try {
    await page.goto(url);
    const ready = await page.waitForFunction(
      () => (window as unknown as { benchReadyAt?: number }).benchReadyAt,
      null,
      {
        timeout: 30_000,
      },
    );
    const sizes = await Promise.all(scripts);
    return {
      readyMs: (await ready.jsonValue()) as number,
      jsGzip: sizes.reduce((sum, size) => sum + size, 0),
      jsFiles: names,
    };
  } finally {
    await context.close();
  }
}

async function timePanel(browser: Browser, url: string, find: string) {
  const runs: PanelRun[] = [];
  for (let run = 0; run < RUNS; run++) runs.push(await loadPanel(browser, url, find));
  const ready = runs.map((run) => run.readyMs);
  return { median: median(ready), max: Math.max(...ready), first: runs[0]! };
}

export async function walletPanel(report: Report): Promise<void> {
  if (ensureWidgetBuilt()) report.note('built the widget (vite build)');
  const chunkDir = join(dirname(WIDGET_BUNDLE), 'kassa');
  const name = readdirSync(chunkDir).find((file) => /^kassa-bridge-[\w-]+\.js$/.test(file));
  if (!name) throw new Error('no kassa-bridge chunk in dist/widget/kassa/');
  const chunk = readFileSync(join(chunkDir, name));
  const kassaChunk: Figure = { label: '<kassa-bridge> chunk', value: gzipSize(chunk), unit: 'bytes' };
  report.note(`dist/widget/kassa/${name}: ${kb(chunk.length)} minified, ${kb(kassaChunk.value)} gzipped`);

  let lifi: { dir: string; js: string[] } | undefined;
  let lifiReason = '';
  try {
    const installed = await installPeer('lifi', LIFI);
    report.note(`installed @lifi/widget ${LIFI['@lifi/widget']} and its peers (${installed.seconds.toFixed(1)} s)`);
    lifi = await buildApp(installed.dir, { 'index.html': LIFI_PAGE, 'main.js': LIFI_MAIN });
    const js = filesSize(lifi.js);
    report.note(`LI.FI widget app, Vite build: ${js.files} JS chunks, ${kb(js.raw)} minified, ${kb(js.gzip)} gzipped`);
    report.ratio('wallet panel JS (gzip)', kassaChunk, {
      label: '@lifi/widget app, all JS chunks',
      value: js.gzip,
      unit: 'bytes',
    });
  } catch (error) {
    lifiReason = reasonOf(error);
    report.unavailable('wallet panel JS (gzip)', kassaChunk, '@lifi/widget', lifiReason);
  }

  const pages: Record<string, string> = {};
  const server = await startStaticServer(
    { '/kassa/': dirname(WIDGET_BUNDLE), ...(lifi ? { '/lifi/': lifi.dir } : {}) },
    pages,
  );
  const stack = await startStack({ env: { KASSA_ALLOWED_ORIGINS: server.origin } });
  pages['/kassa-bridge.html'] = kassaPage(stack.proxy.origin);
  const browser = await launchChromium();
  try {
    const kassa = await timePanel(browser, `${server.origin}/kassa-bridge.html`, KASSA_WALLET_BUTTON);
    report.note(
      `<kassa-bridge>: navigation -> wallet button shown: median ${kassa.median.toFixed(0)} ms, max ${kassa.max.toFixed(0)} ms over ${RUNS} cold loads; ` +
        `the page fetched ${kb(kassa.first.jsGzip)} of JS gzipped (${kassa.first.jsFiles.join(', ')})`,
    );
    const kassaReady: Figure = { label: '<kassa-bridge>', value: kassa.median, unit: 'ms' };
    const kassaFetched: Figure = { label: '<kassa-bridge> page', value: kassa.first.jsGzip, unit: 'bytes' };
    if (!lifi) {
      report.unavailable('wallet panel time to ready (median)', kassaReady, '@lifi/widget', lifiReason);
      return;
    }
    try {
      const peer = await timePanel(browser, `${server.origin}/lifi/`, LIFI_CONNECT_BUTTON);
      report.note(
        `@lifi/widget: navigation -> "Connect wallet" shown: median ${peer.median.toFixed(0)} ms, max ${peer.max.toFixed(0)} ms over ${RUNS} cold loads ` +
          `(its API calls refused: no internet; it renders its form without chains or tokens); the page fetched ${kb(peer.first.jsGzip)} of JS gzipped (${peer.first.jsFiles.join(', ')})`,
      );
      report.ratio('wallet panel time to ready (median)', kassaReady, {
        label: '@lifi/widget',
        value: peer.median,
        unit: 'ms',
      });
      report.ratio('wallet panel JS fetched by the page (gzip)', kassaFetched, {
        label: '@lifi/widget page',
        value: peer.first.jsGzip,
        unit: 'bytes',
      });
    } catch (error) {
      report.unavailable('wallet panel time to ready (median)', kassaReady, '@lifi/widget', reasonOf(error));
    }
  } finally {
    await browser.close();
    await stack.stop();
    await server.close();
  }
}
