-- name: WebhooksLockScope :exec
-- Held until the transaction ends: configures of one (studio, environment) count and insert one
-- at a time, so that the cap on configurations holds under concurrency.
SELECT pg_advisory_xact_lock(hashtextextended('webhook_configs/' || @studio_id::text || '/' || @environment::text, 0));

-- name: WebhooksInsertConfig :one
INSERT INTO webhook_configs (studio_id, environment, webhook_url, subscribed_events, excluded_reasons, is_active,
                             secret_sealed, secret_last4, active_since, partner_wallet_low_threshold)
VALUES (@studio_id, @environment, @webhook_url, @subscribed_events, @excluded_reasons, @is_active, @secret_sealed, @secret_last4,
        @active_since, sqlc.narg(partner_wallet_low_threshold))
ON CONFLICT (studio_id, environment, webhook_url) DO NOTHING
RETURNING *;

-- name: WebhooksGetConfigByURL :one
SELECT * FROM webhook_configs WHERE studio_id = @studio_id AND environment = @environment AND webhook_url = @webhook_url;

-- name: WebhooksGetConfig :one
SELECT * FROM webhook_configs WHERE id = @id AND studio_id = @studio_id AND environment = @environment;

-- name: WebhooksListConfigs :many
SELECT * FROM webhook_configs WHERE studio_id = @studio_id AND environment = @environment ORDER BY created_at, id;

-- name: WebhooksUpdateConfig :one
-- Switching a configuration on clears the reason the service switched it off, and starts the
-- time auto-disable counts from (@now, the service's clock) when it was off.
UPDATE webhook_configs
SET webhook_url = @webhook_url, subscribed_events = @subscribed_events, excluded_reasons = @excluded_reasons,
    is_active = @is_active, partner_wallet_low_threshold = sqlc.narg(partner_wallet_low_threshold), updated_at = now(),
    disabled_reason = CASE WHEN @is_active THEN NULL ELSE disabled_reason END,
    active_since = CASE WHEN @is_active AND NOT is_active THEN @now::timestamptz ELSE active_since END
WHERE id = @id AND studio_id = @studio_id AND environment = @environment
RETURNING *;

-- name: WebhooksDeleteConfig :execrows
DELETE FROM webhook_configs WHERE id = @id AND studio_id = @studio_id AND environment = @environment;

-- name: WebhooksGetDelivery :one
-- A delivery's event is a coin event (e) or another event with its body (w): see WebhooksClaimDue.
SELECT d.id, d.status, d.attempt_number, d.config_id,
       c.webhook_url, c.is_active, c.secret_sealed, c.previous_secret_sealed, c.previous_secret_expires_at,
       coalesce(d.event_id, d.webhook_event_id)::uuid AS event_id, d.event_type, e.game_id, e.user_uuid, e.coin_id,
       e.delta, e.new_balance, e.reference_id, e.reason, d.event_created_at, e.sequence, w.body
FROM webhook_deliveries d
JOIN webhook_configs c ON c.id = d.config_id
LEFT JOIN coin_events e ON e.id = d.event_id
LEFT JOIN webhook_events w ON w.id = d.webhook_event_id
WHERE d.id = @id;

-- name: WebhooksRecordAttempts :exec
-- Records the outcomes of attempts, each of one delivery not yet finished. An http_status_code
-- of 0 and an empty error_message are none; next_retry_at counts only where retry is set. A
-- retry is due as long after now as its next_retry_at is after its attempt: the delay is the
-- service's, the clock the database's, as for every due_at.
UPDATE webhook_deliveries d
SET status = a.status, attempt_number = a.attempt_number, http_status_code = nullif(a.http_status_code, 0),
    error_message = nullif(a.error_message, ''), attempted_at = a.attempted_at,
    next_retry_at = CASE WHEN a.retry THEN a.next_retry_at END,
    due_at = CASE WHEN a.retry THEN now() + (a.next_retry_at - a.attempted_at) ELSE d.due_at END
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@statuses::text[]) AS status,
             unnest(@attempt_numbers::int[]) AS attempt_number, unnest(@http_status_codes::int[]) AS http_status_code,
             unnest(@error_messages::text[]) AS error_message, unnest(@attempted_ats::timestamptz[]) AS attempted_at,
             unnest(@retries::boolean[]) AS retry, unnest(@next_retry_ats::timestamptz[]) AS next_retry_at) a
