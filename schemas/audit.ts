/**
 * The audit trail of issue 37 as the API shows it: who did what, each record chained to the one before
 * by hash (docs/operators.md).
 */
import { z } from 'zod';
import { roleSchema } from './operators.ts';

export const auditRecordSchema = z
  .object({
    seq: z.number().int(),
    at: z.string(),
    actor: z.object({
      operatorId: z.string().nullable(),
      name: z.string(),
      role: roleSchema.nullable(),
      via: z.enum(['web', 'device', 'api', 'cli', 'setup', 'system']),
    }),
    action: z.string(),
    target: z.object({ type: z.string(), id: z.string() }).nullable(),
    requestId: z.string().nullable(),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    before: z.unknown(),
    after: z.unknown(),
    prevHash: z.string(),
    hash: z.string(),
  })
  .meta({ id: 'AuditRecord' });
export type AuditRecordView = z.infer<typeof auditRecordSchema>;

export const auditListSchema = z
  .object({ records: z.array(auditRecordSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'AuditList' });

const isoTime = (name: string) =>
  z
    .string()
    .max(40)
    .refine((value) => !Number.isNaN(Date.parse(value)), `${name} must be a date and time (ISO 8601)`);

export const auditQuerySchema = z.strictObject({
  operatorId: z.string().max(100).optional(),
  /** An action, or its prefix before a dot (`approval` for every approval.*). */
  action: z.string().max(100).optional(),
  targetId: z.string().max(200).optional(),
  from: isoTime('from').optional(),
  to: isoTime('to').optional(),
  limit: z.coerce
    .number({ error: 'limit must be a number from 1 to 500' })
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(500, 'limit must be at most 500')
    .default(100),
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, 'cursor is not one this list returned')
    .optional(),
});

export const auditExportQuerySchema = z.strictObject({
  format: z.enum(['ndjson', 'csv'], { error: 'format must be ndjson or csv' }).default('ndjson'),
  from: isoTime('from').optional(),
  to: isoTime('to').optional(),
});
