import type { Redis } from 'ioredis';
import {
  changedOperator,
  DEVICE_KEPT_MS,
  isActiveAdmin,
  leavesNoAdmin,
  type CreateOperatorOutcome,
  type CredentialRecord,
  type DeviceAuthorizationRecord,
  type DeviceChange,
  type InvitationRecord,
  type OperatorChange,
  type OperatorRecord,
  type OperatorStore,
  type OperatorUpdateOutcome,
  type PasskeyRecord,
  type RemoveOperatorOutcome,
} from '../operators.ts';
import { RedisApprovals } from './approvals.ts';
import { RedisAudit } from './audit.ts';
import { RedisMerchantKeys } from './merchant-keys.ts';
import { Cas, optimistically } from './cas.ts';
import { guarded } from './faults.ts';
import { idOfMember, indexMember, type RedisKeys } from './keys.ts';
import { RedisSigninCeremonies } from './signin-ceremonies.ts';

/** A credential is kept this long past its expiry, so its owner still sees it listed, expired. */
const CREDENTIAL_KEPT_MS = 24 * 3_600_000;

const parse = <T>(raw: string | null | undefined): T | undefined => (raw ? (JSON.parse(raw) as T) : undefined);
const keptUntil = (at: number) => Math.max(1, at - Date.now());

/**
 * Operators for a fleet: each record a JSON value, with keys for the lookups that must be unique
 * (e-mail, SSO subject, a secret's hash, a user code) and lexicographic sorted sets as lists. Every
 * change of an account bumps one version key, so the last-admin rule is decided on a consistent
 * reading of all accounts; credentials, invitations and device sign-ins expire by themselves.
 */
export class RedisOperators implements OperatorStore {
  readonly ceremonies: RedisSigninCeremonies;

  constructor(
    private readonly redis: Redis,
    private readonly key: RedisKeys,
  ) {
    this.ceremonies = new RedisSigninCeremonies(redis, key);
  }

  createOperator(operator: OperatorRecord): Promise<CreateOperatorOutcome> {
    return guarded(() =>
      optimistically<CreateOperatorOutcome>(async () => {
        const version = await this.redis.get(this.key.operatorsVersion());
        const cas = this.bump(new Cas(), version ?? null)
          .expect(this.key.operatorByEmail(operator.email), null)
          .set(this.key.operator(operator.operatorId), JSON.stringify(operator))
          .set(this.key.operatorByEmail(operator.email), operator.operatorId)
          .zadd(this.key.operatorsAll(), indexMember(operator.createdAt, operator.operatorId));
        if (operator.ssoSubject)
          cas
            .expect(this.key.operatorBySso(operator.ssoSubject), null)
            .set(this.key.operatorBySso(operator.ssoSubject), operator.operatorId);
        if (await cas.commit(this.redis)) return { value: 'created' };
        if (await this.redis.exists(this.key.operatorByEmail(operator.email))) return { value: 'email-taken' };
        if (operator.ssoSubject && (await this.redis.exists(this.key.operatorBySso(operator.ssoSubject))))
          return { value: 'sso-taken' };
        return undefined;
      }),
    );
  }

  operatorById(operatorId: string): Promise<OperatorRecord | undefined> {
    return guarded(async () => parse<OperatorRecord>(await this.redis.get(this.key.operator(operatorId))));
  }

  operatorByEmail(email: string): Promise<OperatorRecord | undefined> {
    return this.operatorAt(this.key.operatorByEmail(email));
  }

  operatorBySsoSubject(ssoSubject: string): Promise<OperatorRecord | undefined> {
    return this.operatorAt(this.key.operatorBySso(ssoSubject));
  }

  listOperators(): Promise<OperatorRecord[]> {
    return guarded(() => this.everyOperator());
  }