WHERE d.id = a.id AND d.status NOT IN ('SUCCESS', 'FAILED');

-- name: WebhooksClaimDue :many
-- The webhook outbox's claim: takes at most @lim pending deliveries that are due, the longest
-- due first, for @lease_seconds (their due_at moves to the lease's end, so no other dispatcher
-- takes them meanwhile, and they are due again should this one die), with what their attempts
-- need: a coin event's fields (e), or another event's body as it is sent (w). Rows another
-- claim holds locked are skipped, not waited for.
WITH due AS (
    SELECT d.id FROM webhook_deliveries d
    WHERE d.status IN ('PENDING', 'RETRYING') AND d.due_at <= now()
    ORDER BY d.due_at
    LIMIT @lim
    FOR UPDATE SKIP LOCKED
), taken AS (
    UPDATE webhook_deliveries d
    SET due_at = now() + make_interval(secs => @lease_seconds::float8)
    FROM due
    WHERE d.id = due.id
    RETURNING d.id, d.status, d.attempt_number, d.config_id, d.event_id, d.webhook_event_id, d.event_type, d.event_created_at
)
SELECT t.id, t.status, t.attempt_number, t.config_id,
       c.webhook_url, c.is_active, c.secret_sealed, c.previous_secret_sealed, c.previous_secret_expires_at,
       coalesce(t.event_id, t.webhook_event_id)::uuid AS event_id, t.event_type, e.game_id, e.user_uuid, e.coin_id,
       e.delta, e.new_balance, e.reference_id, e.reason, t.event_created_at, e.sequence, w.body
FROM taken t
JOIN webhook_configs c ON c.id = t.config_id
LEFT JOIN coin_events e ON e.id = t.event_id
LEFT JOIN webhook_events w ON w.id = t.webhook_event_id;

-- name: WebhooksPutOff :exec
-- Makes pending deliveries due again after the given delays (claimed deliveries given back).
UPDATE webhook_deliveries d
SET due_at = now() + make_interval(secs => a.delay)
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@delay_seconds::float8[]) AS delay) a
WHERE d.id = a.id AND d.status IN ('PENDING', 'RETRYING');

-- name: WebhooksInternalFailure :one
-- Counts an attempt that failed on our side: the delivery is due again one minute later for
-- each such failure so far (at most an hour), and is FAILED with @reason at the @max-th. A
-- finished delivery is left as it is. Returns the delivery's status after it.
UPDATE webhook_deliveries
SET internal_failures = internal_failures + 1,
    due_at = now() + make_interval(mins => least(internal_failures + 1, 60)),
    status = CASE WHEN internal_failures + 1 >= @max::int THEN 'FAILED' ELSE status END,
    error_message = CASE WHEN internal_failures + 1 >= @max::int THEN @reason::text ELSE error_message END,
    attempted_at = CASE WHEN internal_failures + 1 >= @max::int THEN now() ELSE attempted_at END
WHERE id = @id AND status IN ('PENDING', 'RETRYING')
RETURNING status;

-- name: WebhooksOutboxDepth :one
-- The outbox as /metrics shows it: pending deliveries (counted up to @cap through the pending
-- index) and how long the longest-due one has been due, 0 when none is.
SELECT (SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries
            WHERE status IN ('PENDING', 'RETRYING') LIMIT @cap) p)::bigint AS pending,
       coalesce(extract(epoch FROM now() - (SELECT min(due_at) FROM webhook_deliveries
            WHERE status IN ('PENDING', 'RETRYING') AND due_at <= now())), 0)::float8 AS lag_seconds;

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

