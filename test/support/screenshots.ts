import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright';
import { devices } from 'playwright';

const root = join(import.meta.dirname, '..', '..');

/** The folder reviewers open: screenshots of what the browser suites saw (git-ignored). */
export const ARTIFACTS = join(root, 'test-artifacts');

/**
 * The two sizes every screenshot is kept at: a phone (390×844, touch, no hover: the element takes its
 * phone paths) and a laptop (1280×800, a mouse).
 */
export const SCREENS = {
  phone: { ...devices['iPhone 13'], viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 },
  desktop: { viewport: { width: 1280, height: 800 } },
} satisfies Record<string, BrowserContextOptions>;

/** Keeps the whole page as `test-artifacts/<suite>/<name>-<width>x<height>.png` for a reviewer; returns the path. */
export async function keepScreenshot(page: Page, suite: string, name: string): Promise<string> {
  const { width, height } = page.viewportSize() ?? { width: 0, height: 0 };
  const folder = join(ARTIFACTS, suite);
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `${name}-${width}x${height}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
