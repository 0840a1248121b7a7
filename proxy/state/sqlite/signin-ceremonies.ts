import type { CeremonyRecord, SigninCeremonies } from '../signin-ceremonies.ts';
import type Database from 'better-sqlite3';

type Sql = (text: string) => Database.Statement;

/** Sign-in ceremonies in the SQLite file (table `signin_ceremonies`); expired ones go as new ones come. */
export class SqliteSigninCeremonies implements SigninCeremonies {
  constructor(private readonly sql: Sql) {}

  async put(ceremony: CeremonyRecord): Promise<void> {
    this.sql('DELETE FROM signin_ceremonies WHERE expires_at <= ?').run(Date.now());
    this.sql('INSERT INTO signin_ceremonies (key_hash, expires_at, record) VALUES (?, ?, ?)').run(
      ceremony.keyHash,
      ceremony.expiresAt,
      JSON.stringify(ceremony),
    );
  }

  async take(keyHash: string, now: number): Promise<CeremonyRecord | undefined> {
    const row = this.sql('DELETE FROM signin_ceremonies WHERE key_hash = ? RETURNING expires_at, record').get(
      keyHash,
    ) as { expires_at: number; record: string } | undefined;
    return row && row.expires_at > now ? (JSON.parse(row.record) as CeremonyRecord) : undefined;
  }
}
