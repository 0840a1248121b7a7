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
  { providerId: 'bank_aurora', name: 'Aurora Banca', currencies: ['EUR'] },
  { providerId: 'bank_stroom', name: 'Stroom Bank', currencies: ['EUR'] },
  { providerId: 'bank_kestrel', name: 'Kestrel Building Society', currencies: ['GBP'] },
  { providerId: 'bank_sandbox_rejects', name: 'Sandbox bank that rejects', currencies: ['EUR', 'GBP'], rejects: true },
];

export const banksFor = (currency: string): SandboxBank[] =>
  SANDBOX_BANKS.filter((bank) => (bank.currencies as readonly string[]).includes(currency));

/** A bank whose name holds `query` (any case, any accents); every bank when there is none. */
export function findBanks(banks: readonly SandboxBank[], query: string): SandboxBank[] {
  const plain = (text: string) =>
    text
      .normalize('NFD')
      .replace(/\p{Mn}/gu, '')
      .toLowerCase();
  const wanted = plain(query.trim());
  return banks.filter((bank) => plain(bank.name).includes(wanted));
}

/** The letter a bank's logo shows: its name's first word that is not a word for "bank". */
export function monogram(name: string): string {
  const words = name.split(/\s+/).filter((word) => !/^(bank|banque|banca|sparkasse)$/i.test(word));
  return (words[0] ?? name).slice(0, 1).toUpperCase();
}
