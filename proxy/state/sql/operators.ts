import { changedOperator, DEVICE_KEPT_MS, leavesNoAdmin } from '../operators.ts';
import type { CreateOperatorOutcome, CredentialRecord, DeviceAuthorizationRecord, DeviceChange } from '../operators.ts';
import type { InvitationRecord, OperatorChange, OperatorRecord, OperatorStore, PasskeyRecord } from '../operators.ts';
import type { OperatorUpdateOutcome, RemoveOperatorOutcome } from '../operators.ts';
import { fromJson, type Database, type Sql } from './database.ts';
import { atRevision, RecordTable } from './rows.ts';
import { SqlSigninCeremonies } from './signin-ceremonies.ts';

const OPERATORS = new RecordTable<OperatorRecord>('operators', 'operatorId email ssoSubject role state createdAt');
const CREDENTIALS = new RecordTable<CredentialRecord>(
  'operator_credentials',
  'credentialId tokenHash operatorId createdAt',
);
const INVITATIONS = new RecordTable<InvitationRecord>('operator_invitations', 'tokenHash operatorId expiresAt');
const PASSKEYS = new RecordTable<PasskeyRecord>('operator_passkeys', 'credentialId operatorId counter');
const DEVICES = new RecordTable<DeviceAuthorizationRecord>(
  'device_authorizations',
  'deviceCodeHash userCode expiresAt',
);
/** The tables an operator's own rows are in, removed with the account. */
const OWN_TABLES = ['operator_credentials', 'operator_invitations', 'operator_passkeys', 'operators'];
const ACTIVE_ADMINS = "SELECT count(*) AS n FROM operators WHERE role = 'admin' AND state = 'active'";

/**
 * Operators in the database: each record JSON, beside the columns its lookups and unique rules need
 * (tables `operators`, `operator_credentials`, `operator_invitations`, `operator_passkeys`,
 * `device_authorizations`). Changes to accounts take one advisory lock (the dialect's; SQLite's
 * transactions are serial already), so that the last-admin rule and the unique e-mail are decided on
 * every account as it is, whichever instance changes them; a record changed in place is read
 * `FOR UPDATE` in the transaction that writes it.
 */
export class SqlOperators implements OperatorStore {
  readonly ceremonies: SqlSigninCeremonies;

  constructor(private readonly db: Database) {
    this.ceremonies = new SqlSigninCeremonies(db);
  }

  createOperator(operator: OperatorRecord): Promise<CreateOperatorOutcome> {
    return this.accounts(async (tx): Promise<CreateOperatorOutcome> => {
      if (await tx.row('SELECT 1 FROM operators WHERE email = ?', [operator.email])) return 'email-taken';
      if (operator.ssoSubject && (await tx.row('SELECT 1 FROM operators WHERE sso_subject = ?', [operator.ssoSubject])))
        return 'sso-taken';
      await OPERATORS.insert(tx, operator);
      return 'created';
    });
  }

  operatorById(operatorId: string): Promise<OperatorRecord | undefined> {
    return OPERATORS.get(this.db, operatorId);
  }

  operatorByEmail(email: string): Promise<OperatorRecord | undefined> {
    return OPERATORS.one(this.db, 'email = ?', [email]);
  }

  operatorBySsoSubject(ssoSubject: string): Promise<OperatorRecord | undefined> {
    return OPERATORS.one(this.db, 'sso_subject = ?', [ssoSubject]);
  }

  listOperators(): Promise<OperatorRecord[]> {
    return OPERATORS.all(this.db, 'ORDER BY created_at, operator_id');
  }

  updateOperator(operatorId: string, revision: number, change: OperatorChange): Promise<OperatorUpdateOutcome> {
    return this.accounts(async (tx): Promise<OperatorUpdateOutcome> => {
      const before = await OPERATORS.get(tx, operatorId);
      if (!before || before.revision !== revision) return { outcome: 'moved' };
      const after = changedOperator(before, change);
      if (leavesNoAdmin(before, after, await activeAdmins(tx))) return { outcome: 'last-admin' };
      if (
        after.ssoSubject &&
        (await tx.row('SELECT 1 FROM operators WHERE sso_subject = ? AND operator_id <> ?', [
          after.ssoSubject,
          operatorId,
        ]))
      )
        return { outcome: 'sso-taken' };
      await OPERATORS.save(tx, after);
      return { outcome: 'updated', operator: after };
    });
  }

  removeOperator(operatorId: string): Promise<RemoveOperatorOutcome> {
    return this.accounts(async (tx): Promise<RemoveOperatorOutcome> => {
      const before = await OPERATORS.get(tx, operatorId);
      if (!before) return 'missing';
      if (leavesNoAdmin(before, undefined, await activeAdmins(tx))) return 'last-admin';
      for (const table of OWN_TABLES) await tx.run(`DELETE FROM ${table} WHERE operator_id = ?`, [operatorId]);
      return 'removed';
    });
  }

  activeAdmins(): Promise<number> {
    return activeAdmins(this.db);
  }

  async insertCredential(credential: CredentialRecord): Promise<void> {
    await CREDENTIALS.insert(this.db, credential);
  }

