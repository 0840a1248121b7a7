/**
 * What a payment may be (`KASSA_OPEN_AMOUNT`), where the bank sends the customer back
 * (`KASSA_RETURN_URLS`), and the hosts its payment pages may be on (`KASSA_FLOW_HOSTS`).
 */
import { compareDecimals, isDecimal } from '../../lib/money.ts';
import { isHttpsOrLoopback } from '../../lib/url-rules.ts';
import { AMOUNT_LIMITS, isPaymentCurrency, URL_MAX } from '../../schemas/pay.ts';
import { ConfigError, each, list, type SettingsSource } from '../config-readers.ts';

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

function parseReturnUrl(value: string): string {
  if (!isHttpsOrLoopback(value)) throw new Error('must be an absolute https URL (plain http only for loopback)');
  const url = new URL(value);
  if (url.hash) throw new Error('must not carry a fragment');
  // The payment's status parameter is added to it, and the payment service takes URL_MAX at most.
  if (url.href.length > URL_MAX - RETURN_URL_ROOM)
    throw new Error(`must be at most ${URL_MAX - RETURN_URL_ROOM} characters, to leave room for the payment's status`);
  return url.href;
}

export function parsePaymentSettings(source: SettingsSource): PaymentSettings {
  const returnUrls = each('KASSA_RETURN_URLS', list(source.KASSA_RETURN_URLS), parseReturnUrl);
  if (returnUrls.length === 0)
    throw new ConfigError('KASSA_RETURN_URLS', 'is required: at least one URL the customer may return to');
  const flowHosts = each('KASSA_FLOW_HOSTS', list(source.KASSA_FLOW_HOSTS), parseHost);
  if (flowHosts.length === 0)
    throw new ConfigError('KASSA_FLOW_HOSTS', 'is required: the hosts the payment service sends customers to');
  let openAmount: OpenAmount | null = null;
  const open = source.KASSA_OPEN_AMOUNT?.trim();
  if (open && open !== 'off') {
    try {
      openAmount = parseOpenAmount(open);
    } catch (error) {
      throw new ConfigError('KASSA_OPEN_AMOUNT', (error as Error).message);
    }
  }
  return { returnUrls, flowHosts, openAmount };
}
