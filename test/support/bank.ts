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

/** What holding a payment's execution needs: the emulator's control API (a stack's). */
interface Emulator {
  control(path: string, body?: unknown): Promise<{ status: number; text: string }>;
}

/**
 * Holds the execution of the payment this page shows at the bank: once the customer authorises, it
 * stays "waiting for your bank" until `release()`, however slow the machine, instead of racing the
 * emulator's settlement delay.
 */
export async function holdAtBank(page: Page, emulator: Emulator) {
  await page.waitForURL(/\/pay\/flow\//);
  const transactionId = new URL(page.url()).pathname.split('/').pop()!;
  const held = await emulator.control(`/payments/${transactionId}/hold`, {});
  if (held.status !== 200) throw new Error(`hold ${transactionId}: ${held.status} ${held.text}`);
  return {
    transactionId,
    async release(): Promise<void> {
      const released = await emulator.control(`/payments/${transactionId}/release`, {});
      if (released.status !== 200) throw new Error(`release ${transactionId}: ${released.status} ${released.text}`);
    },
  };
}
