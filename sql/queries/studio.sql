-- name: StudioCreate :one
INSERT INTO studios (name) VALUES ($1) RETURNING *;

-- name: StudioList :many
SELECT * FROM studios ORDER BY created_at, id;

-- name: StudioGet :one
SELECT * FROM studios WHERE id = $1;

-- name: StudioCreateGame :one
INSERT INTO games (studio_id, name, store_url) VALUES ($1, $2, $3) RETURNING *;

-- name: StudioGetGame :one
SELECT * FROM games WHERE id = $1;

-- name: StudioLockGame :one
SELECT * FROM games WHERE id = $1 FOR UPDATE;

-- name: StudioListGames :many
SELECT * FROM games WHERE studio_id = $1 ORDER BY created_at, id;

-- name: StudioInsertAPIKey :exec
INSERT INTO api_keys (game_id, environment, key_hash, hint) VALUES ($1, $2, $3, $4);

-- name: StudioRevokeAPIKeys :exec
UPDATE api_keys SET revoked_at = now()
WHERE game_id = $1 AND environment = $2 AND revoked_at IS NULL;

-- name: StudioFindAPIKey :one
SELECT k.environment, k.revoked_at, g.id AS game_id, g.studio_id, g.name AS game_name, g.server_only_coin_movements,
       CASE WHEN k.environment = 'live' THEN g.allowed_origins_live ELSE g.allowed_origins_test END::text[] AS allowed_origins
FROM api_keys k JOIN games g ON g.id = k.game_id
WHERE k.key_hash = $1;

-- name: StudioSetPurchaseBudget :one
-- Sets the budget of the environments asked (set_live, set_test); NULL is unlimited. It first
-- waits for the game's purchases under way (the lock they hold shared: OrdersLockPlayerReward),
-- so that those that found no budget have committed what they added to the day's total before
-- any purchase can read the new budget (OrdersSpendBudgetInTx).
WITH gate AS (
    SELECT pg_advisory_xact_lock(hashtextextended('purchase_budget/' || (sqlc.arg(id)::uuid)::text, 0)) AS locked
)
UPDATE games SET
    purchase_budget_live = CASE WHEN @set_live::boolean THEN sqlc.narg(live)::bigint ELSE purchase_budget_live END,
    purchase_budget_test = CASE WHEN @set_test::boolean THEN sqlc.narg(test)::bigint ELSE purchase_budget_test END
WHERE id = @id AND EXISTS (SELECT 1 FROM gate) RETURNING *;

-- name: StudioSetStoreURL :one
UPDATE games SET store_url = @store_url WHERE id = @id RETURNING *;

-- name: StudioSetServerOnlyCoinMovements :one
UPDATE games SET server_only_coin_movements = @server_only_coin_movements WHERE id = @id RETURNING *;

-- name: StudioPutServerSecret :exec
-- Stores the game's secret of the environment, replacing the one it had.
INSERT INTO server_secrets (game_id, environment, secret_hash) VALUES (@game_id, @environment, @secret_hash)
ON CONFLICT (game_id, environment) DO UPDATE SET secret_hash = EXCLUDED.secret_hash, created_at = now();

-- name: StudioFindServerSecret :one
SELECT game_id, environment FROM server_secrets WHERE secret_hash = @secret_hash;

-- name: StudioSetAllowedOrigins :one
-- Sets the allowed origins of the environments asked (set_live, set_test).
UPDATE games SET
    allowed_origins_live = CASE WHEN @set_live::boolean THEN @live::text[] ELSE allowed_origins_live END,
    allowed_origins_test = CASE WHEN @set_test::boolean THEN @test::text[] ELSE allowed_origins_test END
WHERE id = @id RETURNING *;

-- name: StudioOriginAllowed :one
-- Whether any game allows the origin in the environment (a preflight carries no key).
SELECT EXISTS (
    SELECT 1 FROM games
    WHERE (@environment::text = 'live' AND allowed_origins_live @> ARRAY[@origin::text])
       OR (@environment::text = 'test' AND allowed_origins_test @> ARRAY[@origin::text])
) AS allowed;
