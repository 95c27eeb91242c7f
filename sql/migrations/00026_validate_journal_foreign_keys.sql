-- Validates the journal's keys that migration 00025 added NOT VALID: every entry's coin is its
-- game's, and its player is of its game and environment. In a transaction of its own, so that
-- the journal takes new entries while its rows are checked.

-- +goose Up
ALTER TABLE coin_transactions VALIDATE CONSTRAINT coin_transactions_coin_game_fkey;
ALTER TABLE coin_transactions VALIDATE CONSTRAINT coin_transactions_player_game_fkey;

-- +goose Down
-- A validated key stays valid: nothing to undo.
