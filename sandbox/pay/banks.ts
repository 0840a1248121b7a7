import type { PaymentCurrency } from '../../schemas/pay.ts';

export interface SandboxBank {
  providerId: string;
  name: string;
  currencies: readonly PaymentCurrency[];
  /** A bank that declines every authorised payment, to stage a REJECTED outcome from the flow page. */
  rejects?: boolean;
}

export const SANDBOX_BANKS: readonly SandboxBank[] = [
  { providerId: 'bank_xyz', name: 'XYZ Bank', currencies: ['EUR', 'GBP'] },
  { providerId: 'bank_northwind', name: 'Northwind Bank', currencies: ['GBP'] },
  { providerId: 'bank_lumen', name: 'Banque Lumen', currencies: ['EUR'] },
  { providerId: 'bank_havel', name: 'Havel Sparkasse', currencies: ['EUR'] },
  { providerId: 'bank_sandbox_rejects', name: 'Sandbox bank that rejects', currencies: ['EUR', 'GBP'], rejects: true },
];

export const banksFor = (currency: string): SandboxBank[] =>
  SANDBOX_BANKS.filter((bank) => (bank.currencies as readonly string[]).includes(currency));
