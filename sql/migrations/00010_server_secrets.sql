-- A game's server secret per environment, and the game setting that reserves coin movements for
-- the holders of it: the API key ships inside game clients, so a studio that wants coin grants
-- made only by its own servers turns server_only_coin_movements on and sends the secret from
-- there (x-api-secret).

-- +goose Up
ALTER TABLE games ADD COLUMN server_only_coin_movements boolean NOT NULL DEFAULT false;

-- Only a SHA-256 of each secret is stored; the plaintext is shown once. A game has at most one
-- secret per environment: a new one replaces the old, which stops working at once.
CREATE TABLE server_secrets (
    game_id     uuid        NOT NULL REFERENCES games (id),
    environment text        NOT NULL CHECK (environment IN ('live', 'test')),
    secret_hash bytea       NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, environment)
);

-- +goose Down
DROP TABLE server_secrets;
ALTER TABLE games DROP COLUMN server_only_coin_movements;
