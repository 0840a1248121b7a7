/**
 * Device sign-in (OAuth 2.0 Device Authorization Grant, RFC 8628), as GitHub's CLI signs in: the
 * extension asks for a code, shows the short user code, and polls; the operator, signed in on
 * `/operator/device`, approves that code for themselves; the next poll gets a device token of theirs,
 * once. Every step is compare-and-set on the authorization, so two polls or two approvals racing give
 * one token and one decision.
 */
import { randomInt } from 'node:crypto';
import { ConflictError, NotFoundError } from '../domain/domain-errors.ts';
import { USER_CODE_ALPHABET, type DeviceToken, type DeviceTokenError } from '../../schemas/operators.ts';
import type { DeviceAuthorizationRecord, OperatorStore } from '../state/operators.ts';
import { hashSecret, randomSecret, type Credentials, type OperatorPrincipal } from './credentials.ts';

export const DEVICE_CODE_TTL_MS = 10 * 60_000;
/** Seconds between polls; a client polling sooner is told `slow_down` and must wait 5 s more from then on. */
export const POLL_INTERVAL_SECONDS = 5;

/** A poll that gives no token: the RFC's error code, and a sentence. */
export class DeviceTokenRefusal extends Error {
  constructor(
    readonly code: DeviceTokenError['error'],
    message: string,
  ) {
    super(message);
    this.name = 'DeviceTokenRefusal';
  }
}

/** `BCDFGHJK` → `BCDF-GHJK`, as a person reads it. */
export const displayUserCode = (code: string): string => `${code.slice(0, 4)}-${code.slice(4)}`;

export interface DeviceGrantStarted {
  deviceCode: string;
  userCode: string;
  expiresIn: number;
  interval: number;
}

export class DeviceGrant {
  constructor(
    private readonly store: OperatorStore,
    private readonly credentials: Credentials,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new authorization, waiting for a person to approve its user code. */
  async start(input: { clientName: string; ip: string | null; userAgent: string | null }): Promise<DeviceGrantStarted> {
    const deviceCode = randomSecret();
    for (let attempt = 0; attempt < 8; attempt++) {
      const now = this.now();
      const userCode = Array.from({ length: 8 }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]).join(
        '',
      );
      const record: DeviceAuthorizationRecord = {
        deviceCodeHash: hashSecret(deviceCode),
        userCode,
        clientName: input.clientName,
        createdAt: now,
        expiresAt: now + DEVICE_CODE_TTL_MS,
        interval: POLL_INTERVAL_SECONDS,
        lastPolledAt: null,
        state: 'pending',
        operatorId: null,
        ip: input.ip,
        userAgent: input.userAgent?.slice(0, 300) ?? null,
        revision: 1,
      };
      // 20^8 codes: a clash with a live one is rare; another draw settles it.
      if (await this.store.insertDevice(record))
        return {
          deviceCode,
          userCode: displayUserCode(userCode),
          expiresIn: DEVICE_CODE_TTL_MS / 1000,
          interval: POLL_INTERVAL_SECONDS,
        };
    }
    throw new Error('no free user code after 8 draws');
  }

  /** The device token, once the code is approved; otherwise the RFC's answer for where it stands. */
  async poll(deviceCode: string): Promise<DeviceToken> {
    const device = await this.store.deviceByCodeHash(hashSecret(deviceCode));
    if (!device) throw new DeviceTokenRefusal('invalid_grant', 'This device_code is not one Kassa gave');
    const now = this.now();
    if (device.state === 'used') throw new DeviceTokenRefusal('invalid_grant', 'This device_code was used already');
    if (now >= device.expiresAt)
      throw new DeviceTokenRefusal('expired_token', 'The code expired before it was approved: start again');
    if (device.state === 'denied') throw new DeviceTokenRefusal('access_denied', 'The operator denied this sign-in');
    // Only a client waiting is held to the interval: once approved, the next poll gets its token.
    if (
      device.state === 'pending' &&
      device.lastPolledAt !== null &&
      now - device.lastPolledAt < device.interval * 1000
    ) {
      await this.store.updateDevice(device.deviceCodeHash, device.revision, {
        lastPolledAt: now,
        interval: device.interval + 5,
      });
      throw new DeviceTokenRefusal('slow_down', `Poll at most every ${device.interval + 5} seconds`);
    }
    if (device.state === 'pending') {
      await this.store.updateDevice(device.deviceCodeHash, device.revision, { lastPolledAt: now });
      throw new DeviceTokenRefusal('authorization_pending', 'The code has not been approved yet');
    }
    // Approved: the one poll that moves it to `used` gets the token.
    const used = await this.store.updateDevice(device.deviceCodeHash, device.revision, {
      state: 'used',
      lastPolledAt: now,
    });
    const operator = used && device.operatorId ? await this.store.operatorById(device.operatorId) : undefined;
    if (!used) throw new DeviceTokenRefusal('slow_down', 'Another poll of this device_code is under way');
    if (operator?.state !== 'active')
      throw new DeviceTokenRefusal('access_denied', 'The operator who approved this sign-in cannot act now');
    const { secret, credential } = await this.credentials.issue({
      operator,
      kind: 'device',
      name: device.clientName,
      ip: device.ip,
      userAgent: device.userAgent,
    });
    return {
      access_token: secret,
      token_type: 'Bearer',
      expires_in: Math.round((credential.expiresAt - now) / 1000),
      operator: { name: operator.name, email: operator.email, role: operator.role },
    };
  }

  /** What the approval page shows of a code still waiting, or undefined. */
  waiting(userCode: string): Promise<DeviceAuthorizationRecord | undefined> {
    return this.store
      .deviceByUserCode(userCode, this.now())
      .then((device) => (device?.state === 'pending' ? device : undefined));
  }

  /** The signed-in operator approves (for themselves) or denies the device showing `userCode`. */
  async decide(userCode: string, operator: OperatorPrincipal, approve: boolean): Promise<DeviceAuthorizationRecord> {
    // A poll moving the authorization at the same moment is no decision: read again and decide.
    for (let attempt = 0; attempt < 5; attempt++) {
      const device = await this.store.deviceByUserCode(userCode, this.now());
      if (!device) throw new NotFoundError('No device sign-in waits with this code; it may have expired');
      if (device.state !== 'pending') throw new ConflictError('This code was approved or denied already');
      const next = await this.store.updateDevice(device.deviceCodeHash, device.revision, {
        state: approve ? 'approved' : 'denied',
        operatorId: operator.operatorId,
      });
      if (next) return next;
    }
    throw new ConflictError('This code is changing too often to decide; try again');
  }
}
