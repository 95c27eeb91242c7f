-- name: PlayersCreateWithUUID :one
-- Creates the player or, when the uuid exists, returns it; created tells which.
WITH ins AS (
    INSERT INTO players (game_id, environment, uuid) VALUES (@game_id, @environment, @uuid)
    ON CONFLICT (game_id, environment, uuid) WHERE uuid IS NOT NULL DO NOTHING
    RETURNING *, true AS created
)
SELECT * FROM ins
UNION ALL
SELECT p.*, false AS created FROM players p
WHERE p.game_id = @game_id AND p.environment = @environment AND p.uuid = @uuid AND NOT EXISTS (SELECT 1 FROM ins);

-- name: PlayersGetOrCreateByPhone :one
WITH ins AS (
    INSERT INTO players (game_id, environment, phone) VALUES (@game_id, @environment, @phone)
    ON CONFLICT (game_id, environment, phone) WHERE phone IS NOT NULL DO NOTHING
    RETURNING *
)
SELECT * FROM ins
UNION ALL
SELECT p.* FROM players p
WHERE p.game_id = @game_id AND p.environment = @environment AND p.phone = @phone AND NOT EXISTS (SELECT 1 FROM ins);

-- name: PlayersGet :one
SELECT * FROM players WHERE id = @id AND game_id = @game_id AND environment = @environment;

-- name: PlayersGetByUUID :one
SELECT * FROM players WHERE game_id = @game_id AND environment = @environment AND uuid = @uuid;

-- name: PlayersGetByPhone :one
SELECT * FROM players WHERE game_id = @game_id AND environment = @environment AND phone = @phone;

-- name: PlayersUpdateProfile :one
UPDATE players
SET name = @name, email = @email, contact_phone = @contact_phone, addresses = @addresses, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: PlayersSetCookieConsent :one
UPDATE players SET cookie_consent_at = coalesce(cookie_consent_at, now()), updated_at = now()
WHERE id = @id RETURNING *;

-- name: PlayersBlock :one
UPDATE players SET is_blocked = true, deleted_at = coalesce(deleted_at, now()), updated_at = now() WHERE id = @id RETURNING *;

-- name: PlayersInsertOTP :exec
INSERT INTO otp_codes (game_id, environment, phone, code_hash, expires_at, created_at)
VALUES (@game_id, @environment, @phone, @code_hash, @expires_at, @created_at);

-- name: PlayersOTPSendStats :one
-- How many codes were sent to the phone since @since, and when the last one was.
SELECT count(*) AS sent,
       coalesce(min(created_at), @since)::timestamptz AS first_sent_at,
       coalesce(max(created_at), @since)::timestamptz AS last_sent_at
FROM otp_codes
WHERE game_id = @game_id AND environment = @environment AND phone = @phone AND created_at >= @since;

-- name: PlayersLockPhone :exec
-- Serialises OTP sends and checks of one phone for the rest of the transaction.
SELECT pg_advisory_xact_lock(hashtextextended(@game_id::text || '/' || @environment::text || '/' || @phone::text, 0));

-- name: PlayersLockOTPScope :exec
-- Serialises OTP sends of a whole game and environment for the rest of the transaction, so that
-- the game-wide hourly cap holds across phones.
SELECT pg_advisory_xact_lock(hashtextextended('otp-sends/' || @game_id::text || '/' || @environment::text, 0));

-- name: PlayersOTPScopeSendStats :one
-- How many codes the game and environment sent after @since, and when the first and last were:
-- a code sent exactly an hour ago has left the hour, so the first one's time plus an hour is
-- exactly when a place frees up.
SELECT count(*) AS sent,
       coalesce(min(created_at), @since)::timestamptz AS first_sent_at,
       coalesce(max(created_at), @since)::timestamptz AS last_sent_at
FROM otp_codes
WHERE game_id = @game_id AND environment = @environment AND created_at > @since;

-- name: PlayersGetOTPFailureRun :one
SELECT failures, locked_until FROM otp_failure_runs
WHERE game_id = @game_id AND environment = @environment AND phone = @phone;

-- name: PlayersSaveOTPFailureRun :exec
INSERT INTO otp_failure_runs (game_id, environment, phone, failures, locked_until)
VALUES (@game_id, @environment, @phone, @failures, @locked_until)
ON CONFLICT (game_id, environment, phone) DO UPDATE
SET failures = EXCLUDED.failures, locked_until = EXCLUDED.locked_until;

-- name: PlayersLatestOTPForUpdate :one
SELECT * FROM otp_codes
WHERE game_id = @game_id AND environment = @environment AND phone = @phone
ORDER BY created_at DESC LIMIT 1
FOR UPDATE;

-- name: PlayersOTPFailed :exec
UPDATE otp_codes SET attempts = attempts + 1 WHERE id = @id;

-- name: PlayersOTPUsed :exec
UPDATE otp_codes SET used_at = now() WHERE id = @id;

-- name: PlayersInsertOTPFailure :exec
INSERT INTO otp_failures (game_id, environment, phone, failed_at) VALUES (@game_id, @environment, @phone, @failed_at);

-- name: PlayersCountOTPFailures :one
SELECT count(*) FROM otp_failures
WHERE game_id = @game_id AND environment = @environment AND phone = @phone AND failed_at >= @since;

-- name: PlayersGetStoreSettings :one
SELECT * FROM store_settings WHERE game_id = @game_id;

-- name: PlayersUpsertStoreSettings :one
INSERT INTO store_settings (game_id, rewards_enabled, gcommerce_enabled, default_landing_page, theme)
VALUES (@game_id, @rewards_enabled, @gcommerce_enabled, @default_landing_page, @theme)
ON CONFLICT (game_id) DO UPDATE
SET rewards_enabled = EXCLUDED.rewards_enabled, gcommerce_enabled = EXCLUDED.gcommerce_enabled,
    default_landing_page = EXCLUDED.default_landing_page, theme = EXCLUDED.theme, updated_at = now()
RETURNING *;

-- name: PlayersSetPicture :one
-- Sets the picture and returns the player with the key it replaces, read under the row's lock
-- so that of two concurrent uploads each learns the key the other did not.
UPDATE players p SET picture_key = @picture_key, updated_at = now()
FROM (SELECT q.id, q.picture_key FROM players q WHERE q.id = @id FOR UPDATE) old
WHERE p.id = old.id
RETURNING p.*, old.picture_key AS previous_picture_key;
