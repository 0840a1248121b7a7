import { Hono, type Context } from 'hono';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { OPERATOR_ERRORS } from '../http/openapi/problems.ts';
import { audited } from '../operator/dual-control.ts';
import { operatorGuards, type OperatorEnv } from '../operator/operator-auth.ts';
import type { ProxyServices } from '../services.ts';
import { linkManagementOperations, mountLinkManagement } from './link-manage-routes.ts';

const operatorOf = (c: Context) => c as Context<OperatorEnv>;

/** Operators manage links as the merchant's server does: reading takes links:read, changing links:manage. */
export function linkOperatorRoutes(services: ProxyServices): Hono<OperatorEnv> {
  const { links, operators } = services;
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(linkOperatorOperations, operators.access);
  mountLinkManagement(app as unknown as Hono, services, links, {
    base: '/api/operator/links',
    guard,
    creator: (c) => ({ kind: 'operator', id: operatorOf(c).var.operator.operatorId }),
    audit: (c, action, details) => audited(operatorOf(c), operators, action, details),
  });
  return app;
}

export const linkOperatorOperations: ApiOperations = linkManagementOperations('/api/operator/links', {
  audience: 'operator',
  manage: { auth: 'operator', permission: 'links:manage' },
  read: { auth: 'operator', permission: 'links:read' },
  idPrefix: 'operator',
  errors: { 401: OPERATOR_ERRORS[401], 403: (permission) => `The role lacks ${permission}` },
});
