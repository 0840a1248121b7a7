import { UpstreamMismatchError, type UpstreamService } from './upstream-error.ts';

/** Who hears of an answer that is not about what was asked: the error log and /metrics (services.ts). */
export type MismatchReport = (
  service: UpstreamService,
  field: string,
  details: { operation: string; expected: unknown; answered: unknown },
) => void;

/**
 * An answer must be about what was asked: every expected field (the id asked for, and what Kassa
 * already knows of the record, such as its amount and currency) must be equal in the answer, or the
 * whole answer is refused. A payment service that answers a read with another payment's COMPLETED
 * record must never make a checkout paid.
 */
export function checkAnswer(
  service: UpstreamService,
  operation: string,
  expected: Record<string, string | number | undefined>,
  answer: object,
  report: MismatchReport,
): void {
  for (const [field, value] of Object.entries(expected)) {
    if (value === undefined) continue;
    const answered = (answer as Record<string, unknown>)[field];
    if (answered === value) continue;
    report(service, field, { operation, expected: value, answered: shortened(answered) });
    throw new UpstreamMismatchError(service, field, operation);
  }
}

const shortened = (value: unknown) => (typeof value === 'string' ? value.slice(0, 100) : value);
