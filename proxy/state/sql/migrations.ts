import type { Database, Dialect } from './database.ts';

/**
 * The versions of the schema every database shares, in SQL both SQLite and PostgreSQL read, after
 * each one's own released history (the dialect's `released`: sqlite/schema.ts, postgres/schema.ts), so
 * that a database's version counts its own steps. Entries are never edited once released: a change is
 * a new entry, so every database moves forward the same way.
 */
export const MIGRATIONS: readonly string[] = [
  // Where the merchant's events go: an endpoint that answered 410 Gone again and again is disabled
  // until an operator enables it, across restarts and for every instance. (SQLite's version 8 and
  // PostgreSQL's 3, as the per-database lists released it: databases made then are at this version.)
  `
  CREATE TABLE event_endpoints (
    endpoint_id     TEXT PRIMARY KEY,
    gone_in_a_row   INTEGER NOT NULL DEFAULT 0,
    disabled_at     BIGINT,
    disabled_reason TEXT
  );
  `,
  // Checkouts found by their attempt (abandoning one), as PostgreSQL's first version had them.
  'CREATE INDEX IF NOT EXISTS checkouts_by_attempt ON checkouts (current_attempt) WHERE current_attempt IS NOT NULL',
];

/** Every version of a database's schema, the first at index 0. */
export const schemaOf = (dialect: Dialect): readonly string[] => [...dialect.released, ...MIGRATIONS];

/**
 * Brings the schema to the latest version in one transaction: all of it or none. Instances starting
 * together migrate once (the dialect's lock); a database newer than this Kassa is refused rather
 * than guessed at.
 */
export async function migrate(db: Database): Promise<void> {
  const versions = schemaOf(db.dialect);
  await db.transaction(async (tx) => {
    const current = await db.dialect.schemaVersion(tx);
    if (current > versions.length)
      throw new Error(`the database at version ${current} is newer than this Kassa (${versions.length})`);
    for (let version = current + 1; version <= versions.length; version++) {
      await tx.exec(versions[version - 1]!);
      await db.dialect.setSchemaVersion(tx, version);
    }
  });
}
