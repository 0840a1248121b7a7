/**
 * PostgreSQL's schema as released before the one SQL store, one entry per version (rows of
 * `kassa_schema_versions`), then the versions every database shares (sql/migrations.ts). It began
 * with the schema SQLite had reached at its sixth version. Times are
 * epoch milliseconds (BIGINT), amounts decimal strings as the API carries them; identifiers that order
 * lists sort bytewise (COLLATE "C"), as on SQLite and Redis. Released entries are never edited.
 */
export const POSTGRES_RELEASED: readonly string[] = [
  `
  CREATE TABLE checkouts (
    checkout_id     TEXT PRIMARY KEY,
    amount          TEXT NOT NULL,
    currency_code   TEXT NOT NULL,
    reference       TEXT NOT NULL,
    metadata        TEXT,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    current_attempt TEXT,
    expiry_settled  BOOLEAN NOT NULL DEFAULT false
  );
  CREATE INDEX checkouts_expiring ON checkouts (expires_at) WHERE NOT expiry_settled;
  CREATE INDEX checkouts_by_attempt ON checkouts (current_attempt) WHERE current_attempt IS NOT NULL;
  CREATE TABLE checkout_keys (
    idempotency_key TEXT PRIMARY KEY,
    fingerprint     TEXT NOT NULL,
    checkout_id     TEXT NOT NULL,
    created_at      BIGINT NOT NULL
  );
  CREATE TABLE attempts (
    idempotency_key TEXT PRIMARY KEY,
    fingerprint     TEXT NOT NULL,
    checkout_id     TEXT REFERENCES checkouts (checkout_id),
    status_token    TEXT NOT NULL UNIQUE,
    state           TEXT NOT NULL CHECK (state IN ('pending', 'succeeded')),
    transaction_id  TEXT,
    created_at      BIGINT NOT NULL
  );
  CREATE TABLE payments (
    transaction_id     TEXT COLLATE "C" PRIMARY KEY,
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
    end_to_end_id      TEXT,
    return_url         TEXT,
    initiated_at       TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    completed_at       TEXT,
    created_at         BIGINT NOT NULL,
    last_checked_at    BIGINT,
    revision           INTEGER NOT NULL DEFAULT 1
  );
  CREATE INDEX payments_newest_first ON payments (created_at DESC, transaction_id DESC);
  CREATE INDEX payments_by_status ON payments (status, created_at DESC, transaction_id DESC);
  CREATE INDEX payments_pending ON payments (created_at) WHERE status NOT IN ('COMPLETED', 'FAILED');
  CREATE INDEX payments_by_checkout ON payments (checkout_id, created_at DESC);
  CREATE INDEX payments_by_reference ON payments (reference, created_at DESC);
  CREATE TABLE webhook_events (
    dedupe_key     TEXT PRIMARY KEY,
    transaction_id TEXT,
    received_at    BIGINT NOT NULL,
    body           TEXT NOT NULL
  );
  CREATE INDEX webhook_events_by_payment ON webhook_events (transaction_id, received_at DESC);

  CREATE TABLE events (
    event_id        TEXT COLLATE "C" PRIMARY KEY,
    type            TEXT NOT NULL,
    transaction_id  TEXT,
    checkout_id     TEXT,
    sequence        INTEGER NOT NULL,
    created_at      BIGINT NOT NULL,
    payload         TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT,
    delivered_at    BIGINT,
    last_error      TEXT
  );
  CREATE INDEX events_due ON events (next_attempt_at) WHERE status = 'pending';
  CREATE INDEX events_newest_first ON events (created_at DESC, event_id DESC);
  CREATE INDEX events_by_status ON events (status, created_at);
  CREATE TABLE event_attempts (
    attempt_id  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id    TEXT COLLATE "C" NOT NULL REFERENCES events (event_id) ON DELETE CASCADE,
    at          BIGINT NOT NULL,
    duration_ms DOUBLE PRECISION NOT NULL,
    status_code INTEGER,
    error       TEXT
  );
  CREATE INDEX event_attempts_by_event ON event_attempts (event_id, at);

  CREATE TABLE rereads (
    transaction_id TEXT PRIMARY KEY,
    queued_at      BIGINT NOT NULL
  );
  CREATE INDEX rereads_oldest_first ON rereads (queued_at);
  CREATE TABLE unverifiable (
    transaction_id TEXT PRIMARY KEY,
    reason         TEXT NOT NULL,
    since          BIGINT NOT NULL
  );
  CREATE TABLE resolutions (
    resolution_id   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    transaction_id  TEXT NOT NULL,
    previous_status TEXT NOT NULL,
    status          TEXT NOT NULL,
    note            TEXT NOT NULL,
    resolved_at     BIGINT NOT NULL
  );
  CREATE INDEX resolutions_by_payment ON resolutions (transaction_id, resolved_at);

  CREATE TABLE onramp_quotes (
    quote_id   TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL,
    record     JSONB NOT NULL
  );
  CREATE INDEX onramp_quotes_expiring ON onramp_quotes (expires_at);
  CREATE TABLE purchases (
    purchase_id     TEXT COLLATE "C" PRIMARY KEY,
    purchase_token  TEXT NOT NULL UNIQUE,
    quote_id        TEXT NOT NULL UNIQUE,
    idempotency_key TEXT,
    checkout_id     TEXT NOT NULL UNIQUE,
    wallet          TEXT NOT NULL,
    symbol          TEXT NOT NULL,
    tokens_cents    INTEGER NOT NULL,
    state           TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    tx_hash         TEXT UNIQUE,
    lease_holder    TEXT,
    lease_until     BIGINT,
    revision        INTEGER NOT NULL,
    record          JSONB NOT NULL
  );
  CREATE INDEX purchases_by_wallet ON purchases (wallet, symbol, created_at);
  CREATE INDEX purchases_newest_first ON purchases (created_at DESC, purchase_id DESC);
  CREATE INDEX purchases_by_state ON purchases (state, created_at);
  CREATE TABLE purchase_audit (
    audit_id       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    purchase_id    TEXT NOT NULL,
    at             BIGINT NOT NULL,
    action         TEXT NOT NULL,
    note           TEXT,
    previous_state TEXT NOT NULL,
    state          TEXT NOT NULL,
    request_id     TEXT
  );
  CREATE INDEX purchase_audit_by_purchase ON purchase_audit (purchase_id, at);

  -- What the instances of a fleet agree on, counted on the database's clock.
  CREATE FUNCTION kassa_clock_ms() RETURNS BIGINT LANGUAGE sql VOLATILE
    AS $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT $$;
  CREATE TABLE budget_takes (
    budget   TEXT NOT NULL,
    taken_at BIGINT NOT NULL
  );
  CREATE INDEX budget_takes_by_budget ON budget_takes (budget, taken_at);
  CREATE TABLE budget_pauses (
    budget      TEXT PRIMARY KEY,
    paused_until BIGINT NOT NULL
  );
  -- Takes a slot of a per-minute budget, one caller at a time: 0 when taken, otherwise the
  -- milliseconds until one frees (the rule of state/local-coordination.ts's LocalBudget).
  CREATE FUNCTION kassa_budget_take(budget_name TEXT, window_ms BIGINT, budget_limit INTEGER, reserve INTEGER)
    RETURNS BIGINT LANGUAGE plpgsql AS $$
  DECLARE
    now_ms BIGINT;
    paused BIGINT;
    used INTEGER;
    allowed INTEGER := budget_limit - reserve;
    oldest BIGINT;
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('kassa:budget:' || budget_name, 0));
    now_ms := kassa_clock_ms();
    SELECT paused_until INTO paused FROM budget_pauses WHERE budget = budget_name;
    IF paused IS NOT NULL AND now_ms < paused THEN RETURN paused - now_ms; END IF;
    DELETE FROM budget_takes WHERE budget = budget_name AND taken_at <= now_ms - window_ms;
    SELECT count(*) INTO used FROM budget_takes WHERE budget = budget_name;
    IF used < allowed THEN
      INSERT INTO budget_takes (budget, taken_at) VALUES (budget_name, now_ms);
      RETURN 0;
    END IF;
    IF allowed <= 0 THEN RETURN window_ms; END IF;
    SELECT taken_at INTO oldest FROM budget_takes WHERE budget = budget_name
      ORDER BY taken_at OFFSET used - allowed LIMIT 1;
    RETURN greatest(1, oldest + window_ms - now_ms);
  END $$;
  CREATE TABLE access_tokens (
    name       TEXT PRIMARY KEY,
    token      JSONB NOT NULL,
    refresh_at BIGINT NOT NULL
  );
  CREATE TABLE leases (
    name   TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    until  BIGINT NOT NULL
  );
  -- When each payment may next be re-read upstream. Not written to the WAL: after a crash or a
  -- failover it starts empty, which allows one early re-read, no more.
  CREATE UNLOGGED TABLE read_gate (
    transaction_id TEXT PRIMARY KEY,
    until          BIGINT NOT NULL,
    owed           BOOLEAN NOT NULL DEFAULT false -- held by a read a webhook asked for
  );
  CREATE INDEX read_gate_by_until ON read_gate (until);
  -- Written by each readiness probe: a full disk or a read-only database still answers reads.
  CREATE TABLE heartbeat (
    id INTEGER PRIMARY KEY,
    at BIGINT NOT NULL
  );
  `,
  // The on-ramp's work due (paid purchases, and minting or delayed ones due a look), found first
  // however many purchases await payment; and every order a purchase had, by which its mint is
  // recognised. A purchase kept by the previous version has its current order only: each earlier one
  // was stopped (failed, cancelled or gone) before its retry was allowed, so it cannot mint.
  `
  ALTER TABLE purchases ADD COLUMN due_at BIGINT;
  UPDATE purchases SET due_at = 0 WHERE state IN ('paid', 'minting', 'delayed');
  CREATE INDEX purchases_due ON purchases (due_at) WHERE due_at IS NOT NULL;
  UPDATE purchases SET record = record || jsonb_build_object(
    'nextLookAt', NULL,
    'orderIds', CASE WHEN record->>'orderId' IS NULL THEN '[]'::jsonb ELSE jsonb_build_array(record->'orderId') END
  );
  `,
];
