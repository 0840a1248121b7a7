/**
 * The proxy's configuration: environment variables, optionally under a JSON file named by
 * KASSA_CONFIG_FILE (same keys; the environment wins). Validated at start; a bad setting stops the
 * proxy with a message that names it. Every name here is documented in the README.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { compareDecimals, isDecimal } from '../lib/money.ts';
import { isHttpsOrLoopback } from '../lib/url-rules.ts';
import { AMOUNT_LIMITS, isPaymentCurrency, URL_MAX } from '../schemas/pay.ts';
import { OnrampSettingError, parseOnrampSettings, type OnrampSettings } from './onramp/onramp-settings.ts';
import { parseOidcSettings, type OidcSettings } from './operator/signin/signin-settings.ts';
import { ConfigError, integer, required, settingsSource } from './settings.ts';
import { parseStoreSettings, type StoreSettings } from './store-settings.ts';

export { ConfigError };

/** `&kassa_status=` and a status token. */
const RETURN_URL_ROOM = 64;

export interface OpenAmount {
  min: string;
  max: string;
  currencyCode: string;
}

export interface ProxyConfig extends StoreSettings {
  port: number;
  host: string;
  payBaseUrl: string;
  payClientSecrets: string[];
  ordersBaseUrl: string;
  ordersApiKey: string;
  reforgeBaseUrl: string;
  merchantKey: string;
  /** Set only by deployments from before operators were people: it opens nothing now, and start warns. */
  operatorToken: string | null;
  allowedOrigins: string[];
  returnUrls: string[];
  flowHosts: string[];
  webhookSecret: string;
  openAmount: OpenAmount | null;
  checkoutTtlSeconds: number;
  /** Per client address and minute, on public read routes and on creation routes; 0 turns a limit off. */
  rateLimit: number;
  createRateLimit: number;
  /** Trust X-Forwarded-For for the client address (only behind a proxy that sets it). */
  trustProxy: boolean;
  upstreamTimeoutMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Where the built widget lives (`dist/widget`). */
  widgetDir: string;
  /** Where signed events go, and the secrets they are signed with (the next one while rotating); null: no events. */
  events: MerchantEvents | null;
  /** A Prometheus scraper's own bearer token for /metrics (the operator token works too). */
  metricsToken: string | null;
  /** Where browsers and banks reach this proxy (`https://pay.shop.example`): its return address is there. */
  publicUrl: string | null;
  /** Stablecoins bought by bank (KASSA_ONRAMP_*); null: the on-ramp is off. */
  onramp: OnrampSettings | null;
  /** Serve the API's reference page at /docs (KASSA_API_DOCS=1). */
  apiDocs: boolean;
  /**
   * Dual control: mint orders and retries of fewer tokens, and refunds of less money, need one person;
   * null (the default): every one needs a second person's approval.
   */
  approvalThreshold: string | null;
  /** Operators' sign-in with the company's OpenID Connect provider (KASSA_OIDC_*); null: passkeys only. */
  oidc: OidcSettings | null;
}

export interface MerchantEvents {
  url: string;
  /** `whsec_…`; while a merchant rotates, the current secret and the next, both signing every event. */
  secrets: string[];
}

const SECRET_MIN = 16;

/** A switch: `1`, `true` or `yes` turns it on. */
const isOn = (value: string | undefined) => ['1', 'true', 'yes'].includes((value ?? '').toLowerCase());

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

const baseUrl = () =>
  z
    .string({ error: 'is required' })
    .refine((value) => {
      try {
        const url = new URL(value);
        return (
          (url.protocol === 'https:' || url.protocol === 'http:') &&
          !url.username &&
          !url.password &&
          !url.search &&
          !url.hash
        );
      } catch {
        return false;
      }
    }, `must be an absolute http(s) URL without credentials, query or fragment`)
    .transform((value) => value.replace(/\/+$/, ''));

