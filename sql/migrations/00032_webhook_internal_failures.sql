-- A delivery whose attempts fail on our side (not the receiver's: a secret that no longer
-- unseals, a record that cannot be written) is counted, put off longer each time, and
-- dead-lettered after MaxInternalFailures, rather than taken again at every lease's end forever.

-- +goose Up
ALTER TABLE webhook_deliveries ADD COLUMN internal_failures integer NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE webhook_deliveries DROP COLUMN internal_failures;
