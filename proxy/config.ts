/**
 * The proxy's configuration: environment variables, optionally under a JSON file named by
 * KASSA_CONFIG_FILE (same keys; the environment wins). Validated at start; a bad setting stops the
 * proxy with a message that names it. Every name here is documented in the README.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { isHttpsOrLocalHttp } from '../lib/private-http.ts';
import {
  baseUrl,
  ConfigError,
  each,
  integer,
  isOn,
  list,
  required,
  secret,
  settingsSource,
  type SettingsSource,
} from './config-readers.ts';
import { parseEvents, type MerchantEvents } from './events/event-settings.ts';
import { parseMerchantBrand, type MerchantBrand } from './links/link-settings.ts';
import { OnrampSettingError, parseOnrampSettings, type OnrampSettings } from './onramp/onramp-settings.ts';
import { parseOperatorSettings, type OperatorSettings } from './operator/operator-settings.ts';
import { parsePaymentSettings, plainHttpRule, type PaymentSettings } from './payments/payment-settings.ts';
import { parseStoreSettings, type StoreSettings } from './state/store-settings.ts';

/** Every setting, read and checked; each part's own are in its `*-settings.ts`. */
export interface ProxyConfig extends PaymentSettings, StoreSettings, OperatorSettings {
  port: number;
  host: string;
  payBaseUrl: string;
  payClientSecrets: string[];
  ordersBaseUrl: string;
  ordersApiKey: string;
  reforgeBaseUrl: string;
  merchantKey: string;
  allowedOrigins: string[];
  webhookSecret: string;
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
  /** A Prometheus scraper's own bearer token for /metrics (an operator's credential works too). */
  metricsToken: string | null;
  /** Where browsers and banks reach this proxy (`https://pay.shop.example`): its return address is there. */
  publicUrl: string | null;
  /** Stablecoins bought by bank (KASSA_ONRAMP_*); null: the on-ramp is off. */
  onramp: OnrampSettings | null;
  /** Serve the API's reference page at /docs (KASSA_API_DOCS=1). */
  apiDocs: boolean;
  /** The merchant's name, logo and colour on link pages (KASSA_MERCHANT_*); each null: Kassa's own look. */
  merchant: MerchantBrand;
}

function parseOrigin(value: string): string {
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('not http(s)');
  if (url.pathname !== '/' || url.search || url.hash || url.username)
    throw new Error('an origin has no path, query or credentials');
  return url.origin;
}

/** Reads and validates the configuration; throws a ConfigError naming the first bad setting. */
export function loadConfig(env: SettingsSource = process.env): ProxyConfig {
  const source = settingsSource(env);

  // Before the payment settings, whose KASSA_ALLOW_PRIVATE_HTTP depends on it.
  const payBaseUrl = required('KASSA_PAY_BASE_URL', baseUrl(), source.KASSA_PAY_BASE_URL);
  const payments = parsePaymentSettings(source);
  const allowedOrigins = each('KASSA_ALLOWED_ORIGINS', list(source.KASSA_ALLOWED_ORIGINS), parseOrigin);

  const secrets = [required('KASSA_PAY_CLIENT_SECRET', secret, source.KASSA_PAY_CLIENT_SECRET)];
  if (source.KASSA_PAY_CLIENT_SECRET_NEXT)
    secrets.push(required('KASSA_PAY_CLIENT_SECRET_NEXT', secret, source.KASSA_PAY_CLIENT_SECRET_NEXT));

  const merchantKey = required('KASSA_MERCHANT_KEY', secret, source.KASSA_MERCHANT_KEY);
  const operators = parseOperatorSettings(source, merchantKey);

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
    payBaseUrl,
    payClientSecrets: secrets,
    ordersBaseUrl: required('KASSA_ORDERS_BASE_URL', baseUrl(), source.KASSA_ORDERS_BASE_URL),
    ordersApiKey: required('KASSA_ORDERS_API_KEY', secret, source.KASSA_ORDERS_API_KEY),
    reforgeBaseUrl: required('KASSA_REFORGE_BASE_URL', baseUrl(), source.KASSA_REFORGE_BASE_URL),
    merchantKey,
    ...operators,
    allowedOrigins,
    ...payments,
    webhookSecret: required(
      'KASSA_WEBHOOK_SECRET',
      z
        .string({ error: 'is required' })
        .regex(/^[A-Za-z0-9_-]{32,128}$/, 'must be 32 to 128 characters of A-Z a-z 0-9 _ -'),
      source.KASSA_WEBHOOK_SECRET,
    ),
    ...parseStoreSettings(source),
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
    publicUrl: source.KASSA_PUBLIC_URL ? parsePublicUrl(source.KASSA_PUBLIC_URL, payments.allowPrivateHttp) : null,
    onramp,
    apiDocs: isOn(source.KASSA_API_DOCS),
    merchant: parseMerchantBrand(source),
  };
}

/** An origin the bank may send customers to: https, or http on loopback (or a private network, when allowed). */
function parsePublicUrl(value: string, privateHttp: boolean): string {
  let origin: string;
  try {
    origin = parseOrigin(value.replace(/\/+$/, ''));
  } catch (error) {
    throw new ConfigError(
      'KASSA_PUBLIC_URL',
      `must be the proxy's origin, such as https://pay.shop.example: ${(error as Error).message}`,
    );
  }
  if (!isHttpsOrLocalHttp(origin, privateHttp))
    throw new ConfigError('KASSA_PUBLIC_URL', `must be https (${plainHttpRule(privateHttp)})`);
  return origin;
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
