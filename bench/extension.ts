/**
 * The extension's weight and the popup's speed: dist/extension's size (every file, and gzipped, as
 * the store and the browser's disk cache see it), and in Chromium with the built extension loaded,
 * the popup page's time from navigation to its first render (the shell) and to its first view on
 * screen (one message to the service worker and one lazily loaded view). Medians over several opens.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ensureExtensionBuilt, EXTENSION_DIST, launchExtension } from '../test/support/extension.ts';

const RUNS = 15;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

export default async function benchExtension(): Promise<void> {
  ensureExtensionBuilt();
  const all = files(EXTENSION_DIST).map((path) => {
    const bytes = readFileSync(path);
    return { path: relative(EXTENSION_DIST, path), size: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const sum = (list: typeof all) => ({
    size: list.reduce((total, file) => total + file.size, 0),
    gzip: list.reduce((total, file) => total + file.gzip, 0),
  });
  const total = sum(all);
  const manifest = JSON.parse(readFileSync(join(EXTENSION_DIST, 'manifest.json'), 'utf8')) as {
    content_scripts: Array<{ js: string[] }>;
  };
  const content = sum(all.filter((file) => manifest.content_scripts.some((script) => script.js.includes(file.path))));
  const popupHtml = readFileSync(join(EXTENSION_DIST, 'ui', 'popup.html'), 'utf8');
  const shellFiles = [...popupHtml.matchAll(/(?:src|href)="\.\.\/([^"]+)"/g)].map((match) => match[1]!);
  const shell = sum(all.filter((file) => shellFiles.includes(file.path)));
  console.log(`dist/extension: ${all.length} files, ${kb(total.size)} (${kb(total.gzip)} gzipped)`);
  console.log(`  content scripts (run on every page): ${kb(content.size)} (${kb(content.gzip)} gzipped)`);
  console.log(`  popup shell (loaded before first render): ${kb(shell.size)} (${kb(shell.gzip)} gzipped)`);

  const extension = await launchExtension();
  try {
    const firstRender: number[] = [];
    const viewReady: number[] = [];
    // One open first, so the service worker is running, as it is once the browser has been used.
    await (await extension.openPage('ui/popup.html')).close();
    for (let run = 0; run < RUNS; run++) {
      const page = await extension.openPage('ui/popup.html?tab=settings');
      const marks = await page.waitForFunction(() => {
        const [render] = performance.getEntriesByName('kassa-first-render');
        const [view] = performance.getEntriesByName('kassa-view-ready');
        return render && view ? { render: render.startTime, view: view.startTime } : undefined;
      });
      const { render, view } = (await marks.jsonValue())!;
      firstRender.push(render);
      viewReady.push(view);
      await page.close();
    }
    console.log(
      `popup: navigation -> first render: median ${median(firstRender).toFixed(1)} ms, max ${Math.max(...firstRender).toFixed(1)} ms over ${RUNS} opens`,
    );
    console.log(
      `popup: navigation -> first view shown (settings, one worker round trip): median ${median(viewReady).toFixed(1)} ms, max ${Math.max(...viewReady).toFixed(1)} ms`,
    );
  } finally {
    await extension.dispose();
  }
}
