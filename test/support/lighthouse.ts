/**
 * Lighthouse (npm `lighthouse`) as a shop's performance team runs it: its default mobile preset, in
 * Debian's Chromium (never a downloaded one), headless, with nothing reaching out to the internet.
 * Shared by the Lighthouse test (what must hold) and bench/lighthouse.ts (the scores).
 */
import { launch } from 'chrome-launcher';
import lighthouse from 'lighthouse';

export interface PageAudit {
  url: string;
  /** Category scores, 0 to 100. */
  performance: number;
  accessibility: number;
  bestPractices: number;
  cumulativeLayoutShift: number;
  /** The scored audits that did not fully pass, by id, with their scores (0 to 1): what to look at when a score drops. */
  shortfalls: Record<string, number>;
  /** The URLs the text-compression audit flags as sent uncompressed. */
  uncompressed: string[];
  /** Why the page could not enter the back/forward cache, as Chromium says (none: it could). */
  backForwardCacheFailures: string[];
}

const CATEGORIES = { performance: 'performance', accessibility: 'accessibility', bestPractices: 'best-practices' };

/** Runs Lighthouse on each URL in turn, in one Chromium. */
export async function auditPages(urls: readonly string[]): Promise<PageAudit[]> {
  const chrome = await launch({
    chromePath: process.env.KASSA_CHROMIUM ?? '/usr/bin/chromium',
    // chrome-launcher adds the flags that stop background networking, component updates and sync.
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic'],
  });
  try {
    const audits: PageAudit[] = [];
    for (const url of urls) {
      const result = await lighthouse(url, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: Object.values(CATEGORIES),
      });
      if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
      const { lhr } = result;
      if (lhr.runtimeError) throw new Error(`Lighthouse on ${url}: ${lhr.runtimeError.message}`);
      const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
      const items = (id: string) =>
        ((lhr.audits[id]?.details as { items?: Array<Record<string, unknown>> } | undefined)?.items ?? []).filter(
          Boolean,
        );
      audits.push({
        url,
        performance: score(CATEGORIES.performance),
        accessibility: score(CATEGORIES.accessibility),
        bestPractices: score(CATEGORIES.bestPractices),
        cumulativeLayoutShift: lhr.audits['cumulative-layout-shift']?.numericValue ?? Number.NaN,
        shortfalls: Object.fromEntries(
          Object.values(lhr.categories).flatMap((category) =>
            category.auditRefs
              .filter((ref) => ref.weight > 0 && (lhr.audits[ref.id]?.score ?? 1) < 1)
              .map((ref) => [ref.id, lhr.audits[ref.id]!.score ?? 0]),
          ),
        ),
        uncompressed: items('uses-text-compression').map((item) => String(item.url)),
        backForwardCacheFailures: items('bf-cache').map(
          (item) => `${String(item.reason)} (${String(item.protocolReason)})`,
        ),
      });
    }
    return audits;
  } finally {
    chrome.kill();
  }
}
