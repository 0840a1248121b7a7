import type { OperatorPayment } from '../../schemas/proxy-api.ts';
import { csvLine } from '../../lib/csv.ts';

export { csvLine };

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

export const csvRow = (payment: OperatorPayment): string => csvLine(CSV_COLUMNS.map((column) => payment[column]));
