-- name: StorefrontInsertEntryCode :exec
INSERT INTO store_entry_codes (code_hash, game_id, environment, player_id, expires_at)
VALUES (@code_hash, @game_id, @environment, @player_id, @expires_at);

-- name: StorefrontDeleteOldEntryCodes :exec
-- A player's codes past a day are of no use, spent or not.
DELETE FROM store_entry_codes WHERE player_id = @player_id AND created_at < now() - interval '1 day';

-- name: StorefrontTakeEntryCode :one
-- Spends a code that is unused and unexpired at @now: of two requests with one code, only one
-- gets the row back.
UPDATE store_entry_codes SET used_at = @now
WHERE code_hash = @code_hash AND used_at IS NULL AND expires_at > @now
RETURNING game_id, environment, player_id;
