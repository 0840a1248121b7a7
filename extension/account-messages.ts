/**
 * The extension's requests about people, part of messages.ts's: the operator's own device session,
 * dual control's approval requests, the admins' team and the audit trail; each request's schema, and
 * what the service worker answers to it (background/account-handlers.ts).
 */
import { z } from 'zod';
import type { auditListSchema } from '../schemas/audit.ts';
import {
  APPROVAL_STATES,
  roleSchema,
  type ApprovalView as ApprovalRequestView,
  type approvalListSchema,
  type credentialListSchema,
  type invitedOperatorSchema,
  type OperatorView,
  type operatorListSchema,
} from '../schemas/operators.ts';
import type { AuditExport, OperatorSessionView } from './operator-messages.ts';

const approvalId = z.string().regex(/^apr_[\w-]{1,64}$/, 'Not an approval request’s id');
const operatorId = z.string().regex(/^op_[\w-]{1,64}$/, 'Not an operator’s id');
const credentialId = z.string().regex(/^cred_[\w-]{1,64}$/, 'Not a credential’s id');
const reasonText = z.string().trim().min(3, 'Write a reason of at least 3 characters').max(500);
export const isoMoment = z.iso.datetime({ offset: true }).optional();

export const ACCOUNT_REQUESTS = [
  /** The operator's session; `fresh`: ask the proxy who this device is (role, permissions, expiry) first. */
  z.object({ kind: z.literal('session.get'), fresh: z.boolean().optional() }),
  /** Starts the device sign-in (RFC 8628): a code to show, approved on the proxy's page. */
  z.object({ kind: z.literal('session.signIn') }),
  z.object({ kind: z.literal('session.cancelSignIn') }),
  /** Opens the proxy's approval page for the code being shown, in a tab. */
  z.object({ kind: z.literal('session.openApprovalPage') }),
  z.object({ kind: z.literal('session.signOut') }),
  z.object({
    kind: z.literal('approvals.list'),
    state: z.enum(APPROVAL_STATES).optional(),
    cursor: z.string().max(200).optional(),
  }),
  z.object({ kind: z.literal('approvals.get'), id: approvalId }),
  z.object({ kind: z.literal('approvals.approve'), id: approvalId }),
  z.object({ kind: z.literal('approvals.reject'), id: approvalId, reason: reasonText }),
  z.object({ kind: z.literal('approvals.cancel'), id: approvalId }),
  z.object({ kind: z.literal('team.list') }),
  z.object({
    kind: z.literal('team.invite'),
    name: z.string().max(200),
    email: z.string().max(300),
    role: roleSchema,
  }),
  z.object({
    kind: z.literal('team.update'),
    operatorId,
    role: roleSchema.optional(),
    state: z.enum(['active', 'suspended']).optional(),
  }),
  z.object({ kind: z.literal('team.remove'), operatorId }),
  z.object({ kind: z.literal('team.sessions'), operatorId }),
  z.object({ kind: z.literal('team.revoke'), credentialId }),
  z.object({
    kind: z.literal('audit.list'),
    operatorId: z.string().max(100).optional(),
    action: z.string().max(100).optional(),
    from: isoMoment,
    to: isoMoment,
    cursor: z.string().max(20).optional(),
  }),
  z.object({ kind: z.literal('audit.export'), format: z.enum(['ndjson', 'csv']), from: isoMoment, to: isoMoment }),
] as const;

export interface AccountAnswers {
  'session.get': OperatorSessionView;
  'session.signIn': OperatorSessionView;
  'session.cancelSignIn': OperatorSessionView;
  'session.openApprovalPage': OperatorSessionView;
  'session.signOut': OperatorSessionView;
  'approvals.list': z.infer<typeof approvalListSchema>;
  'approvals.get': ApprovalRequestView;
  'approvals.approve': ApprovalRequestView;
  'approvals.reject': ApprovalRequestView;
  'approvals.cancel': ApprovalRequestView;
  'team.list': z.infer<typeof operatorListSchema>;
  'team.invite': z.infer<typeof invitedOperatorSchema>;
  'team.update': OperatorView;
  'team.remove': { done: true };
  'team.sessions': z.infer<typeof credentialListSchema>;
  'team.revoke': { done: true };
  'audit.list': z.infer<typeof auditListSchema>;
  'audit.export': AuditExport;
}