const secret = z
  .string({ error: 'is required' })
  .min(SECRET_MIN, `must be at least ${SECRET_MIN} characters`)
  .refine((value) => !/\s/.test(value), 'must not contain whitespace');

function parseOrigin(value: string): string {
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('not http(s)');
  if (url.pathname !== '/' || url.search || url.hash || url.username)
    throw new Error('an origin has no path, query or credentials');
  return url.origin;
}

function parseHost(value: string): string {
  const match = /^([a-z0-9.-]+|\[[0-9a-f:]+\])(?::(\d{1,5}))?$/i.exec(value);
  if (!match || (match[2] !== undefined && Number(match[2]) > 65535)) throw new Error('expected host or host:port');
  return value.toLowerCase();
}

export function parseOpenAmount(value: string): OpenAmount {
  const match = /^\s*([0-9.]+)\s*\.\.\s*([0-9.]+)\s+([A-Z]{3})\s*$/.exec(value);
  if (!match) throw new Error('expected "min..max CUR", for example "1..500 EUR"');
  const [, min, max, currencyCode] = match as unknown as [string, string, string, string];
  for (const bound of [min, max]) {
    if (!isDecimal(bound, AMOUNT_LIMITS.fractionDigits))
      throw new Error(`${bound} is not a decimal with at most 2 decimal places`);
  }
  if (compareDecimals(min, AMOUNT_LIMITS.min) < 0 || compareDecimals(max, AMOUNT_LIMITS.max) > 0)
    throw new Error(`bounds must lie within ${AMOUNT_LIMITS.min}..${AMOUNT_LIMITS.max}`);
  if (compareDecimals(min, max) > 0) throw new Error('min is greater than max');
  if (!isPaymentCurrency(currencyCode))
    throw new Error(`${currencyCode} is not a currency the payment service settles`);
  return { min, max, currencyCode };
}

function each<T>(setting: string, values: string[], parse: (value: string) => T): T[] {
  return values.map((value) => {
    try {
      return parse(value);
    } catch (error) {
      throw new ConfigError(setting, `"${value}" is invalid: ${(error as Error).message}`);
    }
  });
}

