/**
 * Who may do what (docs/operators.md has the table beside Stripe's): four roles, each with every
 * permission of the one before it. Every operator route declares the permission it needs in its
 * OpenAPI operation; `operatorAuth` enforces exactly that declaration.
 */
import { PERMISSIONS, ROLES, type Permission, type Role } from '../../schemas/operators.ts';

export { PERMISSIONS, ROLES, type Permission, type Role };

/** What each role adds to the one before it. */
const ADDED: Record<Role, readonly Permission[]> = {
  viewer: ['payments:read', 'orders:read', 'purchases:read', 'events:read', 'links:read'],
  // A till clerk takes counter payments (single-use links of their own amount), and is not finance.
  support: ['payments:resolve', 'events:redeliver', 'counter:take'],
  // Links ask customers for money, as mint orders do: finance makes and ends them.
  finance: ['orders:write', 'purchases:act', 'payments:export', 'links:manage'],
  admin: [
    'operators:manage',
    'sessions:manage',
    'settings:manage',
    'audit:read',
    'destinations:manage',
    'merchant_keys:manage',
  ],
};

const cumulative = (role: Role): ReadonlySet<Permission> =>
  new Set(ROLES.slice(0, ROLES.indexOf(role) + 1).flatMap((lower) => ADDED[lower]));

export const ROLE_PERMISSIONS: Readonly<Record<Role, ReadonlySet<Permission>>> = {
  viewer: cumulative('viewer'),
  support: cumulative('support'),
  finance: cumulative('finance'),
  admin: cumulative('admin'),
};

export const can = (role: Role, permission: Permission): boolean => ROLE_PERMISSIONS[role].has(permission);

/** The permissions of a role, in the table's order. */
export const permissionsOf = (role: Role): Permission[] => PERMISSIONS.filter((permission) => can(role, permission));

const rank = (role: Role) => ROLES.indexOf(role);

/** Whether `role` gives no more than `ceiling` (an API token's role is capped by its owner's). */
export const roleAtMost = (role: Role, ceiling: Role): boolean => rank(role) <= rank(ceiling);

/** The lower of two roles: what a token acts with when its owner was demoted since. */
export const lowerRole = (a: Role, b: Role): Role => (rank(a) <= rank(b) ? a : b);

/**
 * What a route needs: one permission; any one of several (approving a request, whose own permission
 * the approval service checks); or `self`, any signed-in operator acting on their own account.
 */
export type RoutePermission = Permission | readonly [Permission, ...Permission[]] | 'self';

/** Whether a role may call a route that needs `needed`. */
export function allows(role: Role, needed: RoutePermission): boolean {
  if (needed === 'self') return true;
  return typeof needed === 'string' ? can(role, needed) : needed.some((permission) => can(role, permission));
}

/** The permission a refusal names: the first one the role lacks. */
export const missingPermission = (needed: Exclude<RoutePermission, 'self'>): Permission =>
  typeof needed === 'string' ? needed : needed[0];

/** The route's permission in words, for the OpenAPI document and the 403. */
export function describePermission(needed: RoutePermission): string {
  if (needed === 'self') return 'any signed-in operator, for their own account';
  return typeof needed === 'string' ? needed : needed.join(' or ');
}
