-- Webhook configurations of studios and one delivery record per (coin event, configuration).
-- The delivery jobs themselves live in River's tables (created by River's own migrations).

-- +goose Up
CREATE TABLE webhook_configs (
    id                uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    studio_id         uuid        NOT NULL REFERENCES studios (id),
    environment       text        NOT NULL CHECK (environment IN ('live', 'test')),
    webhook_url       text        NOT NULL,
    subscribed_events text[]      NOT NULL,
    excluded_reasons  text[]      NOT NULL DEFAULT '{}',
    is_active         boolean     NOT NULL DEFAULT true,
    -- The signing secret, AES-GCM encrypted with a key derived from REWARDS_SECRET_KEY.
    secret_sealed     bytea       NOT NULL,
    secret_last4      text        NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (studio_id, environment, webhook_url)
);

CREATE TABLE webhook_deliveries (
    id               uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    event_id         uuid        NOT NULL REFERENCES coin_events (id),
    config_id        uuid        NOT NULL REFERENCES webhook_configs (id) ON DELETE CASCADE,
    studio_id        uuid        NOT NULL,
    environment      text        NOT NULL,
    event_type       text        NOT NULL,
    transaction_id   uuid        NOT NULL,
    event_created_at timestamptz NOT NULL,
    status           text        NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'RETRYING', 'SUCCESS', 'FAILED')),
    attempt_number   int         NOT NULL DEFAULT 0,
    http_status_code int,
    error_message    text,
    attempted_at     timestamptz,
    next_retry_at    timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (event_id, config_id)
);
CREATE INDEX webhook_deliveries_studio_idx ON webhook_deliveries (studio_id, environment, created_at DESC, id DESC);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhook_configs;
