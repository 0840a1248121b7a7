import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestSession, TestSuiteResult } from '@web/test-runner';

/** What test/run.ts reads back from the component tests: the counts, and the names of what failed. */
export interface ComponentCounts {
  passed: number;
  failed: number;
  skipped: number;
  failures: string[];
}

/**
 * Writes the run's counts to `file` when it ends, for test/run.ts's summary (the default reporter
 * prints them for people). A test file that did not run to its end (it failed to load, a hook threw,
 * it timed out) counts as one failure of its own, named by the file, whatever its tests did.
 */
export function countReporter(file: string, rootDir: string): Reporter {
  return {
    stop({ sessions }: { sessions: TestSession[] }) {
      const counts: ComponentCounts = { passed: 0, failed: 0, skipped: 0, failures: [] };
      for (const session of sessions) {
        const where = relative(rootDir, session.testFile);
        const visit = (suite: TestSuiteResult, path: string[]) => {
          for (const test of suite.tests) {
            if (test.skipped) counts.skipped++;
            else if (test.passed) counts.passed++;
            else {
              counts.failed++;
              counts.failures.push(`${where}: ${[...path, test.name].join(' › ')}`);
            }
          }
          for (const child of suite.suites) visit(child, [...path, child.name]);
        };
        const before = counts.failed;
        if (session.testResults) visit(session.testResults, []);
        if (!session.passed && counts.failed === before) {
          counts.failed++;
          counts.failures.push(`${where}: ${session.errors[0]?.message ?? 'did not run to its end'}`);
        }
      }
      writeFileSync(file, JSON.stringify(counts));
    },
  };
}
