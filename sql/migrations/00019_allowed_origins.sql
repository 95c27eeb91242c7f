-- The browser origins each game allows per environment (CORS): exact origins such as
-- https://play.example.com, at most 20 each. A preflight carries no key, so it asks whether any
-- game of the environment allows its origin: the GIN indexes answer that.

-- +goose Up
ALTER TABLE games
    ADD COLUMN allowed_origins_live text[] NOT NULL DEFAULT '{}',
    ADD COLUMN allowed_origins_test text[] NOT NULL DEFAULT '{}';
CREATE INDEX games_allowed_origins_live_idx ON games USING gin (allowed_origins_live);
CREATE INDEX games_allowed_origins_test_idx ON games USING gin (allowed_origins_test);

-- +goose Down
DROP INDEX games_allowed_origins_test_idx;
DROP INDEX games_allowed_origins_live_idx;
ALTER TABLE games DROP COLUMN allowed_origins_test, DROP COLUMN allowed_origins_live;