/** Reads and validates the configuration; throws a ConfigError naming the first bad setting. */
export function loadConfig(env: Record<string, string | undefined> = process.env): ProxyConfig {
  const source = settingsSource(env);

  const returnUrls = each('KASSA_RETURN_URLS', list(source.KASSA_RETURN_URLS), (value) => {
    if (!isHttpsOrLoopback(value)) throw new Error('must be an absolute https URL (plain http only for loopback)');
    const url = new URL(value);
    if (url.hash) throw new Error('must not carry a fragment');
    // The payment's status parameter is added to it, and the payment service takes URL_MAX at most.
    if (url.href.length > URL_MAX - RETURN_URL_ROOM)
      throw new Error(
        `must be at most ${URL_MAX - RETURN_URL_ROOM} characters, to leave room for the payment's status`,
      );
    return url.href;
  });
  if (returnUrls.length === 0)
    throw new ConfigError('KASSA_RETURN_URLS', 'is required: at least one URL the customer may return to');
  const allowedOrigins = each('KASSA_ALLOWED_ORIGINS', list(source.KASSA_ALLOWED_ORIGINS), parseOrigin);
  const flowHosts = each('KASSA_FLOW_HOSTS', list(source.KASSA_FLOW_HOSTS), parseHost);
  if (flowHosts.length === 0)
    throw new ConfigError('KASSA_FLOW_HOSTS', 'is required: the hosts the payment service sends customers to');

  const secrets = [required('KASSA_PAY_CLIENT_SECRET', secret, source.KASSA_PAY_CLIENT_SECRET)];
  if (source.KASSA_PAY_CLIENT_SECRET_NEXT)
    secrets.push(required('KASSA_PAY_CLIENT_SECRET_NEXT', secret, source.KASSA_PAY_CLIENT_SECRET_NEXT));

  const merchantKey = required('KASSA_MERCHANT_KEY', secret, source.KASSA_MERCHANT_KEY);
  // No longer opens operator routes (docs/operators.md): kept only so that a deployment that still sets
  // it is told so at start, and its value is still kept out of logs.
  const operatorToken = source.KASSA_OPERATOR_TOKEN
    ? required('KASSA_OPERATOR_TOKEN', secret, source.KASSA_OPERATOR_TOKEN)
    : null;
  if (merchantKey === operatorToken)
    throw new ConfigError('KASSA_OPERATOR_TOKEN', 'must differ from KASSA_MERCHANT_KEY');

  let openAmount: OpenAmount | null = null;
  const open = source.KASSA_OPEN_AMOUNT?.trim();
  if (open && open !== 'off') {
    try {
      openAmount = parseOpenAmount(open);
    } catch (error) {
      throw new ConfigError('KASSA_OPEN_AMOUNT', (error as Error).message);
    }
  }

  const events = parseEvents(source);
  let onramp: OnrampSettings | null;
  try {
    onramp = parseOnrampSettings(source);
  } catch (error) {
    if (error instanceof OnrampSettingError) throw new ConfigError(error.setting, error.message);
    throw error;
  }

  const logLevel = source.KASSA_LOG_LEVEL ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel))
    throw new ConfigError('KASSA_LOG_LEVEL', 'must be debug, info, warn or error');

  return {
    port: integer('PORT', source.PORT, 8787, 0, 65535),
    host: source.HOST || '127.0.0.1',
    payBaseUrl: required('KASSA_PAY_BASE_URL', baseUrl(), source.KASSA_PAY_BASE_URL),
    payClientSecrets: secrets,
    ordersBaseUrl: required('KASSA_ORDERS_BASE_URL', baseUrl(), source.KASSA_ORDERS_BASE_URL),
    ordersApiKey: required('KASSA_ORDERS_API_KEY', secret, source.KASSA_ORDERS_API_KEY),
    reforgeBaseUrl: required('KASSA_REFORGE_BASE_URL', baseUrl(), source.KASSA_REFORGE_BASE_URL),
    merchantKey,
    operatorToken,
    allowedOrigins,
    returnUrls,
    flowHosts,
    webhookSecret: required(
      'KASSA_WEBHOOK_SECRET',
      z
        .string({ error: 'is required' })
        .regex(/^[A-Za-z0-9_-]{32,128}$/, 'must be 32 to 128 characters of A-Z a-z 0-9 _ -'),
      source.KASSA_WEBHOOK_SECRET,
    ),
    ...parseStoreSettings(source),
    openAmount,
    checkoutTtlSeconds: integer(
      'KASSA_CHECKOUT_TTL_SECONDS',
      source.KASSA_CHECKOUT_TTL_SECONDS,
      24 * 3600,
      60,
      30 * 24 * 3600,
    ),
    rateLimit: integer('KASSA_RATE_LIMIT', source.KASSA_RATE_LIMIT, 600, 0, 1_000_000),
    createRateLimit: integer('KASSA_CREATE_RATE_LIMIT', source.KASSA_CREATE_RATE_LIMIT, 30, 0, 1_000_000),
    trustProxy: isOn(source.KASSA_TRUST_PROXY),
    upstreamTimeoutMs: integer('KASSA_UPSTREAM_TIMEOUT_MS', source.KASSA_UPSTREAM_TIMEOUT_MS, 10_000, 100, 120_000),
    logLevel: logLevel as ProxyConfig['logLevel'],
    widgetDir: source.KASSA_WIDGET_DIR || defaultWidgetDir(),
    events,
    metricsToken: source.KASSA_METRICS_TOKEN
      ? required('KASSA_METRICS_TOKEN', secret, source.KASSA_METRICS_TOKEN)
      : null,
    publicUrl: source.KASSA_PUBLIC_URL ? parsePublicUrl(source.KASSA_PUBLIC_URL) : null,
    onramp,
    apiDocs: isOn(source.KASSA_API_DOCS),
    approvalThreshold: parseThreshold(source.KASSA_APPROVAL_THRESHOLD),
    oidc: parseOidcSettings(source),
  };
}