  async credentialByHash(
    tokenHash: string,
  ): Promise<{ credential: CredentialRecord; operator: OperatorRecord } | undefined> {
    const row = await this.db.row<{ credential: string; operator: string }>(
      `SELECT c.record AS credential, o.record AS operator FROM operator_credentials c
         JOIN operators o ON o.operator_id = c.operator_id WHERE c.token_hash = ?`,
      [tokenHash],
    );
    return row && { credential: fromJson(row.credential), operator: fromJson(row.operator) };
  }

  credentialById(credentialId: string): Promise<CredentialRecord | undefined> {
    return CREDENTIALS.get(this.db, credentialId);
  }

  credentialsOf(operatorId: string): Promise<CredentialRecord[]> {
    return CREDENTIALS.all(this.db, 'WHERE operator_id = ? ORDER BY created_at DESC, credential_id DESC', [operatorId]);
  }

  async touchCredential(credentialId: string, lastUsedAt: number, idleExpiresAt: number | null): Promise<void> {
    await CREDENTIALS.change(this.db, credentialId, (credential) => ({ ...credential, lastUsedAt, idleExpiresAt }));
  }

  async revokeCredential(credentialId: string, at: number): Promise<CredentialRecord | undefined> {
    const [live, revoked] = await CREDENTIALS.change(this.db, credentialId, (credential) =>
      credential.revokedAt === null ? { ...credential, revokedAt: at } : undefined,
    );
    return revoked && live;
  }

  async insertInvitation(invitation: InvitationRecord): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run('DELETE FROM operator_invitations WHERE expires_at < ?', [invitation.createdAt]);
      await INVITATIONS.insert(tx, invitation);
    });
  }

  invitationByHash(tokenHash: string, now: number): Promise<InvitationRecord | undefined> {
    return INVITATIONS.one(this.db, 'token_hash = ? AND expires_at > ?', [tokenHash, now]);
  }

  async takeInvitation(tokenHash: string, now: number): Promise<InvitationRecord | undefined> {
    // One DELETE: of two racing takers, one gets the row.
    const row = await this.db.row<{ record: string }>(
      'DELETE FROM operator_invitations WHERE token_hash = ? AND expires_at > ? RETURNING record',
      [tokenHash, now],
    );
    return row && INVITATIONS.read(row);
  }

  async insertPasskey(passkey: PasskeyRecord): Promise<boolean> {
    return (await PASSKEYS.insert(this.db, passkey, {}, ' ON CONFLICT (credential_id) DO NOTHING')) === 1;
  }

  passkeyById(credentialId: string): Promise<PasskeyRecord | undefined> {
    return PASSKEYS.get(this.db, credentialId);
  }

  passkeysOf(operatorId: string): Promise<PasskeyRecord[]> {
    return PASSKEYS.all(this.db, 'WHERE operator_id = ? ORDER BY credential_id', [operatorId]);
  }

  async usePasskey(credentialId: string, expected: number, counter: number, at: number): Promise<boolean> {
    // Compare-and-set on the counter: of two sign-ins with one assertion, one moves it.
    const [, used] = await PASSKEYS.change(this.db, credentialId, (passkey) =>
      passkey.counter === expected ? { ...passkey, counter, lastUsedAt: at } : undefined,
    );
    return used !== undefined;
  }

  async deletePasskey(operatorId: string, credentialId: string): Promise<boolean> {
    const deleted = await this.db.run('DELETE FROM operator_passkeys WHERE credential_id = ? AND operator_id = ?', [
      credentialId,
      operatorId,
    ]);
    return deleted === 1;
  }

  insertDevice(device: DeviceAuthorizationRecord): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      // A user code names one device sign-in while it lasts: two racing for one code wait on its lock.
      await this.db.dialect.lock(tx, `device:${device.userCode}`);
      await tx.run('DELETE FROM device_authorizations WHERE expires_at < ?', [device.createdAt - DEVICE_KEPT_MS]);
      if (
        await tx.row('SELECT 1 FROM device_authorizations WHERE user_code = ? AND expires_at > ?', [
          device.userCode,
          device.createdAt,
        ])
      )
        return false;
      await DEVICES.insert(tx, device);
      return true;
    });
  }

  deviceByCodeHash(deviceCodeHash: string): Promise<DeviceAuthorizationRecord | undefined> {
    return DEVICES.get(this.db, deviceCodeHash);
  }

  deviceByUserCode(userCode: string, now: number): Promise<DeviceAuthorizationRecord | undefined> {
    return DEVICES.one(this.db, 'user_code = ? AND expires_at > ?', [userCode, now]);
  }

  async updateDevice(
    deviceCodeHash: string,
    revision: number,
    change: DeviceChange,
  ): Promise<DeviceAuthorizationRecord | undefined> {
    return (await DEVICES.change(this.db, deviceCodeHash, atRevision(revision, change)))[1];
  }

  /** A change of accounts, one at a time across instances. */
  private accounts<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      await this.db.dialect.lock(tx, 'operators');
      return work(tx);
    });
  }
}

const activeAdmins = async (sql: Sql) => (await sql.row<{ n: number }>(ACTIVE_ADMINS))!.n;
