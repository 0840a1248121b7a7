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
import { Cas } from './cas.ts';
import { idOfMember, indexMember, parse } from './keys.ts';
import { RedisRecords, unchanged } from './records.ts';
import { RedisSigninCeremonies } from './signin-ceremonies.ts';

/** A credential is kept this long past its expiry, so its owner still sees it listed, expired. */
const CREDENTIAL_KEPT_MS = 24 * 3_600_000;

const keptUntil = (at: number) => Math.max(1, at - Date.now());

/**
 * Operators for a fleet: each record a JSON value, with keys for the lookups that must be unique
 * (e-mail, SSO subject, a secret's hash, a user code) and lexicographic sorted sets as lists. Every
 * change of an account bumps one version key, so the last-admin rule is decided on a consistent
 * reading of all accounts; credentials, invitations and device sign-ins expire by themselves.
 */
export class RedisOperators extends RedisRecords implements OperatorStore {
  readonly ceremonies = new RedisSigninCeremonies(this.redis, this.key);

  createOperator(operator: OperatorRecord): Promise<CreateOperatorOutcome> {
    const emailKey = this.key.operatorByEmail(operator.email);
    const ssoKey = operator.ssoSubject ? this.key.operatorBySso(operator.ssoSubject) : undefined;
    return this.transact<CreateOperatorOutcome>(async (cas) => {
      const [version = null, emailHolder, ssoHolder] = await this.redis.mget(
        this.key.operatorsVersion(),
        emailKey,
        ...(ssoKey ? [ssoKey] : []),
      );
      if (emailHolder) return unchanged('email-taken');
      if (ssoHolder) return unchanged('sso-taken');
      cas
        .bump(this.key.operatorsVersion(), version)
        .expect(emailKey, null)
        .set(this.key.operator(operator.operatorId), JSON.stringify(operator))
        .set(emailKey, operator.operatorId)
        .zadd(this.key.operatorsAll(), indexMember(operator.createdAt, operator.operatorId));
      if (ssoKey) cas.expect(ssoKey, null).set(ssoKey, operator.operatorId);
      return 'created';
    });
  }

  operatorById(operatorId: string): Promise<OperatorRecord | undefined> {
    return this.read(this.key.operator(operatorId));
  }

  operatorByEmail(email: string): Promise<OperatorRecord | undefined> {
    return this.operatorAt(this.key.operatorByEmail(email));
  }

  operatorBySsoSubject(ssoSubject: string): Promise<OperatorRecord | undefined> {
    return this.operatorAt(this.key.operatorBySso(ssoSubject));
  }

  async listOperators(): Promise<OperatorRecord[]> {
    const ids = (await this.redis.zrange(this.key.operatorsAll(), 0, -1)).map(idOfMember);
    return this.readAll(ids.map(this.key.operator));
  }

  updateOperator(operatorId: string, revision: number, change: OperatorChange): Promise<OperatorUpdateOutcome> {
    const operatorKey = this.key.operator(operatorId);
    return this.transact<OperatorUpdateOutcome>(async (cas) => {
      const [version = null, raw = null] = await this.redis.mget(this.key.operatorsVersion(), operatorKey);
      const before = parse<OperatorRecord>(raw);
      if (!before || before.revision !== revision) return unchanged({ outcome: 'moved' });
      const after = changedOperator(before, change);
      if (leavesNoAdmin(before, after, await this.activeAdmins())) return unchanged({ outcome: 'last-admin' });
      cas.bump(this.key.operatorsVersion(), version).expect(operatorKey, raw).set(operatorKey, JSON.stringify(after));
      if (after.ssoSubject !== before.ssoSubject) {
        if (before.ssoSubject) cas.del(this.key.operatorBySso(before.ssoSubject));
        if (after.ssoSubject) {
          const holder = await this.redis.get(this.key.operatorBySso(after.ssoSubject));
          if (holder !== null && holder !== operatorId) return unchanged({ outcome: 'sso-taken' });
          cas
            .expect(this.key.operatorBySso(after.ssoSubject), holder)
            .set(this.key.operatorBySso(after.ssoSubject), operatorId);
        }
      }
      return { outcome: 'updated', operator: after };
    });
  }

