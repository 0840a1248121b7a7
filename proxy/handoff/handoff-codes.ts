import { createHmac, timingSafeEqual } from 'node:crypto';

/** The payment service's transaction ids are lower-case UUIDs; those pack into 16 bytes. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CODE = /^[A-Za-z0-9_-]{12,120}$/;
/** 64 bits of MAC: forging a code by guessing, at the proxy's rate limits, is out of reach. */
const MAC_BYTES = 8;
const PACKED_UUID = 0;
const PLAIN_ID = 1;

/**
 * Hand-off codes: the short capability in a "pay with your phone" link (`/p/<code>`). A code is the
 * payment's transaction id and a MAC under a key derived from the proxy's webhook secret, so it needs
 * no storage, survives restarts, works on every proxy of a fleet, and cannot be made for a payment by
 * anyone who has only its transaction id. Whether it still leads anywhere is the payment's business:
 * see handoff-page.ts.
 */
export class HandoffCodes {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('kassa hand-off code v1').digest();
  }

  /** The code for a payment: 34 characters for a UUID transaction id. */
  issue(transactionId: string): string {
    const id = UUID.test(transactionId)
      ? Buffer.concat([Buffer.of(PACKED_UUID), Buffer.from(transactionId.replaceAll('-', ''), 'hex')])
      : Buffer.concat([Buffer.of(PLAIN_ID), Buffer.from(transactionId, 'utf8')]);
    return Buffer.concat([id, this.mac(id)]).toString('base64url');
  }

  /** The transaction id a code was issued for, or undefined for anything this proxy did not issue. */
  read(code: string): string | undefined {
    if (!CODE.test(code)) return undefined;
    const bytes = Buffer.from(code, 'base64url');
    // One spelling per code: base64url's unused trailing bits must be zero.
    if (bytes.toString('base64url') !== code) return undefined;
    const id = bytes.subarray(0, bytes.length - MAC_BYTES);
    if (id.length < 2 || !timingSafeEqual(this.mac(id), bytes.subarray(id.length))) return undefined;
    const body = id.subarray(1);
    if (id[0] === PLAIN_ID) return body.toString('utf8');
    if (id[0] !== PACKED_UUID || body.length !== 16) return undefined;
    const hex = body.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  private mac(id: Buffer): Buffer {
    return createHmac('sha256', this.key).update(id).digest().subarray(0, MAC_BYTES);
  }
}
