/**
 * What a shop's page pays for Kassa, as Lighthouse (mobile, its default preset, in Debian's Chromium)
 * scores the demo's three pages: the performance score and the cumulative layout shift of each (the
 * layout shift at most 0.02, as test/e2e/lighthouse.test.ts also holds), and what held the score
 * back. The performance score depends on this machine (Lighthouse simulates a mid-range phone on
 * it): a median over a few runs.
 */
import { startDemo } from '../demo/demo.ts';
import { ensureWidgetBuilt } from '../demo/widget-build.ts';
import { auditPages, type PageAudit } from '../test/support/lighthouse.ts';
import { median } from './stats.ts';

const PATHS = ['/', '/donate', '/wallet'];
const RUNS = Number(process.env.KASSA_BENCH_LIGHTHOUSE_RUNS ?? 3);
const CLS_TARGET = 0.02;

export default async function benchLighthouse(): Promise<void> {
  ensureWidgetBuilt();
  const demo = await startDemo({ shopPort: 0, proxyPort: 0, sandboxPort: 0 });
  try {
    const runs: PageAudit[][] = [];
    for (let run = 0; run < RUNS; run++) runs.push(await auditPages(PATHS.map((path) => demo.shop.origin + path)));
    for (const [index, path] of PATHS.entries()) {
      const audits = runs.map((run) => run[index]!);
      const cls = Math.max(...audits.map((audit) => audit.cumulativeLayoutShift));
      const scores = audits.map((audit) => audit.performance);
      console.log(
        `Lighthouse (mobile) ${path}: performance ${median(scores)} (runs: ${scores.join(', ')}), cumulative layout shift ${cls.toFixed(3)} (target ${CLS_TARGET})${cls > CLS_TARGET ? '  OVER TARGET' : ''}, accessibility ${audits[0]!.accessibility}, best practices ${audits[0]!.bestPractices}`,
      );
      // Each audit that fell short in some run, with its lowest score.
      const lowest = new Map<string, number>();
      for (const [id, score] of audits.flatMap((audit) => Object.entries(audit.shortfalls)))
        lowest.set(id, Math.min(score, lowest.get(id) ?? 1));
      if (lowest.size)
        console.log(`  held back by: ${[...lowest].map(([id, score]) => `${id} (${score.toFixed(2)})`).join(', ')}`);
    }
  } finally {
    await demo.stop();
  }
}
