import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright';
import { PATIENCE_MS } from './patience.ts';

/**
 * Debian's Chromium (test/run.ts sets KASSA_CHROMIUM), headless; never a downloaded browser.
 * `backForwardCache`: with the back/forward cache on, as in browsers people use (Playwright turns it off).
 */
export function launchChromium(options: { backForwardCache?: boolean } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.KASSA_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    ignoreDefaultArgs: options.backForwardCache ? ['--disable-back-forward-cache'] : undefined,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * What went wrong on a page that a customer would not see but a developer must: script errors,
 * Content-Security-Policy or Trusted Types refusals, failed requests other than the ones a test
 * causes on purpose.
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message: ConsoleMessage) => {
    if (
      message.type() === 'error' &&
      !/Failed to load resource|ERR_FAILED|ERR_CONNECTION_REFUSED|EventSource/.test(message.text())
    )
      problems.push(`console: ${message.text()}`);
    if (/Content Security Policy|Trusted Type/i.test(message.text())) problems.push(`policy: ${message.text()}`);
  });
  return problems;
}

/** The element's phase, as the page shows it (the `phase` attribute). */
export const phaseOf = (page: Page) => page.locator('kassa-checkout').getAttribute('phase');

/** Waits until the element shows this phase; when it never does, says which phase and status it shows instead. */
export async function waitForPhase(page: Page, phase: string): Promise<void> {
  try {
    await page.locator(`kassa-checkout[phase="${phase}"]`).waitFor({ timeout: PATIENCE_MS });
  } catch (error) {
    const shown = await phaseOf(page).catch(() => 'unknown');
    const status = await page
      .locator('kassa-checkout [part~="status"]')
      .textContent({ timeout: 1_000 })
      .catch(() => '');
    throw new Error(`phase ${phase} never shown: the element shows ${shown} ("${status}")`, {
      cause: error,
    });
  }
}

/** The text of one part of the element (Playwright's locators pierce open shadow roots). */
export async function partText(page: Page, part: string): Promise<string> {
  return ((await page.locator(`kassa-checkout [part~="${part}"]`).textContent()) ?? '').replace(/\s+/g, ' ').trim();
}
