import type { Page } from 'playwright';

export type BankAnswer = 'Authorise payment' | 'Cancel';

/** The bank page's buttons in the languages the tests read it in. */
const BUTTONS: Record<string, Record<BankAnswer, string>> = {
  en: { 'Authorise payment': 'Authorise payment', Cancel: 'Cancel' },
  de: { 'Authorise payment': 'Zahlung freigeben', Cancel: 'Abbrechen' },
};

/** What a customer does on the emulator's bank page (sandbox/pay/flow-page.ts), in the language it speaks. */
export async function answerAtBank(page: Page, action: BankAnswer, bank = 'XYZ Bank'): Promise<void> {
  await page.waitForURL(/\/pay\/flow\//);
  await page.getByLabel(bank).check();
  const language = (await page.locator('html').getAttribute('lang')) ?? 'en';
  await page.getByRole('button', { name: BUTTONS[language]![action] }).click();
}
