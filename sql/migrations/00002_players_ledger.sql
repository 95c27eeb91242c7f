-- Players, OTP login, the coin ledger with its journal and coin events, idempotency keys,
-- and per-game store settings.

-- +goose Up
CREATE TABLE players (
    id                  uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    game_id             uuid        NOT NULL REFERENCES games (id),
    environment         text        NOT NULL CHECK (environment IN ('live', 'test')),
    uuid                text        CHECK (length(uuid) BETWEEN 1 AND 128),
    phone               text,
    name                text        NOT NULL DEFAULT '',
    email               text        NOT NULL DEFAULT '',
    contact_phone       text        NOT NULL DEFAULT '',
    addresses           jsonb       NOT NULL DEFAULT '[]',
    picture_key         text        NOT NULL DEFAULT '',
    is_blocked          boolean     NOT NULL DEFAULT false,
    cookie_consent_at   timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX players_uuid_idx ON players (game_id, environment, uuid) WHERE uuid IS NOT NULL;
CREATE UNIQUE INDEX players_phone_idx ON players (game_id, environment, phone) WHERE phone IS NOT NULL;

-- One row per code sent. Only an HMAC of the code is kept.
CREATE TABLE otp_codes (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    game_id     uuid        NOT NULL REFERENCES games (id),
    environment text        NOT NULL,
    phone       text        NOT NULL,
    code_hash   bytea       NOT NULL,
    attempts    int         NOT NULL DEFAULT 0,
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX otp_codes_phone_idx ON otp_codes (game_id, environment, phone, created_at DESC);

-- One row per failed check, for the per-phone hourly limit.
CREATE TABLE otp_failures (
    game_id     uuid        NOT NULL,
    environment text        NOT NULL,
    phone       text        NOT NULL,
    failed_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX otp_failures_phone_idx ON otp_failures (game_id, environment, phone, failed_at);

CREATE TABLE balances (
    player_id       uuid        NOT NULL REFERENCES players (id),
    coin_id         uuid        NOT NULL REFERENCES coins (id),
    balance         bigint      NOT NULL DEFAULT 0 CHECK (balance >= 0),
    lifetime_earned bigint      NOT NULL DEFAULT 0 CHECK (lifetime_earned >= 0),
    lifetime_spent  bigint      NOT NULL DEFAULT 0 CHECK (lifetime_spent >= 0),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (player_id, coin_id),
    CHECK (balance = lifetime_earned - lifetime_spent)
);

-- The journal: one entry per balance change, never updated or deleted.
CREATE TABLE coin_transactions (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    game_id       uuid        NOT NULL REFERENCES games (id),
    environment   text        NOT NULL,
    player_id     uuid        NOT NULL REFERENCES players (id),
    coin_id       uuid        NOT NULL REFERENCES coins (id),
    type          text        NOT NULL CHECK (type IN ('CREDIT', 'DEBIT')),
    amount        bigint      NOT NULL CHECK (amount > 0),
    balance_after bigint      NOT NULL CHECK (balance_after >= 0),
    reason        text        NOT NULL,
    reference_id  text        NOT NULL DEFAULT '',
    description   text        NOT NULL DEFAULT '',
    metadata      jsonb,
    money_value   numeric(18, 2) NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX coin_transactions_player_idx ON coin_transactions (player_id, created_at DESC, id DESC);
CREATE INDEX coin_transactions_player_coin_idx ON coin_transactions (player_id, coin_id, created_at DESC, id DESC);

-- +goose StatementBegin
CREATE FUNCTION reject_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER coin_transactions_append_only BEFORE UPDATE OR DELETE ON coin_transactions
    FOR EACH ROW EXECUTE FUNCTION reject_change();

-- A coin event per balance change, written in the same transaction; webhooks deliver them.
CREATE TABLE coin_events (
    id             uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    game_id        uuid        NOT NULL REFERENCES games (id),
    environment    text        NOT NULL,
    transaction_id uuid        NOT NULL REFERENCES coin_transactions (id),
    event_type     text        NOT NULL CHECK (event_type IN ('COINS_CREDITED', 'COINS_DEBITED', 'COINS_REFUNDED')),
    reason         text        NOT NULL,
    player_id      uuid        NOT NULL REFERENCES players (id),
    user_uuid      text        NOT NULL,
    coin_id        uuid        NOT NULL REFERENCES coins (id),
    delta          bigint      NOT NULL,
    new_balance    bigint      NOT NULL,
    reference_id   text        NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX coin_events_game_idx ON coin_events (game_id, environment, created_at);

-- Idempotency keys: the request's hash, and once finished its outcome, kept at least 24 hours.
CREATE TABLE idempotency_keys (
    game_id      uuid        NOT NULL,
    environment  text        NOT NULL,
    scope        text        NOT NULL,
    key          text        NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    request_hash bytea       NOT NULL,
    state        text        NOT NULL CHECK (state IN ('running', 'done')),
    result       jsonb,
    error_code   text        NOT NULL DEFAULT '',
    locked_at    timestamptz NOT NULL DEFAULT now(),
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, environment, scope, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

CREATE TABLE store_settings (
    game_id              uuid    PRIMARY KEY REFERENCES games (id),
    rewards_enabled      boolean NOT NULL DEFAULT true,
    gcommerce_enabled    boolean NOT NULL DEFAULT false,
    default_landing_page text    NOT NULL DEFAULT 'rewards',
    theme                jsonb   NOT NULL DEFAULT '{}',
    updated_at           timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE store_settings;
DROP TABLE idempotency_keys;
DROP TABLE coin_events;
DROP TABLE coin_transactions;
DROP FUNCTION reject_change();
DROP TABLE balances;
DROP TABLE otp_failures;
DROP TABLE otp_codes;
DROP TABLE players;
