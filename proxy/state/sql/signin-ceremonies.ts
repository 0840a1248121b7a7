import type { CeremonyRecord, SigninCeremonies } from '../signin-ceremonies.ts';
import type { Database } from './database.ts';
import { RecordTable, type RecordRow } from './rows.ts';

const CEREMONIES = new RecordTable<CeremonyRecord>('signin_ceremonies', 'keyHash expiresAt');

/** Sign-in ceremonies in the database (table `signin_ceremonies`); expired ones go as new ones come. */
export class SqlSigninCeremonies implements SigninCeremonies {
  constructor(private readonly db: Database) {}

  async put(ceremony: CeremonyRecord): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run('DELETE FROM signin_ceremonies WHERE expires_at <= ?', [Date.now()]);
      await CEREMONIES.insert(tx, ceremony);
    });
  }

  async take(keyHash: string, now: number): Promise<CeremonyRecord | undefined> {
    // One DELETE: of two answers to one ceremony, one takes it.
    const row = await this.db.row<RecordRow & { expiresAt: number }>(
      'DELETE FROM signin_ceremonies WHERE key_hash = ? RETURNING expires_at AS "expiresAt", record',
      [keyHash],
    );
    return row && row.expiresAt > now ? CEREMONIES.read(row) : undefined;
  }
}