  removeOperator(operatorId: string): Promise<RemoveOperatorOutcome> {
    const operatorKey = this.key.operator(operatorId);
    return this.transact<RemoveOperatorOutcome>(async (cas) => {
      const [version = null, raw = null] = await this.redis.mget(this.key.operatorsVersion(), operatorKey);
      const before = parse<OperatorRecord>(raw);
      if (!before) return unchanged('missing');
      if (leavesNoAdmin(before, undefined, await this.activeAdmins())) return unchanged('last-admin');
      cas
        .bump(this.key.operatorsVersion(), version)
        .expect(operatorKey, raw)
        .del(operatorKey)
        .del(this.key.operatorByEmail(before.email))
        .zrem(this.key.operatorsAll(), indexMember(before.createdAt, operatorId));
      if (before.ssoSubject) cas.del(this.key.operatorBySso(before.ssoSubject));
      // What the account holds goes with it: its credentials, invitations and passkeys, and their lists.
      const lists = [this.key.credentialsOf, this.key.invitationsOf, this.key.passkeysOf].map((list) =>
        list(operatorId),
      );
      const [credentials = [], invitations = [], passkeys = []] = await Promise.all(
        lists.map((list) => this.redis.zrange(list, 0, -1)),
      );
      const credentialKeys = credentials.map((member) => this.key.credential(idOfMember(member)));
      const hashes = credentialKeys.length ? await this.redis.mget(credentialKeys) : [];
      for (const hash of hashes) if (hash) cas.del(this.key.credentialByHash(hash));
      for (const key of [...credentialKeys, ...lists]) cas.del(key);
      for (const hash of invitations) cas.del(this.key.invitation(hash));
      for (const id of passkeys) cas.del(this.key.passkey(id));
      return 'removed';
    });
  }

  async activeAdmins(): Promise<number> {
    return (await this.listOperators()).filter(isActiveAdmin).length;
  }

  async insertCredential(credential: CredentialRecord): Promise<void> {
    const kept = keptUntil(credential.expiresAt + CREDENTIAL_KEPT_MS);
    await new Cas()
      .setExpiring(this.key.credentialByHash(credential.tokenHash), JSON.stringify(credential), kept)
      .setExpiring(this.key.credential(credential.credentialId), credential.tokenHash, kept)
      .zadd(this.key.credentialsOf(credential.operatorId), indexMember(credential.createdAt, credential.credentialId))
      .commit(this.redis);
  }

  async credentialByHash(
    tokenHash: string,
  ): Promise<{ credential: CredentialRecord; operator: OperatorRecord } | undefined> {
    const credential = await this.read<CredentialRecord>(this.key.credentialByHash(tokenHash));
    const operator = credential && (await this.operatorById(credential.operatorId));
    return credential && operator ? { credential, operator } : undefined;
  }

  async credentialById(credentialId: string): Promise<CredentialRecord | undefined> {
    return this.credential(credentialId);
  }

  async credentialsOf(operatorId: string): Promise<CredentialRecord[]> {
    const ids = (await this.redis.zrevrange(this.key.credentialsOf(operatorId), 0, -1)).map(idOfMember);
    const hashes = ids.length ? await this.redis.mget(ids.map(this.key.credential)) : [];
    const live = hashes.filter((hash): hash is string => hash !== null);
    return this.readAll(live.map(this.key.credentialByHash));
  }

  async touchCredential(credentialId: string, lastUsedAt: number, idleExpiresAt: number | null): Promise<void> {
    // Best effort: a use recorded a moment late is harmless, and a revocation that came first wins.
    const cas = new Cas();
    const found = await this.credential(credentialId, cas);
    if (found) await this.rewrite(cas, { ...found, lastUsedAt, idleExpiresAt }).commit(this.redis);
  }

  revokeCredential(credentialId: string, at: number): Promise<CredentialRecord | undefined> {
    return this.transact<CredentialRecord | undefined>(async (cas) => {
      const found = await this.credential(credentialId, cas);
      if (!found || found.revokedAt !== null) return unchanged(undefined);
      this.rewrite(cas, { ...found, revokedAt: at });
      return found;
    });
  }

  async insertInvitation(invitation: InvitationRecord): Promise<void> {
    const kept = keptUntil(invitation.expiresAt);
    const cas = new Cas().setExpiring(this.key.invitation(invitation.tokenHash), JSON.stringify(invitation), kept);
    if (invitation.operatorId) cas.zadd(this.key.invitationsOf(invitation.operatorId), invitation.tokenHash);
    await cas.commit(this.redis);
  }

  async invitationByHash(tokenHash: string, now: number): Promise<InvitationRecord | undefined> {
    return unexpired(await this.read<InvitationRecord>(this.key.invitation(tokenHash)), now);
  }

  async takeInvitation(tokenHash: string, now: number): Promise<InvitationRecord | undefined> {
    return unexpired(parse<InvitationRecord>(await this.redis.getdel(this.key.invitation(tokenHash))), now);
  }

