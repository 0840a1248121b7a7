/**
 * The company's OpenID Connect provider for operators' sign-in (KASSA_OIDC_*): off unless
 * KASSA_OIDC_ISSUER is set. Read at start; a bad setting stops the proxy with a message naming it.
 */
import { isHttpsOrLoopback } from '../../../lib/url-rules.ts';
import { ROLES, type Role } from '../../../schemas/operators.ts';
import { ConfigError, type SettingsSource } from '../../config-readers.ts';

export interface OidcSettings {
  /** The issuer's identifier, as its discovery document names it. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** E-mail domains (lower case) whose people may sign in this way. */
  allowedDomains: string[];
  /** The claim (in the ID token or the userinfo answer) whose values map to roles, `groups` by default. */
  roleClaim: string;
  /** Claim value → role. Empty: SSO signs in existing operators only, and leaves their role alone. */
  roles: ReadonlyMap<string, Role>;
}

const SETTINGS = [
  'KASSA_OIDC_ISSUER',
  'KASSA_OIDC_CLIENT_ID',
  'KASSA_OIDC_CLIENT_SECRET',
  'KASSA_OIDC_ALLOWED_DOMAINS',
  'KASSA_OIDC_ROLE_CLAIM',
  'KASSA_OIDC_ROLES',
] as const;

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const CLAIM_NAME = /^[\w:./-]{1,100}$/;
/** What an identity provider's client id and secret are made of: no spaces or controls. */
const OPAQUE = /^[\x21-\x7e]{1,512}$/;

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** The OIDC settings, or null when SSO is off; throws a ConfigError naming the first bad one. */
export function parseOidcSettings(source: SettingsSource): OidcSettings | null {
  const issuer = source.KASSA_OIDC_ISSUER?.trim();
  if (!issuer) {
    const stray = SETTINGS.find((name) => source[name]?.trim());
    if (stray) throw new ConfigError('KASSA_OIDC_ISSUER', `is required when ${stray} is set`);
    return null;
  }
  if (!isHttpsOrLoopback(issuer) || new URL(issuer).search || new URL(issuer).hash)
    throw new ConfigError(
      'KASSA_OIDC_ISSUER',
      'must be the identity provider’s https URL, without query or fragment (plain http only on loopback)',
    );
  const opaque = (setting: 'KASSA_OIDC_CLIENT_ID' | 'KASSA_OIDC_CLIENT_SECRET') => {
    const value = source[setting]?.trim();
    if (!value) throw new ConfigError(setting, 'is required with KASSA_OIDC_ISSUER');
    if (!OPAQUE.test(value)) throw new ConfigError(setting, 'must be printable characters without spaces');
    return value;
  };
  const allowedDomains = list(source.KASSA_OIDC_ALLOWED_DOMAINS).map((domain) => domain.toLowerCase());
  if (allowedDomains.length === 0)
    throw new ConfigError(
      'KASSA_OIDC_ALLOWED_DOMAINS',
      'is required with KASSA_OIDC_ISSUER: the e-mail domains whose people may sign in (shop.example)',
    );
  const badDomain = allowedDomains.find((domain) => !DOMAIN.test(domain));
  if (badDomain) throw new ConfigError('KASSA_OIDC_ALLOWED_DOMAINS', `"${badDomain}" is not a domain name`);
  const roleClaim = source.KASSA_OIDC_ROLE_CLAIM?.trim() || 'groups';
  if (!CLAIM_NAME.test(roleClaim))
    throw new ConfigError('KASSA_OIDC_ROLE_CLAIM', 'must be a claim name (letters, digits, _ : . / -)');
  return {
    issuer,
    clientId: opaque('KASSA_OIDC_CLIENT_ID'),
    clientSecret: opaque('KASSA_OIDC_CLIENT_SECRET'),
    allowedDomains,
    roleClaim,
    roles: parseRoles(source.KASSA_OIDC_ROLES),
  };
}

/** `kassa-admins:admin,kassa-finance:finance`; a value may itself hold colons (the role follows the last). */
function parseRoles(value: string | undefined): ReadonlyMap<string, Role> {
  const roles = new Map<string, Role>();
  for (const entry of list(value)) {
    const at = entry.lastIndexOf(':');
    const claimValue = entry.slice(0, at).trim();
    const role = entry.slice(at + 1).trim();
    if (at <= 0 || !claimValue || !(ROLES as readonly string[]).includes(role))
      throw new ConfigError(
        'KASSA_OIDC_ROLES',
        `"${entry}" is not <claim value>:<role>, with a role of ${ROLES.join(', ')} (kassa-finance:finance)`,
      );
    if (roles.has(claimValue)) throw new ConfigError('KASSA_OIDC_ROLES', `"${claimValue}" is mapped twice`);
    roles.set(claimValue, role as Role);
  }
  return roles;
}