  updateOperator(operatorId: string, revision: number, change: OperatorChange): Promise<OperatorUpdateOutcome> {
    const operatorKey = this.key.operator(operatorId);
    return guarded(() =>
      optimistically<OperatorUpdateOutcome>(async () => {
        const [version, raw] = await this.redis.mget(this.key.operatorsVersion(), operatorKey);
        const before = parse<OperatorRecord>(raw);
        if (!before || before.revision !== revision) return { value: { outcome: 'moved' } };
        const after = changedOperator(before, change);
        if (leavesNoAdmin(before, after, await this.admins())) return { value: { outcome: 'last-admin' } };
        const cas = this.bump(new Cas(), version ?? null)
          .expect(operatorKey, raw!)
          .set(operatorKey, JSON.stringify(after));
        if (after.ssoSubject !== before.ssoSubject) {
          if (before.ssoSubject) cas.del(this.key.operatorBySso(before.ssoSubject));
          if (after.ssoSubject) {
            const holder = await this.redis.get(this.key.operatorBySso(after.ssoSubject));
            if (holder !== null && holder !== operatorId) return { value: { outcome: 'sso-taken' } };
            cas
              .expect(this.key.operatorBySso(after.ssoSubject), holder)
              .set(this.key.operatorBySso(after.ssoSubject), operatorId);
          }
        }
        return (await cas.commit(this.redis)) ? { value: { outcome: 'updated', operator: after } } : undefined;
      }),
    );
  }

  removeOperator(operatorId: string): Promise<RemoveOperatorOutcome> {
    const operatorKey = this.key.operator(operatorId);
    return guarded(() =>
      optimistically<RemoveOperatorOutcome>(async () => {
        const [version, raw] = await this.redis.mget(this.key.operatorsVersion(), operatorKey);
        const before = parse<OperatorRecord>(raw);
        if (!before) return { value: 'missing' };
        if (leavesNoAdmin(before, undefined, await this.admins())) return { value: 'last-admin' };
        const cas = this.bump(new Cas(), version ?? null)
          .expect(operatorKey, raw!)
          .del(operatorKey)
          .del(this.key.operatorByEmail(before.email))
          .zrem(this.key.operatorsAll(), indexMember(before.createdAt, operatorId));
        if (before.ssoSubject) cas.del(this.key.operatorBySso(before.ssoSubject));
        const [credentials, invitations, passkeys] = await Promise.all(
          [this.key.credentialsOf, this.key.invitationsOf, this.key.passkeysOf].map((list) =>
            this.redis.zrange(list(operatorId), 0, -1),
          ),
        );
        const hashes = credentials!.length
          ? await this.redis.mget(credentials!.map((member) => this.key.credential(idOfMember(member))))
          : [];
        for (const [index, member] of credentials!.entries()) {
          cas.del(this.key.credential(idOfMember(member)));
          if (hashes[index]) cas.del(this.key.credentialByHash(hashes[index]));
        }
        for (const hash of invitations!) cas.del(this.key.invitation(hash));
        for (const id of passkeys!) cas.del(this.key.passkey(id));
        for (const list of [this.key.credentialsOf, this.key.invitationsOf, this.key.passkeysOf])
          cas.del(list(operatorId));
        return (await cas.commit(this.redis)) ? { value: 'removed' } : undefined;
      }),
    );
  }

  activeAdmins(): Promise<number> {
    return guarded(() => this.admins());
  }

  insertCredential(credential: CredentialRecord): Promise<void> {
    return guarded(async () => {
      const kept = keptUntil(credential.expiresAt + CREDENTIAL_KEPT_MS);
      await new Cas()
        .setExpiring(this.key.credentialByHash(credential.tokenHash), JSON.stringify(credential), kept)
        .setExpiring(this.key.credential(credential.credentialId), credential.tokenHash, kept)
        .zadd(this.key.credentialsOf(credential.operatorId), indexMember(credential.createdAt, credential.credentialId))
        .commit(this.redis);
    });
  }

  credentialByHash(tokenHash: string): Promise<{ credential: CredentialRecord; operator: OperatorRecord } | undefined> {
    return guarded(async () => {
      const credential = parse<CredentialRecord>(await this.redis.get(this.key.credentialByHash(tokenHash)));
      const operator =
        credential && parse<OperatorRecord>(await this.redis.get(this.key.operator(credential.operatorId)));
      return credential && operator ? { credential, operator } : undefined;
    });
  }

  credentialById(credentialId: string): Promise<CredentialRecord | undefined> {
    return guarded(async () => (await this.credentialWithRaw(credentialId))?.credential);
  }

  credentialsOf(operatorId: string): Promise<CredentialRecord[]> {
    return guarded(async () => {
      const ids = (await this.redis.zrevrange(this.key.credentialsOf(operatorId), 0, -1)).map(idOfMember);
      if (!ids.length) return [];
      const hashes = await this.redis.mget(ids.map((id) => this.key.credential(id)));
      const live = hashes.filter((hash): hash is string => hash !== null);
      if (!live.length) return [];
      const records = await this.redis.mget(live.map((hash) => this.key.credentialByHash(hash)));
      return records.flatMap((raw) => parse<CredentialRecord>(raw) ?? []);
    });
  }

