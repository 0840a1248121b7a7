/**
 * The banks Kassa knows by name. The payment service names the customer's bank only by its
 * `providerId`; a receipt shows the name. The sandbox's banks are here; a bank not listed shows its
 * identifier, which is still what the payment service calls it.
 */
const BANK_NAMES: Readonly<Record<string, string>> = {
  bank_xyz: 'XYZ Bank',
  bank_northwind: 'Northwind Bank',
  bank_lumen: 'Banque Lumen',
  bank_havel: 'Havel Sparkasse',
  bank_aurora: 'Aurora Banca',
  bank_stroom: 'Stroom Bank',
  bank_kestrel: 'Kestrel Building Society',
  bank_sandbox_rejects: 'Sandbox bank that rejects',
};

/** The bank's name for a receipt; its identifier when unknown; null before the customer chose one. */
export function bankName(providerId: string | null): string | null {
  if (providerId === null) return null;
  return Object.hasOwn(BANK_NAMES, providerId) ? BANK_NAMES[providerId]! : providerId;
}