  insertPasskey(passkey: PasskeyRecord): Promise<boolean> {
    return new Cas()
      .expect(this.key.passkey(passkey.credentialId), null)
      .set(this.key.passkey(passkey.credentialId), JSON.stringify(passkey))
      .zadd(this.key.passkeysOf(passkey.operatorId), passkey.credentialId)
      .commit(this.redis);
  }

  passkeyById(credentialId: string): Promise<PasskeyRecord | undefined> {
    return this.read(this.key.passkey(credentialId));
  }

  async passkeysOf(operatorId: string): Promise<PasskeyRecord[]> {
    const ids = await this.redis.zrange(this.key.passkeysOf(operatorId), 0, -1);
    return this.readAll(ids.map(this.key.passkey));
  }

  async usePasskey(credentialId: string, expected: number, counter: number, at: number): Promise<boolean> {
    const passkeyKey = this.key.passkey(credentialId);
    const cas = new Cas();
    const passkey = await this.watch<PasskeyRecord>(cas, passkeyKey);
    if (!passkey || passkey.counter !== expected) return false;
    return cas.set(passkeyKey, JSON.stringify({ ...passkey, counter, lastUsedAt: at })).commit(this.redis);
  }

  async deletePasskey(operatorId: string, credentialId: string): Promise<boolean> {
    const passkeyKey = this.key.passkey(credentialId);
    const cas = new Cas();
    if ((await this.watch<PasskeyRecord>(cas, passkeyKey))?.operatorId !== operatorId) return false;
    return cas.del(passkeyKey).zrem(this.key.passkeysOf(operatorId), credentialId).commit(this.redis);
  }

  async insertDevice(device: DeviceAuthorizationRecord): Promise<boolean> {
    const codeKey = this.key.deviceByUserCode(device.userCode);
    // A code whose authorization has expired is free again, even while Redis still holds its key.
    const holder = await this.redis.get(codeKey);
    const held = holder === null ? undefined : await this.deviceByCodeHash(holder);
    if (held && held.expiresAt > device.createdAt) return false;
    const kept = keptUntil(device.expiresAt + DEVICE_KEPT_MS);
    return new Cas()
      .expect(codeKey, holder)
      .setExpiring(codeKey, device.deviceCodeHash, keptUntil(device.expiresAt))
      .setExpiring(this.key.device(device.deviceCodeHash), JSON.stringify(device), kept)
      .commit(this.redis);
  }

  deviceByCodeHash(deviceCodeHash: string): Promise<DeviceAuthorizationRecord | undefined> {
    return this.read(this.key.device(deviceCodeHash));
  }

  async deviceByUserCode(userCode: string, now: number): Promise<DeviceAuthorizationRecord | undefined> {
    const hash = await this.redis.get(this.key.deviceByUserCode(userCode));
    return unexpired(hash === null ? undefined : await this.deviceByCodeHash(hash), now);
  }

  async updateDevice(
    deviceCodeHash: string,
    revision: number,
    change: DeviceChange,
  ): Promise<DeviceAuthorizationRecord | undefined> {
    const deviceKey = this.key.device(deviceCodeHash);
    const cas = new Cas();
    const device = await this.watch<DeviceAuthorizationRecord>(cas, deviceKey);
    if (!device || device.revision !== revision) return undefined;
    const next = { ...device, ...change, revision: revision + 1 };
    cas.setExpiring(deviceKey, JSON.stringify(next), keptUntil(device.expiresAt + DEVICE_KEPT_MS));
    return (await cas.commit(this.redis)) ? next : undefined;
  }

  private async operatorAt(pointer: string): Promise<OperatorRecord | undefined> {
    const id = await this.redis.get(pointer);
    return id === null ? undefined : this.operatorById(id);
  }

  /** A credential by its id, which the commit of `cas` (if one is to follow) expects as read. */
  private async credential(credentialId: string, cas = new Cas()): Promise<CredentialRecord | undefined> {
    const hash = await this.redis.get(this.key.credential(credentialId));
    return hash === null ? undefined : this.watch<CredentialRecord>(cas, this.key.credentialByHash(hash));
  }

  /** Writes a credential anew (if it is still as read), keeping when Redis forgets it. */
  private rewrite(cas: Cas, next: CredentialRecord): Cas {
    const kept = keptUntil(next.expiresAt + CREDENTIAL_KEPT_MS);
    return cas.setExpiring(this.key.credentialByHash(next.tokenHash), JSON.stringify(next), kept);
  }
}

/** A record that expires, while it has not. */
const unexpired = <T extends { expiresAt: number }>(record: T | undefined, now: number): T | undefined =>
  record && record.expiresAt > now ? record : undefined;
