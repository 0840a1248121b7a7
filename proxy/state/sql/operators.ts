import { changedOperator, DEVICE_KEPT_MS, leavesNoAdmin } from '../operators.ts';
import type { CreateOperatorOutcome, CredentialRecord, DeviceAuthorizationRecord, DeviceChange } from '../operators.ts';
import type { InvitationRecord, OperatorChange, OperatorRecord, OperatorStore, PasskeyRecord } from '../operators.ts';
import type { OperatorUpdateOutcome, RemoveOperatorOutcome } from '../operators.ts';
import { fromJson, type Database, type Sql } from './database.ts';
import { recordOf, recordsOf, type RecordRow } from './rows.ts';
import { SqlSigninCeremonies } from './signin-ceremonies.ts';

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
      await tx.run(
        'INSERT INTO operators (operator_id, email, sso_subject, role, state, created_at, record) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [
          operator.operatorId,
          operator.email,
          operator.ssoSubject,
          operator.role,
          operator.state,
          operator.createdAt,
          JSON.stringify(operator),
        ],
      );
      return 'created';
    });
  }

  operatorById(operatorId: string): Promise<OperatorRecord | undefined> {
    return operatorOf(this.db, operatorId);
  }

  async operatorByEmail(email: string): Promise<OperatorRecord | undefined> {
    return recordOf(await this.db.row<RecordRow>('SELECT record FROM operators WHERE email = ?', [email]));
  }

  async operatorBySsoSubject(ssoSubject: string): Promise<OperatorRecord | undefined> {
    return recordOf(await this.db.row<RecordRow>('SELECT record FROM operators WHERE sso_subject = ?', [ssoSubject]));
  }

  async listOperators(): Promise<OperatorRecord[]> {
    return recordsOf(await this.db.rows<RecordRow>('SELECT record FROM operators ORDER BY created_at, operator_id'));
  }

  updateOperator(operatorId: string, revision: number, change: OperatorChange): Promise<OperatorUpdateOutcome> {
    return this.accounts(async (tx): Promise<OperatorUpdateOutcome> => {
      const before = await operatorOf(tx, operatorId);
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
      await tx.run('UPDATE operators SET sso_subject = ?, role = ?, state = ?, record = ? WHERE operator_id = ?', [
        after.ssoSubject,
        after.role,
        after.state,
        JSON.stringify(after),
        operatorId,
      ]);
      return { outcome: 'updated', operator: after };
    });
  }

  removeOperator(operatorId: string): Promise<RemoveOperatorOutcome> {
    return this.accounts(async (tx): Promise<RemoveOperatorOutcome> => {
      const before = await operatorOf(tx, operatorId);
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
    await this.db.run(
      'INSERT INTO operator_credentials (credential_id, token_hash, operator_id, created_at, record) VALUES (?, ?, ?, ?, ?)',
      [
        credential.credentialId,
        credential.tokenHash,
        credential.operatorId,
        credential.createdAt,
        JSON.stringify(credential),
      ],
    );
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
    return credentialOf(this.db, credentialId);
  }

  async credentialsOf(operatorId: string): Promise<CredentialRecord[]> {
    return recordsOf(
      await this.db.rows<RecordRow>(
        'SELECT record FROM operator_credentials WHERE operator_id = ? ORDER BY created_at DESC, credential_id DESC',
        [operatorId],
      ),
    );
  }

  async touchCredential(credentialId: string, lastUsedAt: number, idleExpiresAt: number | null): Promise<void> {
    await this.changeCredential(credentialId, () => ({ lastUsedAt, idleExpiresAt }));
  }

  async revokeCredential(credentialId: string, at: number): Promise<CredentialRecord | undefined> {
    let revoked: CredentialRecord | undefined;
    await this.changeCredential(credentialId, (credential) => {
      if (credential.revokedAt !== null) return undefined;
      revoked = credential;
      return { revokedAt: at };
    });
    return revoked;
  }

  async insertInvitation(invitation: InvitationRecord): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run('DELETE FROM operator_invitations WHERE expires_at < ?', [invitation.createdAt]);
      await tx.run(
        'INSERT INTO operator_invitations (token_hash, operator_id, expires_at, record) VALUES (?, ?, ?, ?)',
        [invitation.tokenHash, invitation.operatorId, invitation.expiresAt, JSON.stringify(invitation)],
      );
    });
  }

  async invitationByHash(tokenHash: string, now: number): Promise<InvitationRecord | undefined> {
    return recordOf(
      await this.db.row<RecordRow>('SELECT record FROM operator_invitations WHERE token_hash = ? AND expires_at > ?', [
        tokenHash,
        now,
      ]),
    );
  }

  async takeInvitation(tokenHash: string, now: number): Promise<InvitationRecord | undefined> {
    // One DELETE: of two racing takers, one gets the row.
    return recordOf(
      await this.db.row<RecordRow>(
        'DELETE FROM operator_invitations WHERE token_hash = ? AND expires_at > ? RETURNING record',
        [tokenHash, now],
      ),
    );
  }

  async insertPasskey(passkey: PasskeyRecord): Promise<boolean> {
    const inserted = await this.db.run(
      `INSERT INTO operator_passkeys (credential_id, operator_id, counter, record) VALUES (?, ?, ?, ?)
         ON CONFLICT (credential_id) DO NOTHING`,
      [passkey.credentialId, passkey.operatorId, passkey.counter, JSON.stringify(passkey)],
    );
    return inserted === 1;
  }

  async passkeyById(credentialId: string): Promise<PasskeyRecord | undefined> {
    return recordOf(
      await this.db.row<RecordRow>('SELECT record FROM operator_passkeys WHERE credential_id = ?', [credentialId]),
    );
  }

  async passkeysOf(operatorId: string): Promise<PasskeyRecord[]> {
    return recordsOf(
      await this.db.rows<RecordRow>(
        'SELECT record FROM operator_passkeys WHERE operator_id = ? ORDER BY credential_id',
        [operatorId],
      ),
    );
  }

  usePasskey(credentialId: string, expected: number, counter: number, at: number): Promise<boolean> {
    // Compare-and-set on the counter: of two sign-ins with one assertion, one moves it.
    return this.db.transaction(async (tx) => {
      const passkey = recordOf<PasskeyRecord>(
        await tx.row<RecordRow>(
          `SELECT record FROM operator_passkeys WHERE credential_id = ? AND counter = ?${this.db.dialect.forUpdate}`,
          [credentialId, expected],
        ),
      );
      if (!passkey) return false;
      await tx.run('UPDATE operator_passkeys SET counter = ?, record = ? WHERE credential_id = ?', [
        counter,
        JSON.stringify({ ...passkey, counter, lastUsedAt: at }),
        credentialId,
      ]);
      return true;
    });
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
      await tx.run(
        'INSERT INTO device_authorizations (device_code_hash, user_code, expires_at, record) VALUES (?, ?, ?, ?)',
        [device.deviceCodeHash, device.userCode, device.expiresAt, JSON.stringify(device)],
      );
      return true;
    });
  }

  deviceByCodeHash(deviceCodeHash: string): Promise<DeviceAuthorizationRecord | undefined> {
    return deviceOf(this.db, deviceCodeHash);
  }

  async deviceByUserCode(userCode: string, now: number): Promise<DeviceAuthorizationRecord | undefined> {
    return recordOf(
      await this.db.row<RecordRow>('SELECT record FROM device_authorizations WHERE user_code = ? AND expires_at > ?', [
        userCode,
        now,
      ]),
    );
  }

  updateDevice(
    deviceCodeHash: string,
    revision: number,
    change: DeviceChange,
  ): Promise<DeviceAuthorizationRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const device = await deviceOf(tx, deviceCodeHash, this.db.dialect.forUpdate);
      if (!device || device.revision !== revision) return undefined;
      const next = { ...device, ...change, revision: revision + 1 };
      await tx.run('UPDATE device_authorizations SET record = ? WHERE device_code_hash = ?', [
        JSON.stringify(next),
        deviceCodeHash,
      ]);
      return next;
    });
  }

  /** A change of accounts, one at a time across instances. */
  private accounts<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      await this.db.dialect.lock(tx, 'operators');
      return work(tx);
    });
  }

  /** Writes the fields `change` gives (none: nothing) over the credential as it is, in one transaction. */
  private async changeCredential(
    credentialId: string,
    change: (credential: CredentialRecord) => Partial<CredentialRecord> | undefined,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      const credential = await credentialOf(tx, credentialId, this.db.dialect.forUpdate);
      const fields = credential && change(credential);
      if (fields)
        await tx.run('UPDATE operator_credentials SET record = ? WHERE credential_id = ?', [
          JSON.stringify({ ...credential, ...fields }),
          credentialId,
        ]);
    });
  }
}

const operatorOf = async (sql: Sql, operatorId: string) =>
  recordOf<OperatorRecord>(
    await sql.row<RecordRow>('SELECT record FROM operators WHERE operator_id = ?', [operatorId]),
  );

const credentialOf = async (sql: Sql, credentialId: string, forUpdate = '') =>
  recordOf<CredentialRecord>(
    await sql.row<RecordRow>(`SELECT record FROM operator_credentials WHERE credential_id = ?${forUpdate}`, [
      credentialId,
    ]),
  );

const deviceOf = async (sql: Sql, deviceCodeHash: string, forUpdate = '') =>
  recordOf<DeviceAuthorizationRecord>(
    await sql.row<RecordRow>(`SELECT record FROM device_authorizations WHERE device_code_hash = ?${forUpdate}`, [
      deviceCodeHash,
    ]),
  );

const activeAdmins = async (sql: Sql) => (await sql.row<{ n: number }>(ACTIVE_ADMINS))!.n;