  touchCredential(credentialId: string, lastUsedAt: number, idleExpiresAt: number | null): Promise<void> {
    return guarded(async () => {
      // Best effort: a use recorded a moment late is harmless, and a revocation that came first wins.
      const found = await this.credentialWithRaw(credentialId);
      if (!found) return;
      await this.rewrite(found, { ...found.credential, lastUsedAt, idleExpiresAt });
    });
  }

  revokeCredential(credentialId: string, at: number): Promise<CredentialRecord | undefined> {
    return guarded(() =>
      optimistically<CredentialRecord | undefined>(async () => {
        const found = await this.credentialWithRaw(credentialId);
        if (!found || found.credential.revokedAt !== null) return { value: undefined };
        return (await this.rewrite(found, { ...found.credential, revokedAt: at }))
          ? { value: found.credential }
          : undefined;
      }),
    );
  }

  insertInvitation(invitation: InvitationRecord): Promise<void> {
    return guarded(async () => {
      const cas = new Cas().setExpiring(
        this.key.invitation(invitation.tokenHash),
        JSON.stringify(invitation),
        keptUntil(invitation.expiresAt),
      );
      if (invitation.operatorId) cas.zadd(this.key.invitationsOf(invitation.operatorId), invitation.tokenHash);
      await cas.commit(this.redis);
    });
  }

  invitationByHash(tokenHash: string, now: number): Promise<InvitationRecord | undefined> {
    return guarded(async () => {
      const invitation = parse<InvitationRecord>(await this.redis.get(this.key.invitation(tokenHash)));
      return invitation && invitation.expiresAt > now ? invitation : undefined;
    });
  }

  takeInvitation(tokenHash: string, now: number): Promise<InvitationRecord | undefined> {
    return guarded(async () => {
      const invitation = parse<InvitationRecord>(await this.redis.getdel(this.key.invitation(tokenHash)));
      return invitation && invitation.expiresAt > now ? invitation : undefined;
    });
  }

  insertPasskey(passkey: PasskeyRecord): Promise<boolean> {
    return guarded(async () =>
      new Cas()
        .expect(this.key.passkey(passkey.credentialId), null)
        .set(this.key.passkey(passkey.credentialId), JSON.stringify(passkey))
        .zadd(this.key.passkeysOf(passkey.operatorId), passkey.credentialId)
        .commit(this.redis),
    );
  }

  passkeyById(credentialId: string): Promise<PasskeyRecord | undefined> {
    return guarded(async () => parse<PasskeyRecord>(await this.redis.get(this.key.passkey(credentialId))));
  }

  passkeysOf(operatorId: string): Promise<PasskeyRecord[]> {
    return guarded(async () => {
      const ids = await this.redis.zrange(this.key.passkeysOf(operatorId), 0, -1);
      if (!ids.length) return [];
      const records = await this.redis.mget(ids.map((id) => this.key.passkey(id)));
      return records.flatMap((raw) => parse<PasskeyRecord>(raw) ?? []);
    });
  }

  usePasskey(credentialId: string, expected: number, counter: number, at: number): Promise<boolean> {
    const passkeyKey = this.key.passkey(credentialId);
    return guarded(async () => {
      const raw = await this.redis.get(passkeyKey);
      const passkey = parse<PasskeyRecord>(raw);
      if (!passkey || passkey.counter !== expected) return false;
      return new Cas()
        .expect(passkeyKey, raw)
        .set(passkeyKey, JSON.stringify({ ...passkey, counter, lastUsedAt: at }))
        .commit(this.redis);
    });
  }

  deletePasskey(operatorId: string, credentialId: string): Promise<boolean> {
    const passkeyKey = this.key.passkey(credentialId);
    return guarded(async () => {
      const raw = await this.redis.get(passkeyKey);
      if (parse<PasskeyRecord>(raw)?.operatorId !== operatorId) return false;
      return new Cas()
        .expect(passkeyKey, raw)
        .del(passkeyKey)
        .zrem(this.key.passkeysOf(operatorId), credentialId)
        .commit(this.redis);
    });
  }

