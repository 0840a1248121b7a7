import { Webhook } from 'standardwebhooks';

/** The Standard Webhooks headers of one event, as sent on every attempt. */
export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Signs with the `standardwebhooks` library, with every configured secret: while a merchant rotates,
 * the signature header carries one signature per secret (space-separated, as the standard allows), so
 * a receiver holding either secret verifies every event.
 */
export class EventSigner {
  private readonly webhooks: Webhook[];

  constructor(secrets: readonly string[]) {
    if (secrets.length === 0) throw new Error('an event signer needs a secret');
    this.webhooks = secrets.map((secret) => new Webhook(secret));
  }

  sign(eventId: string, payload: string, at: Date = new Date()): SignedHeaders {
    return {
      'webhook-id': eventId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': this.webhooks.map((webhook) => webhook.sign(eventId, at, payload)).join(' '),
    };
  }
}
