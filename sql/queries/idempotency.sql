-- name: IdempotencyClaim :one
-- Inserts the key as running under @claim_token, or takes over a running key whose holder went
-- quiet more than stale_after_seconds ago (a crashed instance). Returns no row when
-- another request holds or finished it. The age is measured by the clock of the database alone
-- (locked_at was set by now() too), so no application clock enters the comparison.
INSERT INTO idempotency_keys (game_id, environment, scope, key, request_hash, state, claim_token)
VALUES (@game_id, @environment, @scope, @key, @request_hash, 'running', @claim_token)
ON CONFLICT (game_id, environment, scope, key) DO UPDATE
SET locked_at = now(), claim_token = EXCLUDED.claim_token
WHERE idempotency_keys.state = 'running'
  AND idempotency_keys.locked_at < now() - make_interval(secs => sqlc.arg(stale_after_seconds)::float8)
  AND idempotency_keys.request_hash = EXCLUDED.request_hash
RETURNING true AS claimed;

-- name: IdempotencyGet :one
SELECT * FROM idempotency_keys
WHERE game_id = @game_id AND environment = @environment AND scope = @scope AND key = @key;

-- name: IdempotencyComplete :execrows
-- Stores the outcome, only for the claim that still holds the key.
UPDATE idempotency_keys SET state = 'done', result = @result, error_code = @error_code
WHERE game_id = @game_id AND environment = @environment AND scope = @scope AND key = @key
  AND state = 'running' AND claim_token = @claim_token;

-- name: IdempotencyCompleteInTx :exec
-- IdempotencyComplete for a transaction that sends it with its COMMIT: when the claim no longer
-- holds the key it raises RWCLM, which aborts the transaction.
WITH done AS (
  UPDATE idempotency_keys SET state = 'done', result = @result, error_code = @error_code
  WHERE game_id = @game_id AND environment = @environment AND scope = @scope AND key = @key
    AND state = 'running' AND claim_token = @claim_token
  RETURNING 1
)
SELECT CASE WHEN EXISTS (SELECT 1 FROM done) THEN 1 ELSE rewards_raise('RWCLM', 'idempotency claim lost') END;

-- name: IdempotencyRelease :exec
DELETE FROM idempotency_keys
WHERE game_id = @game_id AND environment = @environment AND scope = @scope AND key = @key
  AND state = 'running' AND claim_token = @claim_token;

-- name: IdempotencyPurge :execrows
-- Deletes the keys created more than older_than_seconds ago, by the clock of the database.
DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(secs => sqlc.arg(older_than_seconds)::float8);
