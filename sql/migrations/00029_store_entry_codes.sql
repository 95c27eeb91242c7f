-- The one-time entry codes of the player's store (core/storefront): POST /player/store-session
-- makes one, the web view's first request spends it. Only a SHA-256 of the code is kept, so a
-- copy of the table opens no store; the row is in PostgreSQL so that a code made on one instance
-- opens the store on any other. Codes live a minute; rows older than a day are deleted when the
-- same player asks for a new one.

-- +goose Up
CREATE TABLE store_entry_codes (
    code_hash   bytea       PRIMARY KEY CHECK (length(code_hash) = 32),
    game_id     uuid        NOT NULL REFERENCES games (id),
    environment text        NOT NULL CHECK (environment IN ('live', 'test')),
    player_id   uuid        NOT NULL REFERENCES players (id),
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX store_entry_codes_player ON store_entry_codes (player_id, created_at);

-- +goose Down
DROP TABLE store_entry_codes;
