-- name: WebhooksLockScope :exec
-- Held until the transaction ends: configures of one (studio, environment) count and insert one
-- at a time, so that the cap on configurations holds under concurrency.
SELECT pg_advisory_xact_lock(hashtextextended('webhook_configs/' || @studio_id::text || '/' || @environment::text, 0));

-- name: WebhooksInsertConfig :one
INSERT INTO webhook_configs (studio_id, environment, webhook_url, subscribed_events, excluded_reasons, is_active,
                             secret_sealed, secret_last4)
VALUES (@studio_id, @environment, @webhook_url, @subscribed_events, @excluded_reasons, @is_active, @secret_sealed, @secret_last4)
ON CONFLICT (studio_id, environment, webhook_url) DO NOTHING
RETURNING *;

-- name: WebhooksGetConfigByURL :one
SELECT * FROM webhook_configs WHERE studio_id = @studio_id AND environment = @environment AND webhook_url = @webhook_url;

-- name: WebhooksGetConfig :one
SELECT * FROM webhook_configs WHERE id = @id AND studio_id = @studio_id AND environment = @environment;

-- name: WebhooksListConfigs :many
SELECT * FROM webhook_configs WHERE studio_id = @studio_id AND environment = @environment ORDER BY created_at, id;

-- name: WebhooksUpdateConfig :one
UPDATE webhook_configs
SET webhook_url = @webhook_url, subscribed_events = @subscribed_events, excluded_reasons = @excluded_reasons,
    is_active = @is_active, updated_at = now()
WHERE id = @id AND studio_id = @studio_id AND environment = @environment
RETURNING *;

-- name: WebhooksDeleteConfig :execrows
DELETE FROM webhook_configs WHERE id = @id AND studio_id = @studio_id AND environment = @environment;

-- name: WebhooksGetDelivery :one
SELECT d.id, d.status, d.attempt_number, d.config_id,
       c.webhook_url, c.is_active, c.secret_sealed,
       e.id AS event_id, e.event_type, e.game_id, e.user_uuid, e.coin_id, e.delta, e.new_balance, e.reference_id,
       e.reason, e.created_at AS event_created_at
FROM webhook_deliveries d
JOIN webhook_configs c ON c.id = d.config_id
JOIN coin_events e ON e.id = d.event_id
WHERE d.id = @id;

-- name: WebhooksRecordAttempt :exec
UPDATE webhook_deliveries
SET status = @status, attempt_number = @attempt_number, http_status_code = @http_status_code,
    error_message = @error_message, attempted_at = @attempted_at, next_retry_at = @next_retry_at
WHERE id = @id AND status NOT IN ('SUCCESS', 'FAILED');

-- name: WebhooksListDeliveries :many
SELECT * FROM webhook_deliveries
WHERE studio_id = @studio_id AND environment = @environment
  AND (sqlc.narg(status)::text IS NULL OR status = sqlc.narg(status))
  AND (sqlc.narg(event_type)::text IS NULL OR event_type = sqlc.narg(event_type))
ORDER BY created_at DESC, id DESC
LIMIT @lim OFFSET @off;

-- name: WebhooksCountDeliveries :one
SELECT count(*) FROM webhook_deliveries
WHERE studio_id = @studio_id AND environment = @environment
  AND (sqlc.narg(status)::text IS NULL OR status = sqlc.narg(status))
  AND (sqlc.narg(event_type)::text IS NULL OR event_type = sqlc.narg(event_type));

-- name: WebhooksStats :one
SELECT count(*) AS total,
       count(*) FILTER (WHERE status = 'SUCCESS') AS delivered,
       count(*) FILTER (WHERE status = 'FAILED') AS failed
FROM webhook_deliveries WHERE studio_id = @studio_id AND environment = @environment;
