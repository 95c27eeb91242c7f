-- Retention: rows that served their purpose are deleted in bounded batches by the periodic
-- purge jobs (adapters/jobs/retention.go). Each statement deletes at most @batch rows, so a
-- large backlog goes in many short statements rather than one long one that holds locks and
-- bloats the WAL. The rows are picked by an index on their age and deleted by key (or physical
-- address) through "= ANY (ARRAY(...))": with "IN (SELECT ...)" the planner may hash-join the
-- batch against a scan of the whole table, once per batch. Ages are measured by the database's clock alone. Rows another transaction
-- holds are skipped (SKIP LOCKED) and go on a later run.

-- name: RetentionPurgeOTPCodes :execrows
-- OTP codes sent more than older_than_seconds ago: the hourly send limits count codes of the
-- last hour only, and a code lives 5 minutes.
DELETE FROM otp_codes WHERE id = ANY (ARRAY(
    SELECT id FROM otp_codes
    WHERE created_at < now() - make_interval(secs => sqlc.arg(older_than_seconds)::float8)
    ORDER BY created_at
    LIMIT sqlc.arg(batch)::int
    FOR UPDATE SKIP LOCKED
));

-- name: RetentionPurgeOTPFailures :execrows
-- Failed checks older than older_than_seconds: the hourly limit counts those of the last hour.
-- The table has no key of its own, so rows are picked by their physical address.
DELETE FROM otp_failures WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM otp_failures
    WHERE failed_at < now() - make_interval(secs => sqlc.arg(older_than_seconds)::float8)
    ORDER BY failed_at
    LIMIT sqlc.arg(batch)::int
    FOR UPDATE SKIP LOCKED
));

-- name: RetentionPurgeOTPFailureRuns :execrows
-- A phone's failure run that counts nothing any more: no failed check since its last success
-- or lock, and no lock, or a lock lifted more than older_than_seconds ago. A run with failures
-- is kept whatever its age: its count leads to the lock.
DELETE FROM otp_failure_runs WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM otp_failure_runs
    WHERE failures = 0
      AND (locked_until IS NULL OR locked_until < now() - make_interval(secs => sqlc.arg(older_than_seconds)::float8))
    LIMIT sqlc.arg(batch)::int
    FOR UPDATE SKIP LOCKED
));

-- name: RetentionPurgeWebhookDeliveries :execrows
-- Finished deliveries (SUCCESS or FAILED) of coin events created more than older_than_seconds
-- ago. PENDING and RETRYING ones are never deleted, whatever their age: a job still works them.
DELETE FROM webhook_deliveries WHERE id = ANY (ARRAY(
    SELECT id FROM webhook_deliveries
    WHERE status IN ('SUCCESS', 'FAILED')
      AND created_at < now() - make_interval(secs => sqlc.arg(older_than_seconds)::float8)
    ORDER BY created_at
    LIMIT sqlc.arg(batch)::int
    FOR UPDATE SKIP LOCKED
));
