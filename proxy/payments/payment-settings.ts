/**
 * What a payment may be (`KASSA_OPEN_AMOUNT`), where the bank sends the customer back
 * (`KASSA_RETURN_URLS`), the hosts its payment pages may be on (`KASSA_FLOW_HOSTS`), and whether
 * those may be plain http on a private network (`KASSA_ALLOW_PRIVATE_HTTP`, a local sandbox only).
 */
import { compareDecimals, isDecimal } from '../../lib/money.ts';
import { isHttpsOrLocalHttp, isLocalNetworkHost } from '../../lib/private-http.ts';
import { AMOUNT_LIMITS, isPaymentCurrency, URL_MAX } from '../../schemas/pay.ts';
import { ConfigError, each, isOn, list, type SettingsSource } from '../config-readers.ts';

/** `&kassa_status=` and a status token. */
const RETURN_URL_ROOM = 64;

export interface OpenAmount {
  min: string;
  max: string;
  currencyCode: string;
}

export interface PaymentSettings {
  returnUrls: string[];
  flowHosts: string[];
  openAmount: OpenAmount | null;
  /** KASSA_COUNTER: the bounds and currency of amounts operators ask for at a till (counter mode); null: off. */
  counterAmount: OpenAmount | null;
  /**
   * KASSA_ALLOW_PRIVATE_HTTP: plain http to a private-network IPv4 address (RFC 1918) is taken, besides
   * https and loopback, in KASSA_PUBLIC_URL, KASSA_RETURN_URLS, the redirectUrl sent upstream and a
   * payment page's address; only with a payment service on this computer or its network.
   */
  allowPrivateHttp: boolean;
}

/** The opposites of what `isOn` reads as on (`1`, `true`, `yes`). */
const OFF = ['', '0', 'false', 'no'];

/**
 * KASSA_ALLOW_PRIVATE_HTTP, which lets a phone on this network try the sandbox (`npm start -- --lan`):
 * `1` turns it on, and only against a payment service at a loopback or private-network address, which
 * no live service is. Unlike other switches, a value it does not know stops the proxy.
 */
export function parseAllowPrivateHttp(source: SettingsSource): boolean {
  const value = source.KASSA_ALLOW_PRIVATE_HTTP ?? '';
  if (!isOn(value)) {
    if (OFF.includes(value.toLowerCase())) return false;
    throw new ConfigError('KASSA_ALLOW_PRIVATE_HTTP', 'must be 1 (on) or 0 (off)');
  }
  const pay = URL.canParse(source.KASSA_PAY_BASE_URL ?? '') ? new URL(source.KASSA_PAY_BASE_URL!) : undefined;
  if (!pay || !isLocalNetworkHost(pay.hostname))
    throw new ConfigError(
      'KASSA_ALLOW_PRIVATE_HTTP',
      'is for a local sandbox only: KASSA_PAY_BASE_URL must be on loopback or a private-network IPv4 address',
    );
  return true;
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

function parseHost(value: string): string {
  const match = /^([a-z0-9.-]+|\[[0-9a-f:]+\])(?::(\d{1,5}))?$/i.exec(value);
  if (!match || (match[2] !== undefined && Number(match[2]) > 65535)) throw new Error('expected host or host:port');
  return value.toLowerCase();
}

/** What the address rule allows, for the message of a URL it refuses. */
export const plainHttpRule = (privateHttp: boolean) =>
  privateHttp ? 'plain http only for loopback and private-network addresses' : 'plain http only for loopback';

function parseReturnUrl(value: string, privateHttp: boolean): string {
  if (!isHttpsOrLocalHttp(value, privateHttp))
    throw new Error(`must be an absolute https URL (${plainHttpRule(privateHttp)})`);
  const url = new URL(value);
  if (url.hash) throw new Error('must not carry a fragment');
  // The payment's status parameter is added to it, and the payment service takes URL_MAX at most.
  if (url.href.length > URL_MAX - RETURN_URL_ROOM)
    throw new Error(`must be at most ${URL_MAX - RETURN_URL_ROOM} characters, to leave room for the payment's status`);
  return url.href;
}

export function parsePaymentSettings(source: SettingsSource): PaymentSettings {
  const allowPrivateHttp = parseAllowPrivateHttp(source);
  const returnUrls = each('KASSA_RETURN_URLS', list(source.KASSA_RETURN_URLS), (value) =>
    parseReturnUrl(value, allowPrivateHttp),
  );
  if (returnUrls.length === 0)
    throw new ConfigError('KASSA_RETURN_URLS', 'is required: at least one URL the customer may return to');
  const flowHosts = each('KASSA_FLOW_HOSTS', list(source.KASSA_FLOW_HOSTS), parseHost);
  if (flowHosts.length === 0)
    throw new ConfigError('KASSA_FLOW_HOSTS', 'is required: the hosts the payment service sends customers to');
  const openAmount = amountBounds(source, 'KASSA_OPEN_AMOUNT');
  const counterAmount = amountBounds(source, 'KASSA_COUNTER');
  return { returnUrls, flowHosts, openAmount, counterAmount, allowPrivateHttp };
}

/** A setting of amount bounds (`min..max CUR`); null when absent or `off`. */
function amountBounds(source: SettingsSource, name: 'KASSA_OPEN_AMOUNT' | 'KASSA_COUNTER'): OpenAmount | null {
  const value = source[name]?.trim();
  if (!value || value === 'off') return null;
  try {
    return parseOpenAmount(value);
  } catch (error) {
    throw new ConfigError(name, (error as Error).message);
  }
}
