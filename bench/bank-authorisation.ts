/** What the phone benchmarks share: a customer authorising at the emulator's bank page, timed by the browser. */
import type { Page } from 'playwright';

/** What the customer takes to read the bank page, at the least. */
const READING_MS = 1_000;

/**
 * Authorises the payment the bank page on `mobile` shows, as a customer at the earliest would, and
 * returns when the authorisation was sent (epoch ms, by the browser's own clock).
 */
export async function authoriseAtBank(mobile: Page): Promise<number> {
  await mobile.getByLabel('XYZ Bank').check();
  // A customer reads the bank page before authorising; pressing the button while the two pages
  // are still loading measured this 2-core machine's page loads (p95 200 to 300 ms), not Kassa.
  await mobile.waitForTimeout(READING_MS);
  // Authorised when the bank page sends the authorisation, by the browser's own clock: what the
  // automation takes to find and press the button is not the customer's wait.
  const authorisation = mobile.waitForRequest((request) => request.method() === 'POST');
  await mobile.getByRole('button', { name: 'Authorise payment' }).click({ noWaitAfter: true });
  const sent = await authorisation;
  // The timing is filled in once the bank page has its answer.
  await sent.response();
  return sent.timing().startTime;
}
