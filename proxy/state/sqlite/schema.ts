/**
 * SQLite's schema as released before the one SQL store, one entry per version (`PRAGMA user_version`):
 * files made since version 1 move forward through these, then through the versions every database
 * shares (sql/migrations.ts). Released entries are never edited.
 */
export const SQLITE_RELEASED: readonly string[] = [
  `
  CREATE TABLE checkouts (
    checkout_id     TEXT PRIMARY KEY,
    amount          TEXT NOT NULL,
    currency_code   TEXT NOT NULL,
    reference       TEXT NOT NULL,
    metadata        TEXT,
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    current_attempt TEXT
  );
  CREATE TABLE attempts (
    idempotency_key TEXT PRIMARY KEY,
    fingerprint     TEXT NOT NULL,
    checkout_id     TEXT REFERENCES checkouts (checkout_id),
    status_token    TEXT NOT NULL UNIQUE,
    state           TEXT NOT NULL CHECK (state IN ('pending', 'succeeded')),
    transaction_id  TEXT,
    created_at      INTEGER NOT NULL
  );
  CREATE TABLE payments (
    transaction_id     TEXT PRIMARY KEY,
    status_token       TEXT NOT NULL UNIQUE,
    idempotency_key    TEXT NOT NULL,
    checkout_id        TEXT REFERENCES checkouts (checkout_id),
    amount             TEXT NOT NULL,
    currency_code      TEXT NOT NULL,
    reference          TEXT NOT NULL,
    environment        TEXT NOT NULL,
    flow_url           TEXT NOT NULL,
    status             TEXT NOT NULL,
    network_status     TEXT,
    network_payment_id TEXT,
    payment_rail       TEXT,
    provider_id        TEXT,
    initiated_at       TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    completed_at       TEXT,
    created_at         INTEGER NOT NULL,
    last_checked_at    INTEGER
  );
  CREATE INDEX payments_newest_first ON payments (created_at DESC, transaction_id DESC);
  CREATE INDEX payments_by_status ON payments (status, created_at DESC);
  CREATE TABLE webhook_events (
    dedupe_key     TEXT PRIMARY KEY,
    transaction_id TEXT,
    received_at    INTEGER NOT NULL,
    body           TEXT NOT NULL
  );
  `,
  // The merchant's events: a revision per payment (the events' sequence), checkouts whose expiry has
  // been settled (those expired before this version are settled already: no event for old news), and
  // the outbox with every delivery attempt.
  `
  ALTER TABLE payments ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE checkouts ADD COLUMN expiry_settled INTEGER NOT NULL DEFAULT 0;
  UPDATE checkouts SET expiry_settled = 1 WHERE expires_at <= CAST(strftime('%s', 'now') AS INTEGER) * 1000;
  CREATE INDEX checkouts_expiring ON checkouts (expiry_settled, expires_at);
  CREATE TABLE events (
    event_id        TEXT PRIMARY KEY,
    type            TEXT NOT NULL,
    transaction_id  TEXT,
    checkout_id     TEXT,
    sequence        INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    payload         TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    delivered_at    INTEGER,
    last_error      TEXT
  );
  CREATE INDEX events_due ON events (status, next_attempt_at);
  CREATE INDEX events_newest_first ON events (created_at DESC, event_id DESC);
  CREATE TABLE event_attempts (
    event_id    TEXT NOT NULL REFERENCES events (event_id) ON DELETE CASCADE,
    at          INTEGER NOT NULL,
    duration_ms REAL NOT NULL,
    status_code INTEGER,
    error       TEXT
  );
  CREATE INDEX event_attempts_by_event ON event_attempts (event_id, at);
  `,
  // Idempotency-Keys of checkout creation, the operator's search by checkout and by reference, and
  // reconciliation: queued re-reads, unverifiable payments and their resolutions.
  `
  CREATE INDEX payments_by_checkout ON payments (checkout_id, created_at DESC);
  CREATE INDEX payments_by_reference ON payments (reference, created_at DESC);
  CREATE INDEX webhook_events_by_payment ON webhook_events (transaction_id, received_at DESC);
  CREATE TABLE rereads (
    transaction_id TEXT PRIMARY KEY,
    queued_at      INTEGER NOT NULL
  );
  CREATE INDEX rereads_oldest_first ON rereads (queued_at);
  CREATE TABLE unverifiable (
    transaction_id TEXT PRIMARY KEY,
    reason         TEXT NOT NULL,
    since          INTEGER NOT NULL
  );
  CREATE TABLE resolutions (
    transaction_id  TEXT NOT NULL,
    previous_status TEXT NOT NULL,
    status          TEXT NOT NULL,
    note            TEXT NOT NULL,
    resolved_at     INTEGER NOT NULL
  );
  CREATE INDEX resolutions_by_payment ON resolutions (transaction_id, resolved_at);
  CREATE TABLE checkout_keys (
    idempotency_key TEXT PRIMARY KEY,
    fingerprint     TEXT NOT NULL,
    checkout_id     TEXT NOT NULL,
    created_at      INTEGER NOT NULL
  );
  `,
  // The receipt's reference to quote (the transfer's end-to-end id), and the shop's page behind the
  // proxy's return address.
  `
  ALTER TABLE payments ADD COLUMN end_to_end_id TEXT;
  ALTER TABLE payments ADD COLUMN return_url TEXT;
  `,
  // One row that readiness probes write, so that a full disk or a read-only file shows as not ready.
  `
  CREATE TABLE heartbeat (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    at INTEGER NOT NULL
  );
  `,
  // The on-ramp: quotes, purchases and the operator's actions on them.
  `
  CREATE TABLE onramp_quotes (
    quote_id   TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL,
    record     TEXT NOT NULL
  );
  CREATE TABLE purchases (
    purchase_id     TEXT PRIMARY KEY,
    purchase_token  TEXT NOT NULL UNIQUE,
    quote_id        TEXT NOT NULL UNIQUE,
    idempotency_key TEXT,
    checkout_id     TEXT NOT NULL UNIQUE,
    wallet          TEXT NOT NULL,
    symbol          TEXT NOT NULL,
    tokens_cents    INTEGER NOT NULL,
    state           TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    tx_hash         TEXT UNIQUE,
    lease_holder    TEXT,
    lease_until     INTEGER,
    revision        INTEGER NOT NULL,
    record          TEXT NOT NULL
  );
  CREATE INDEX purchases_by_wallet ON purchases (wallet, symbol, created_at);
  CREATE INDEX purchases_newest_first ON purchases (created_at DESC, purchase_id DESC);
  CREATE INDEX purchases_by_state ON purchases (state, created_at);
  CREATE TABLE purchase_audit (
    purchase_id    TEXT NOT NULL,
    at             INTEGER NOT NULL,
    action         TEXT NOT NULL,
    note           TEXT,
    previous_state TEXT NOT NULL,
    state          TEXT NOT NULL,
    request_id     TEXT
  );
  CREATE INDEX purchase_audit_by_purchase ON purchase_audit (purchase_id, at);
`,
  // The on-ramp's work due (paid purchases, and minting or delayed ones due a look), found first
  // however many purchases await payment; and every order a purchase had, by which its mint is
  // recognised. A purchase kept by the previous version has its current order only: each earlier one
  // was stopped (failed, cancelled or gone) before its retry was allowed, so it cannot mint.
  `
  ALTER TABLE purchases ADD COLUMN due_at INTEGER;
  UPDATE purchases SET due_at = 0 WHERE state IN ('paid', 'minting', 'delayed');
  CREATE INDEX purchases_due ON purchases (due_at) WHERE due_at IS NOT NULL;
  UPDATE purchases SET record = json_set(
    record,
    '$.nextLookAt', json('null'),
    '$.orderIds', CASE WHEN json_extract(record, '$.orderId') IS NULL THEN json('[]')
                  ELSE json_array(json_extract(record, '$.orderId')) END
  );
  `,
];