-- name: WebhooksGetScopedDelivery :one
SELECT d.id, coalesce(d.event_id, d.webhook_event_id)::uuid AS event_id, d.config_id, c.is_active
FROM webhook_deliveries d
JOIN webhook_configs c ON c.id = d.config_id
WHERE d.id = @id AND d.studio_id = @studio_id AND d.environment = @environment;

-- name: WebhooksResend :one
-- A new delivery of the same event to the same configuration, from its first attempt.
INSERT INTO webhook_deliveries (event_id, webhook_event_id, config_id, studio_id, environment, event_type, transaction_id,
                                event_created_at, resent_from)
SELECT d.event_id, d.webhook_event_id, d.config_id, d.studio_id, d.environment, d.event_type, d.transaction_id,
       d.event_created_at, d.id
FROM webhook_deliveries d
WHERE d.id = @id
RETURNING id;

-- name: WebhooksRecover :many
-- Sends again, as one new delivery per event, the configuration's FAILED deliveries of events
-- at or after @since that no recover took yet (at most @lim events, oldest first), and marks
-- them taken (recovered_by, recovered_at) in the same statement. A recover running at the same
-- time waits for the rows this one updates, finds them taken and skips them: each is sent again
-- once.
-- An event is a coin event (event_id) or another (webhook_event_id): one of the two is null.
WITH events AS (
    SELECT coalesce(d.event_id, d.webhook_event_id) AS any_event_id, gen_random_uuid() AS new_id
    FROM webhook_deliveries d
    WHERE d.config_id = @config_id AND d.status = 'FAILED' AND d.recovered_by IS NULL AND d.event_created_at >= @since
    GROUP BY coalesce(d.event_id, d.webhook_event_id)
    ORDER BY min(d.event_created_at), coalesce(d.event_id, d.webhook_event_id)
    LIMIT @lim
), taken AS (
    UPDATE webhook_deliveries d
    SET recovered_by = events.new_id, recovered_at = @at::timestamptz
    FROM events
    WHERE d.config_id = @config_id AND coalesce(d.event_id, d.webhook_event_id) = events.any_event_id
      AND d.status = 'FAILED' AND d.recovered_by IS NULL
    RETURNING d.id, d.recovered_by, d.event_id, d.webhook_event_id, d.config_id, d.studio_id, d.environment, d.event_type,
              d.transaction_id, d.event_created_at
)
INSERT INTO webhook_deliveries (id, event_id, webhook_event_id, config_id, studio_id, environment, event_type, transaction_id,
                                event_created_at, resent_from)
SELECT DISTINCT ON (t.recovered_by) t.recovered_by, t.event_id, t.webhook_event_id, t.config_id, t.studio_id, t.environment,
       t.event_type, t.transaction_id, t.event_created_at, t.id
FROM taken t
ORDER BY t.recovered_by, t.id
RETURNING id;

-- name: WebhooksRotateSecret :one
-- The current secret becomes the previous one, signed with until @previous_expires_at; a
-- previous secret of an earlier rotation is dropped.
UPDATE webhook_configs
SET previous_secret_sealed = secret_sealed, previous_secret_expires_at = @previous_expires_at::timestamptz,
    secret_sealed = @secret_sealed, secret_last4 = @secret_last4, updated_at = now()
WHERE id = @id AND studio_id = @studio_id AND environment = @environment
RETURNING *;

-- name: WebhooksDisableFailing :many
-- The auto-disable rule: an active configuration (every one, or @config_id's) active since
-- before @window_start, with no SUCCESS attempt since then and at least @min_failed deliveries
-- FAILED since then, is switched off with @reason.
UPDATE webhook_configs c
SET is_active = false, disabled_reason = @reason::text, updated_at = now()
WHERE c.is_active
  AND (sqlc.narg(config_id)::uuid IS NULL OR c.id = sqlc.narg(config_id))
  AND c.active_since <= @window_start
  AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                  WHERE d.config_id = c.id AND d.status = 'SUCCESS' AND d.attempted_at >= @window_start)
  AND (SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries d
                             WHERE d.config_id = c.id AND d.status = 'FAILED' AND d.attempted_at >= @window_start
                             LIMIT @min_failed) f) >= @min_failed
RETURNING c.*;
