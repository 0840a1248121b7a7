import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResults {
  violations: Array<{ id: string; nodes: Array<{ target: string[]; failureSummary?: string }> }>;
}

/**
 * axe's violations on the whole page, its shadow roots included, one line each, `what` first. The
 * source goes in through the debugger protocol: the pages' CSPs refuse inline scripts, as they should.
 * No rule is switched off.
 */
export async function axeViolations(page: Page, what: string): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResults> } }).axe;
    const { violations } = await axe.run(document, { resultTypes: ['violations'] });
    return violations.map(
      ({ id, nodes }) =>
        `${id}: ${nodes.map((node) => `${node.target.join(' > ')} (${node.failureSummary?.replace(/\s+/g, ' ')})`).join('; ')}`,
    );
  });
  return found.map((line) => `${what}: ${line}`);
}
