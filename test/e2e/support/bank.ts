import type { Page } from 'playwright';

/** What a customer does on the emulator's bank page (sandbox/pay/flow-page.ts). */
export async function answerAtBank(
  page: Page,
  action: 'Authorise payment' | 'Cancel',
  bank = 'XYZ Bank',
): Promise<void> {
  await page.waitForURL(/\/pay\/flow\//);
  await page.getByLabel(bank).check();
  await page.getByRole('button', { name: action }).click();
}