function parseThreshold(value: string | undefined): string | null {
  const threshold = value?.trim();
  if (!threshold || threshold === 'none') return null;
  if (!isDecimal(threshold, 2) || compareDecimals(threshold, '0') <= 0)
    throw new ConfigError(
      'KASSA_APPROVAL_THRESHOLD',
      `must be a positive amount with at most 2 decimal places (such as 100), or none; not "${threshold}"`,
    );
  return threshold;
}

/** An origin the bank may send customers to: https, or http on loopback. */
function parsePublicUrl(value: string): string {
  let origin: string;
  try {
    origin = parseOrigin(value.replace(/\/+$/, ''));
  } catch (error) {
    throw new ConfigError(
      'KASSA_PUBLIC_URL',
      `must be the proxy's origin, such as https://pay.shop.example: ${(error as Error).message}`,
    );
  }
  if (!isHttpsOrLoopback(origin)) throw new ConfigError('KASSA_PUBLIC_URL', 'must be https (http only on loopback)');
  return origin;
}

/** `whsec_` and the base64 of 24 to 64 random bytes, as Standard Webhooks secrets are written. */
const eventSecret = z.string().refine((value) => {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value);
  if (!match || match[1]!.length % 4 !== 0) return false;
  const bytes = Buffer.from(match[1]!, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}, 'must be whsec_ followed by the base64 of 24 to 64 random bytes (openssl rand -base64 32)');

function parseEvents(source: Record<string, string | undefined>): MerchantEvents | null {
  const url = source.KASSA_EVENTS_URL?.trim();
  const secret = source.KASSA_EVENTS_SECRET?.trim();
  const next = source.KASSA_EVENTS_SECRET_NEXT?.trim();
  if (!url) {
    if (secret || next) throw new ConfigError('KASSA_EVENTS_URL', 'is required when KASSA_EVENTS_SECRET is set');
    return null;
  }
  if (!isHttpsOrLoopback(url))
    throw new ConfigError(
      'KASSA_EVENTS_URL',
      'must be an absolute https URL without credentials (plain http only for loopback)',
    );
  if (!secret) throw new ConfigError('KASSA_EVENTS_SECRET', 'is required when KASSA_EVENTS_URL is set');
  const secrets = [required('KASSA_EVENTS_SECRET', eventSecret, secret)];
  if (next) {
    secrets.push(required('KASSA_EVENTS_SECRET_NEXT', eventSecret, next));
    if (next === secret) throw new ConfigError('KASSA_EVENTS_SECRET_NEXT', 'must differ from KASSA_EVENTS_SECRET');
  }
  return { url: new URL(url).href, secrets };
}

/** Every configured value that must never appear in a response, a log line or a built file. */
export function secretsOf(config: ProxyConfig): string[] {
  const storePasswords = [config.redisUrl, config.database?.url].flatMap((url) => {
    const password = URL.canParse(url ?? '') ? decodeURIComponent(new URL(url!).password) : '';
    return password ? [password] : [];
  });
  return [
    ...config.payClientSecrets,
    config.ordersApiKey,
    config.merchantKey,
    ...(config.operatorToken ? [config.operatorToken] : []),
    config.webhookSecret,
    ...storePasswords,
    ...(config.events?.secrets ?? []),
    ...(config.metricsToken ? [config.metricsToken] : []),
    ...(config.oidc ? [config.oidc.clientSecret] : []),
  ];
}

/** `dist/widget` seen from the sources (`proxy/`) or from the bundle (`dist/proxy/`). */
function defaultWidgetDir(): string {
  const candidates = ['../dist/widget', '../widget'].map((relative) =>
    fileURLToPath(new URL(relative, import.meta.url)),
  );
  return candidates.find((dir) => existsSync(`${dir}/kassa.js`)) ?? candidates[0]!;
}
