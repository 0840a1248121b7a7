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
  // Operators as people (issue 37): accounts, their credentials (hashes only), invitations, passkeys
  // and device sign-ins. Each record is JSON beside the columns its lookups and unique rules need.
  `
  CREATE TABLE operators (
    operator_id TEXT PRIMARY KEY,
    email       TEXT NOT NULL UNIQUE,
    sso_subject TEXT UNIQUE,
    role        TEXT NOT NULL,
    state       TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    record      TEXT NOT NULL
  );
  CREATE TABLE operator_credentials (
    credential_id TEXT PRIMARY KEY,
    token_hash    TEXT NOT NULL UNIQUE,
    operator_id   TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    record        TEXT NOT NULL
  );
  CREATE INDEX operator_credentials_by_operator ON operator_credentials (operator_id, created_at DESC);
  CREATE TABLE operator_invitations (
    token_hash  TEXT PRIMARY KEY,
    operator_id TEXT,
    expires_at  BIGINT NOT NULL,
    record      TEXT NOT NULL
  );
  CREATE INDEX operator_invitations_by_operator ON operator_invitations (operator_id);
  CREATE TABLE operator_passkeys (
    credential_id TEXT PRIMARY KEY,
    operator_id   TEXT NOT NULL,
    counter       BIGINT NOT NULL,
    record        TEXT NOT NULL
  );
  CREATE INDEX operator_passkeys_by_operator ON operator_passkeys (operator_id);
  CREATE TABLE device_authorizations (
    device_code_hash TEXT PRIMARY KEY,
    user_code        TEXT NOT NULL,
    expires_at       BIGINT NOT NULL,
    record           TEXT NOT NULL
  );
  CREATE INDEX device_authorizations_by_user_code ON device_authorizations (user_code, expires_at);
  `,
  // Dual control's approval requests, and the hash-chained audit trail with its head kept apart (so
  // that a removed last record shows too).
  `
  CREATE TABLE approvals (
    approval_id  TEXT PRIMARY KEY,
    state        TEXT NOT NULL,
    requested_at BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    record       TEXT NOT NULL
  );
  CREATE INDEX approvals_newest_first ON approvals (requested_at DESC, approval_id DESC);
  CREATE INDEX approvals_by_state ON approvals (state, expires_at);
  CREATE TABLE audit_log (
    seq         BIGINT PRIMARY KEY,
    at          BIGINT NOT NULL,
    operator_id TEXT,
    action      TEXT NOT NULL,
    target_id   TEXT,
    record      TEXT NOT NULL
  );
  CREATE TABLE audit_head (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    seq  BIGINT NOT NULL,
    hash TEXT NOT NULL
  );
  `,
  // Passkey and SSO sign-ins under way, taken once by whichever instance the answer reaches.
  `
  CREATE TABLE signin_ceremonies (
    key_hash   TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL,
    record     TEXT NOT NULL
  );
  `,
  // Event destinations (issue 39): the endpoints' table holds the ones added through the API too (a
  // url; KASSA_EVENTS_URL's row has none), and each destination's queue of deliveries, fanned out
  // from the event in the transaction that writes it and removed with the destination (a removal
  // waits for the events being written to it: sql/destinations.ts's destinationsTaking).
  `
  ALTER TABLE event_endpoints ADD COLUMN url TEXT;
  ALTER TABLE event_endpoints ADD COLUMN description TEXT NOT NULL DEFAULT '';
  ALTER TABLE event_endpoints ADD COLUMN enabled_events TEXT NOT NULL DEFAULT '["*"]';
  ALTER TABLE event_endpoints ADD COLUMN secrets TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE event_endpoints ADD COLUMN created_at BIGINT NOT NULL DEFAULT 0;
  ALTER TABLE event_endpoints ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
  ALTER TABLE event_endpoints ADD COLUMN lease_holder TEXT;
  CREATE TABLE event_deliveries (
    destination_id   TEXT NOT NULL REFERENCES event_endpoints (endpoint_id) ON DELETE CASCADE,
    event_id         TEXT NOT NULL,
    created_at       BIGINT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'skipped')),
    attempts         BIGINT NOT NULL DEFAULT 0,
    next_attempt_at  BIGINT,
    delivered_at     BIGINT,
    last_attempt_at  BIGINT,
    last_status_code BIGINT,
    last_duration_ms DOUBLE PRECISION,
    last_error       TEXT,
    PRIMARY KEY (destination_id, event_id)
  );
  CREATE INDEX event_deliveries_queue ON event_deliveries (destination_id, status, created_at, event_id);
  CREATE INDEX event_deliveries_newest_first ON event_deliveries (destination_id, created_at DESC, event_id DESC);
  CREATE INDEX event_deliveries_by_event ON event_deliveries (event_id, status);
  `,
  // The merchant's API keys (issue 39): hashes only, each record JSON beside its lookups' columns.
  `
  CREATE TABLE merchant_keys (
    key_id     TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    record     TEXT NOT NULL
  );
  `,
  // Payment links (issue 38): each link's record (its counters with it) and its uses, one per checkout
  // made for it; a use is held until its checkout is paid or can no longer be.
  `
  CREATE TABLE links (
    code       TEXT PRIMARY KEY,
    created_at BIGINT NOT NULL,
    record     TEXT NOT NULL
  );
  CREATE INDEX links_newest_first ON links (created_at DESC, code DESC);
  CREATE TABLE link_uses (
    checkout_id TEXT PRIMARY KEY,
    code        TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('held', 'paid', 'released')),
    created_at  BIGINT NOT NULL,
    record      TEXT NOT NULL
  );
  CREATE INDEX link_uses_by_link ON link_uses (code, created_at DESC, checkout_id DESC);
  CREATE INDEX link_uses_held ON link_uses (state, created_at, checkout_id);
  `,
  // Counter payments (issue 38): a link's kind, so that the operators' list can show one kind.
  `
  ALTER TABLE links ADD COLUMN kind TEXT NOT NULL DEFAULT 'link';
  CREATE INDEX links_of_kind ON links (kind, created_at DESC, code DESC);
  `,
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
