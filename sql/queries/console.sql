-- name: ConsoleCredentials :many
-- The game's current API key per environment with its hint, and when its server and partner
-- secrets were issued.
SELECT k.environment, k.hint, k.created_at AS key_issued_at,
    ss.created_at AS server_secret_issued_at, ps.created_at AS partner_secret_issued_at
FROM api_keys k
LEFT JOIN server_secrets ss ON ss.game_id = k.game_id AND ss.environment = k.environment
LEFT JOIN partner_secrets ps ON ps.game_id = k.game_id AND ps.environment = k.environment
WHERE k.game_id = @game_id AND k.revoked_at IS NULL
ORDER BY k.environment;


-- name: ConsoleTouchpointCoin :one
SELECT coin_id FROM touchpoint_game_coins WHERE game_id = @game_id;

-- name: ConsoleSetPlayerBlocked :one
UPDATE players SET is_blocked = @blocked, updated_at = now()
WHERE id = @id AND game_id = @game_id AND environment = @environment AND deleted_at IS NULL
RETURNING *;

-- name: ConsoleOrders :many
-- A page of a game's orders of one environment, newest first; every filter is optional.
SELECT * FROM orders
WHERE game_id = @game_id AND environment = @environment
    AND (sqlc.narg(status)::text IS NULL OR status = sqlc.narg(status))
    AND (sqlc.narg(player_id)::uuid IS NULL OR player_id = sqlc.narg(player_id))
    AND (sqlc.narg(from_at)::timestamptz IS NULL OR created_at >= sqlc.narg(from_at))
    AND (sqlc.narg(to_at)::timestamptz IS NULL OR created_at < sqlc.narg(to_at))
    AND (sqlc.narg(after_at)::timestamptz IS NULL
        OR (created_at, id) < (sqlc.narg(after_at)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @lim;

-- name: ConsoleDeletePlacement :execrows
DELETE FROM touchpoint_placements WHERE game_id = @game_id AND environment = @environment AND id = @id;
