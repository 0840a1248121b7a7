/**
 * Verifies an event from the proxy (Standard Webhooks) and parses it into the typed event union.
 * The signature is checked by the `standardwebhooks` package; this module adds what a merchant needs
 * around it: several secrets while rotating, one error type with a reason, and the event's schema.
 */
import { Webhook } from 'standardwebhooks';
import { kassaEventSchema, type KassaEvent } from '../schemas/events.ts';
import { KassaEventError } from './kassa-error.ts';

/** How far an event's `webhook-timestamp` may be from this clock: older ones could be replays. */
export const EVENT_TOLERANCE_SECONDS = 5 * 60;

/**
 * A request's headers: a Fetch `Headers` (or anything with its `get`), or a plain record in any case
 * (Node's `req.headers`, Express).
 */
export type EventHeaders =
  Headers | { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
const SECRET_BYTES = { min: 24, max: 64 };
const ID_PATTERN = /^[\x21-\x7e]{1,255}$/;
const TIMESTAMP_PATTERN = /^\d{1,12}$/;
const SIGNATURE_PATTERN = /^v\d+[a-z]*,[A-Za-z0-9+/=]+( v\d+[a-z]*,[A-Za-z0-9+/=]+)*$/;

function header(headers: EventHeaders, name: string): string {
  let value: string | readonly string[] | undefined | null;
  if (typeof (headers as { get?: unknown }).get === 'function') {
    try {
      value = (headers as { get(name: string): string | null }).get(name);
    } catch {
      throw new KassaEventError('headers', `${name} could not be read`);
    }
  } else {
    const record = headers as Record<string, string | readonly string[] | undefined>;
    for (const key of Object.keys(record)) {
      if (key.toLowerCase() !== name) continue;
      if (value !== undefined && value !== record[key])
        throw new KassaEventError('headers', `${name} is sent twice with different values`);
      value = record[key];
    }
  }
  if (Array.isArray(value)) throw new KassaEventError('headers', `${name} is sent more than once`);
  if (typeof value !== 'string' || value === '') throw new KassaEventError('headers', `${name} is missing`);
  return value.trim();
}

function webhooks(secret: string | readonly string[]): Webhook[] {
  const secrets = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [];
  if (secrets.length === 0) throw new KassaEventError('secret', 'No secret given: pass KASSA_EVENTS_SECRET');
  return secrets.map((one: unknown, index) => {
    const which = secrets.length > 1 ? `secret ${index + 1}` : 'the secret';
    if (typeof one !== 'string' || !SECRET_PATTERN.test(one))
      throw new KassaEventError('secret', `${which} is not "whsec_" followed by base64, as KASSA_EVENTS_SECRET is`);
    const bytes = Math.floor(((one.length - 6) * 3) / 4) - (one.match(/=*$/)?.[0].length ?? 0);
    if (bytes < SECRET_BYTES.min || bytes > SECRET_BYTES.max)
      throw new KassaEventError('secret', `${which} must hold ${SECRET_BYTES.min} to ${SECRET_BYTES.max} bytes`);
    try {
      return new Webhook(one);
    } catch {
      throw new KassaEventError('secret', `${which} is not valid base64 after "whsec_"`);
    }
  });
}

function bodyText(rawBody: string | Uint8Array): string {
  if (typeof rawBody === 'string') return rawBody;
  if (rawBody instanceof Uint8Array) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(rawBody);
    } catch {
      throw new KassaEventError('body', 'The body is not UTF-8 text');
    }
  }
  throw new KassaEventError('body', 'Pass the raw body as received (a string or bytes), before any JSON parsing');
}

/**
 * Checks an event's signature with `secret` (or any of several while rotating to a new one), its
 * timestamp (at most 5 minutes away), and its body against the event schemas.
 *
 * @param rawBody The request body exactly as received: a re-serialised JSON body fails the signature.
 * @param headers The request's headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
 * @param secret KASSA_EVENTS_SECRET (`whsec_…`), or a list of them.
 * @returns The event, typed by its `type`.
 * @throws {KassaEventError} with a `reason`, for anything that must not be acted on.
 */
export function verifyEvent(
  rawBody: string | Uint8Array,
  headers: EventHeaders,
  secret: string | readonly string[],
): KassaEvent {
  const verifiers = webhooks(secret);
  const text = bodyText(rawBody);
  if (headers === null || typeof headers !== 'object')
    throw new KassaEventError('headers', "Pass the request's headers");
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (!ID_PATTERN.test(id)) throw new KassaEventError('headers', 'webhook-id is malformed');
  if (!TIMESTAMP_PATTERN.test(timestamp))
    throw new KassaEventError('headers', 'webhook-timestamp is not a time in whole seconds');
  if (!SIGNATURE_PATTERN.test(signature))
    throw new KassaEventError('headers', 'webhook-signature is not a list of "v1,<base64>" signatures');
  const skew = Number(timestamp) - Math.floor(Date.now() / 1000);
  if (Math.abs(skew) > EVENT_TOLERANCE_SECONDS)
    throw new KassaEventError(
      'timestamp',
      `webhook-timestamp is ${Math.abs(skew)} s ${skew < 0 ? 'old' : 'ahead'}: more than ${EVENT_TOLERANCE_SECONDS} s away`,
    );

  const signed = { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature };
  let lastProblem = '';
  const verified = verifiers.some((webhook) => {
    try {
      webhook.verify(text, signed, { jsonParse: false });
      return true;
    } catch (error) {
      lastProblem = error instanceof Error ? error.message : String(error);
      return false;
    }
  });
  if (!verified) {
    // The clock may have crossed the tolerance between the check above and the library's own.
    if (/timestamp/i.test(lastProblem)) throw new KassaEventError('timestamp', 'webhook-timestamp is too far away');
    throw new KassaEventError('signature', 'No signature matches: a wrong secret, or a body or id not as sent');
  }

  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new KassaEventError('body', 'The body is not JSON');
  }
  const parsed = kassaEventSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new KassaEventError(
      'body',
      `The body is not a Kassa event: ${issue?.path.join('.') || 'body'}: ${issue?.message}`,
    );
  }
  return parsed.data;
}