  insertDevice(device: DeviceAuthorizationRecord): Promise<boolean> {
    const codeKey = this.key.deviceByUserCode(device.userCode);
    return guarded(async () => {
      // A code whose authorization has expired is free again, even while Redis still holds its key.
      const holder = await this.redis.get(codeKey);
      const held =
        holder === null ? undefined : parse<DeviceAuthorizationRecord>(await this.redis.get(this.key.device(holder)));
      if (held && held.expiresAt > device.createdAt) return false;
      return new Cas()
        .expect(codeKey, holder)
        .setExpiring(codeKey, device.deviceCodeHash, keptUntil(device.expiresAt))
        .setExpiring(
          this.key.device(device.deviceCodeHash),
          JSON.stringify(device),
          keptUntil(device.expiresAt + DEVICE_KEPT_MS),
        )
        .commit(this.redis);
    });
  }

  deviceByCodeHash(deviceCodeHash: string): Promise<DeviceAuthorizationRecord | undefined> {
    return guarded(async () => parse<DeviceAuthorizationRecord>(await this.redis.get(this.key.device(deviceCodeHash))));
  }

  deviceByUserCode(userCode: string, now: number): Promise<DeviceAuthorizationRecord | undefined> {
    return guarded(async () => {
      const hash = await this.redis.get(this.key.deviceByUserCode(userCode));
      const device =
        hash === null ? undefined : parse<DeviceAuthorizationRecord>(await this.redis.get(this.key.device(hash)));
      return device && device.expiresAt > now ? device : undefined;
    });
  }

  updateDevice(
    deviceCodeHash: string,
    revision: number,
    change: DeviceChange,
  ): Promise<DeviceAuthorizationRecord | undefined> {
    const deviceKey = this.key.device(deviceCodeHash);
    return guarded(async () => {
      const raw = await this.redis.get(deviceKey);
      const device = parse<DeviceAuthorizationRecord>(raw);
      if (!device || device.revision !== revision) return undefined;
      const next = { ...device, ...change, revision: revision + 1 };
      const committed = await new Cas()
        .expect(deviceKey, raw)
        .setExpiring(deviceKey, JSON.stringify(next), keptUntil(device.expiresAt + DEVICE_KEPT_MS))
        .commit(this.redis);
      return committed ? next : undefined;
    });
  }

  /** Commits only if the operators' version is still `version`, and moves it on. */
  private bump(cas: Cas, version: string | null): Cas {
    return cas
      .expect(this.key.operatorsVersion(), version)
      .set(this.key.operatorsVersion(), String(Number(version ?? 0) + 1));
  }

  private async operatorAt(pointer: string): Promise<OperatorRecord | undefined> {
    return guarded(async () => {
      const id = await this.redis.get(pointer);
      return id === null ? undefined : parse<OperatorRecord>(await this.redis.get(this.key.operator(id)));
    });
  }

  private async everyOperator(): Promise<OperatorRecord[]> {
    const ids = (await this.redis.zrange(this.key.operatorsAll(), 0, -1)).map(idOfMember);
    if (!ids.length) return [];
    const records = await this.redis.mget(ids.map((id) => this.key.operator(id)));
    return records.flatMap((raw) => parse<OperatorRecord>(raw) ?? []);
  }

  private async admins(): Promise<number> {
    return (await this.everyOperator()).filter(isActiveAdmin).length;
  }

  private async credentialWithRaw(
    credentialId: string,
  ): Promise<{ credential: CredentialRecord; raw: string } | undefined> {
    const hash = await this.redis.get(this.key.credential(credentialId));
    const raw = hash === null ? null : await this.redis.get(this.key.credentialByHash(hash));
    const credential = parse<CredentialRecord>(raw);
    return credential && raw ? { credential, raw } : undefined;
  }

  /** Writes a credential anew if it is still as read, keeping when Redis forgets it. */
  private rewrite(found: { credential: CredentialRecord; raw: string }, next: CredentialRecord): Promise<boolean> {
    const key = this.key.credentialByHash(found.credential.tokenHash);
    return new Cas()
      .expect(key, found.raw)
      .setExpiring(key, JSON.stringify(next), keptUntil(next.expiresAt + CREDENTIAL_KEPT_MS))
      .commit(this.redis);
  }
}

/** The stores of what admins manage (operators, dual control, the audit, merchant keys), on one connection and prefix. */
export const operatorStores = (redis: Redis, key: RedisKeys) => ({
  operators: new RedisOperators(redis, key),
  approvals: new RedisApprovals(redis, key),
  audit: new RedisAudit(redis, key),
  merchantKeys: new RedisMerchantKeys(redis, key),
});
