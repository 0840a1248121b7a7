import type { OperatorPayment } from '../../schemas/proxy-api.ts';

/** Every field of the operator's view of a payment, in this order: the export's columns. */
export const CSV_COLUMNS = [
  'transactionId',
  'status',
  'networkStatus',
  'amount',
  'currencyCode',
  'reference',
  'environment',
  'checkoutId',
  'retryable',
  'initiatedAt',
  'updatedAt',
  'completedAt',
  'networkPaymentId',
  'paymentRail',
  'providerId',
  'lastCheckedAt',
] as const satisfies ReadonlyArray<keyof OperatorPayment>;

/**
 * One RFC 4180 field: quoted when it holds a comma, a quote or a line break, quotes doubled. A field
 * that a spreadsheet would run as a formula (=, +, -, @ first) is prefixed with a quote mark, so that
 * an exported reference can never execute in the operator's spreadsheet.
 */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A line of the export, with its CRLF. */
export const csvLine = (fields: ReadonlyArray<string | number | boolean | null>): string =>
  `${fields.map(csvField).join(',')}\r\n`;

export const csvRow = (payment: OperatorPayment): string => csvLine(CSV_COLUMNS.map((column) => payment[column]));
