-- The studio console: the last characters of each API key, kept beside its hash, so that a
-- game's page can show its key masked (rk_live_…a1b2); and an index for a game's orders, newest
-- first, filtered by status or time (a player's orders have orders_player_idx).
--
-- A key issued before this migration has no hint: it shows as rk_live_… until it is rotated.
-- The index is not CONCURRENTLY, for the reason 00013 gives; IF NOT EXISTS lets an operator
-- create it CONCURRENTLY beforehand on a large database.

-- A player who deleted its account is blocked and marked deleted_at, so that a studio's unblock
-- (which only lifts its own block) cannot bring the account back.

-- +goose Up
ALTER TABLE players ADD COLUMN deleted_at timestamptz;

ALTER TABLE api_keys ADD COLUMN hint text NOT NULL DEFAULT '' CHECK (length(hint) <= 4);

CREATE INDEX IF NOT EXISTS orders_game_idx ON orders (game_id, environment, created_at DESC, id DESC);

-- +goose Down
DROP INDEX IF EXISTS orders_game_idx;
ALTER TABLE api_keys DROP COLUMN hint;
ALTER TABLE players DROP COLUMN deleted_at;
