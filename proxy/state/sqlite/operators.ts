import type Database from 'better-sqlite3';
import {
  changedOperator,
  DEVICE_KEPT_MS,
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
import { withDiskFaults } from './faults.ts';
import { SqliteSigninCeremonies } from './signin-ceremonies.ts';

type Sql = (text: string) => Database.Statement;
type RecordRow = { record: string } | undefined;

const parsed = <T>(row: RecordRow): T | undefined => (row ? (JSON.parse(row.record) as T) : undefined);
const all = <T>(rows: unknown[]): T[] => rows.map((row) => JSON.parse((row as { record: string }).record) as T);

/**
 * Operators in the SQLite file: each record JSON, beside the columns its lookups and unique rules
 * need (tables `operators`, `operator_credentials`, `operator_invitations`, `operator_passkeys`,
 * `device_authorizations`, and the sign-in ceremonies' `signin_ceremonies`). Each method is one
 * transaction.
 */
export class SqliteOperators implements OperatorStore {
  readonly ceremonies: SqliteSigninCeremonies;

  constructor(
    private readonly db: Database.Database,
    private readonly sql: Sql,
  ) {
    this.ceremonies = withDiskFaults(new SqliteSigninCeremonies(sql));
  }

  async createOperator(operator: OperatorRecord): Promise<CreateOperatorOutcome> {
    return this.db
      .transaction((): CreateOperatorOutcome => {
        if (this.sql('SELECT 1 FROM operators WHERE email = ?').get(operator.email)) return 'email-taken';
        if (operator.ssoSubject && this.sql('SELECT 1 FROM operators WHERE sso_subject = ?').get(operator.ssoSubject))
          return 'sso-taken';
        this.sql(
          'INSERT INTO operators (operator_id, email, sso_subject, role, state, created_at, record) VALUES (?, ?, ?, ?, ?, ?, ?)',
        ).run(
          operator.operatorId,
          operator.email,
          operator.ssoSubject,
          operator.role,
          operator.state,
          operator.createdAt,
          JSON.stringify(operator),
        );
        return 'created';
      })
      .immediate();
  }

  async operatorById(operatorId: string): Promise<OperatorRecord | undefined> {
    return this.operator(operatorId);
  }

  async operatorByEmail(email: string): Promise<OperatorRecord | undefined> {
    return parsed(this.sql('SELECT record FROM operators WHERE email = ?').get(email) as RecordRow);
  }

  async operatorBySsoSubject(ssoSubject: string): Promise<OperatorRecord | undefined> {
    return parsed(this.sql('SELECT record FROM operators WHERE sso_subject = ?').get(ssoSubject) as RecordRow);
  }

  async listOperators(): Promise<OperatorRecord[]> {
    return all(this.sql('SELECT record FROM operators ORDER BY created_at, operator_id').all());
  }

  async updateOperator(operatorId: string, revision: number, change: OperatorChange): Promise<OperatorUpdateOutcome> {
    return this.db
      .transaction((): OperatorUpdateOutcome => {
        const before = this.operator(operatorId);
        if (!before || before.revision !== revision) return { outcome: 'moved' };
        const after = changedOperator(before, change);
        if (leavesNoAdmin(before, after, this.admins())) return { outcome: 'last-admin' };
        if (
          after.ssoSubject &&
          this.sql('SELECT 1 FROM operators WHERE sso_subject = ? AND operator_id <> ?').get(
            after.ssoSubject,
            operatorId,
          )
        )
          return { outcome: 'sso-taken' };
        this.sql('UPDATE operators SET sso_subject = ?, role = ?, state = ?, record = ? WHERE operator_id = ?').run(
          after.ssoSubject,
          after.role,
          after.state,
          JSON.stringify(after),
          operatorId,
        );
        return { outcome: 'updated', operator: after };
      })
      .immediate();
  }

  async removeOperator(operatorId: string): Promise<RemoveOperatorOutcome> {
    return this.db
      .transaction((): RemoveOperatorOutcome => {
        const before = this.operator(operatorId);
        if (!before) return 'missing';
        if (leavesNoAdmin(before, undefined, this.admins())) return 'last-admin';
        for (const table of ['operator_credentials', 'operator_invitations', 'operator_passkeys', 'operators'])
          this.sql(`DELETE FROM ${table} WHERE operator_id = ?`).run(operatorId);
        return 'removed';
      })
      .immediate();
  }

  async activeAdmins(): Promise<number> {
    return this.admins();
  }

  async insertCredential(credential: CredentialRecord): Promise<void> {
    this.sql(
      'INSERT INTO operator_credentials (credential_id, token_hash, operator_id, created_at, record) VALUES (?, ?, ?, ?, ?)',
    ).run(
      credential.credentialId,
      credential.tokenHash,
      credential.operatorId,
      credential.createdAt,
      JSON.stringify(credential),
    );
  }

  async credentialByHash(
    tokenHash: string,
  ): Promise<{ credential: CredentialRecord; operator: OperatorRecord } | undefined> {
    const row = this.sql(
      `SELECT c.record AS credential, o.record AS operator FROM operator_credentials c
         JOIN operators o ON o.operator_id = c.operator_id WHERE c.token_hash = ?`,
    ).get(tokenHash) as { credential: string; operator: string } | undefined;
    return (
      row && {
        credential: JSON.parse(row.credential) as CredentialRecord,
        operator: JSON.parse(row.operator) as OperatorRecord,
      }
    );
  }

  async credentialById(credentialId: string): Promise<CredentialRecord | undefined> {
    return this.credential(credentialId);
  }

  async credentialsOf(operatorId: string): Promise<CredentialRecord[]> {
    return all(
      this.sql(
        'SELECT record FROM operator_credentials WHERE operator_id = ? ORDER BY created_at DESC, credential_id DESC',
      ).all(operatorId),
    );
  }

  async touchCredential(credentialId: string, lastUsedAt: number, idleExpiresAt: number | null): Promise<void> {
    this.sql(
      `UPDATE operator_credentials SET record = json_set(record, '$.lastUsedAt', ?, '$.idleExpiresAt', ?)
         WHERE credential_id = ?`,
    ).run(lastUsedAt, idleExpiresAt, credentialId);
  }

  async revokeCredential(credentialId: string, at: number): Promise<CredentialRecord | undefined> {
    return this.db
      .transaction(() => {
        const credential = this.credential(credentialId);
        if (!credential || credential.revokedAt !== null) return undefined;
        this.sql('UPDATE operator_credentials SET record = ? WHERE credential_id = ?').run(
          JSON.stringify({ ...credential, revokedAt: at }),
          credentialId,
        );
        return credential;
      })
      .immediate();
  }

  async insertInvitation(invitation: InvitationRecord): Promise<void> {
    this.sql('DELETE FROM operator_invitations WHERE expires_at < ?').run(invitation.createdAt);
    this.sql('INSERT INTO operator_invitations (token_hash, operator_id, expires_at, record) VALUES (?, ?, ?, ?)').run(
      invitation.tokenHash,
      invitation.operatorId,
      invitation.expiresAt,
      JSON.stringify(invitation),
    );
  }

  async invitationByHash(tokenHash: string, now: number): Promise<InvitationRecord | undefined> {
    return parsed(
      this.sql('SELECT record FROM operator_invitations WHERE token_hash = ? AND expires_at > ?').get(
        tokenHash,
        now,
      ) as RecordRow,
    );
  }

  async takeInvitation(tokenHash: string, now: number): Promise<InvitationRecord | undefined> {
    return parsed(
      this.sql('DELETE FROM operator_invitations WHERE token_hash = ? AND expires_at > ? RETURNING record').get(
        tokenHash,
        now,
      ) as RecordRow,
    );
  }

  async insertPasskey(passkey: PasskeyRecord): Promise<boolean> {
    const result = this.sql(
      'INSERT OR IGNORE INTO operator_passkeys (credential_id, operator_id, counter, record) VALUES (?, ?, ?, ?)',
    ).run(passkey.credentialId, passkey.operatorId, passkey.counter, JSON.stringify(passkey));
    return result.changes === 1;
  }

  async passkeyById(credentialId: string): Promise<PasskeyRecord | undefined> {
    return parsed(
      this.sql('SELECT record FROM operator_passkeys WHERE credential_id = ?').get(credentialId) as RecordRow,
    );
  }

  async passkeysOf(operatorId: string): Promise<PasskeyRecord[]> {
    return all(
      this.sql('SELECT record FROM operator_passkeys WHERE operator_id = ? ORDER BY credential_id').all(operatorId),
    );
  }

  async usePasskey(credentialId: string, expected: number, counter: number, at: number): Promise<boolean> {
    const result = this.sql(
      `UPDATE operator_passkeys SET counter = ?, record = json_set(record, '$.counter', ?, '$.lastUsedAt', ?)
         WHERE credential_id = ? AND counter = ?`,
    ).run(counter, counter, at, credentialId, expected);
    return result.changes === 1;
  }

  async deletePasskey(operatorId: string, credentialId: string): Promise<boolean> {
    return (
      this.sql('DELETE FROM operator_passkeys WHERE credential_id = ? AND operator_id = ?').run(
        credentialId,
        operatorId,
      ).changes === 1
    );
  }

  async insertDevice(device: DeviceAuthorizationRecord): Promise<boolean> {
    return this.db
      .transaction(() => {
        this.sql('DELETE FROM device_authorizations WHERE expires_at < ?').run(device.createdAt - DEVICE_KEPT_MS);
        if (
          this.sql('SELECT 1 FROM device_authorizations WHERE user_code = ? AND expires_at > ?').get(
            device.userCode,
            device.createdAt,
          )
        )
          return false;
        this.sql(
          'INSERT INTO device_authorizations (device_code_hash, user_code, expires_at, record) VALUES (?, ?, ?, ?)',
        ).run(device.deviceCodeHash, device.userCode, device.expiresAt, JSON.stringify(device));
        return true;
      })
      .immediate();
  }

  async deviceByCodeHash(deviceCodeHash: string): Promise<DeviceAuthorizationRecord | undefined> {
    return this.device(deviceCodeHash);
  }

  async deviceByUserCode(userCode: string, now: number): Promise<DeviceAuthorizationRecord | undefined> {
    return parsed(
      this.sql('SELECT record FROM device_authorizations WHERE user_code = ? AND expires_at > ?').get(
        userCode,
        now,
      ) as RecordRow,
    );
  }

  async updateDevice(
    deviceCodeHash: string,
    revision: number,
    change: DeviceChange,
  ): Promise<DeviceAuthorizationRecord | undefined> {
    return this.db
      .transaction(() => {
        const device = this.device(deviceCodeHash);
        if (!device || device.revision !== revision) return undefined;
        const next = { ...device, ...change, revision: revision + 1 };
        this.sql('UPDATE device_authorizations SET record = ? WHERE device_code_hash = ?').run(
          JSON.stringify(next),
          deviceCodeHash,
        );
        return next;
      })
      .immediate();
  }

  private operator(operatorId: string): OperatorRecord | undefined {
    return parsed(this.sql('SELECT record FROM operators WHERE operator_id = ?').get(operatorId) as RecordRow);
  }

  private credential(credentialId: string): CredentialRecord | undefined {
    return parsed(
      this.sql('SELECT record FROM operator_credentials WHERE credential_id = ?').get(credentialId) as RecordRow,
    );
  }

  private device(deviceCodeHash: string): DeviceAuthorizationRecord | undefined {
    return parsed(
      this.sql('SELECT record FROM device_authorizations WHERE device_code_hash = ?').get(deviceCodeHash) as RecordRow,
    );
  }

  private admins(): number {
    return (
      this.sql("SELECT COUNT(*) AS n FROM operators WHERE role = 'admin' AND state = 'active'").get() as { n: number }
    ).n;
  }
}
