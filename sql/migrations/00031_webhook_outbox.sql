-- The pending deliveries are the webhook outbox: a dispatcher claims the due ones in batches
-- (FOR UPDATE SKIP LOCKED) instead of a job per delivery, so a coin movement with a webhook
-- commits in one statement, as one without.
--
-- due_at is when a pending delivery may next be taken: at once for a new one, its next_retry_at
-- after a failed attempt, and, while a dispatcher holds it, the end of that dispatcher's lease,
-- so a delivery whose dispatcher died is taken again once its lease ends. Finished deliveries
-- keep their last due_at; the index ignores them.

-- +goose Up
ALTER TABLE webhook_deliveries ADD COLUMN due_at timestamptz NOT NULL DEFAULT now();
UPDATE webhook_deliveries SET due_at = next_retry_at WHERE status = 'RETRYING' AND next_retry_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS webhook_deliveries_due_idx ON webhook_deliveries (due_at)
    WHERE status IN ('PENDING', 'RETRYING');

-- +goose Down
DROP INDEX IF EXISTS webhook_deliveries_due_idx;
ALTER TABLE webhook_deliveries DROP COLUMN due_at;
