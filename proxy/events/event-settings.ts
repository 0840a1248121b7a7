/** The merchant's events' settings (`KASSA_EVENTS_*`): where they go, and the secrets that sign them. */
import { isHttpsOrLoopback } from '../../lib/url-rules.ts';
import { z } from 'zod';
import { ConfigError, required, type SettingsSource } from '../config-readers.ts';

export interface MerchantEvents {
  url: string;
  /** `whsec_…`; while a merchant rotates, the current secret and the next, both signing every event. */
  secrets: string[];
}

/** `whsec_` and the base64 of 24 to 64 random bytes, as Standard Webhooks secrets are written. */
const eventSecret = z.string().refine((value) => {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value);
  if (!match || match[1]!.length % 4 !== 0) return false;
  const bytes = Buffer.from(match[1]!, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}, 'must be whsec_ followed by the base64 of 24 to 64 random bytes (openssl rand -base64 32)');

/** Null: no events are sent. */
export function parseEvents(source: SettingsSource): MerchantEvents | null {
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
