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

/**
 * Keeps the whole page as `test-artifacts/<suite>/<name>-<width>x<height>.png` for a reviewer; returns
 * the path. Not Playwright's `fullPage`: in a phone's emulation it lays the page out as a desktop's for
 * the capture (a fine pointer that hovers: the checkout then reserves room for "Pay with your phone").
 * The viewport is made as tall as the page instead, and put back.
 */
export async function keepScreenshot(page: Page, suite: string, name: string): Promise<string> {
  const viewport = page.viewportSize() ?? { width: 0, height: 0 };
  const folder = join(ARTIFACTS, suite);
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `${name}-${viewport.width}x${viewport.height}.png`);
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  if (height > viewport.height) await page.setViewportSize({ width: viewport.width, height });
  try {
    await page.screenshot({ path });
  } finally {
    if (height > viewport.height) await page.setViewportSize(viewport);
  }
  return path;
}
