-- Indexes for the retention purges and the /metrics collectors: each purge batch and each
-- scrape reads an index instead of scanning its table.
--
-- Not CONCURRENTLY: migrations run under a session advisory lock that other starting instances
-- wait for inside a statement, and CREATE INDEX CONCURRENTLY waits for every such transaction to
-- end, so instances starting together would wait on each other forever
-- (TestConcurrentMigrationsOnAnEmptyDatabase). On a large live database an operator can create
-- them CONCURRENTLY beforehand, by hand; IF NOT EXISTS then makes this a no-op.

-- +goose Up
CREATE INDEX IF NOT EXISTS otp_codes_created_idx ON otp_codes (created_at);
CREATE INDEX IF NOT EXISTS otp_failures_failed_idx ON otp_failures (failed_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_finished_idx ON webhook_deliveries (created_at)
    WHERE status IN ('SUCCESS', 'FAILED');
CREATE INDEX IF NOT EXISTS orders_open_idx ON orders (status)
    WHERE status NOT IN ('SUCCESS', 'FAILED', 'REFUNDED');

-- +goose Down
DROP INDEX IF EXISTS orders_open_idx;
DROP INDEX IF EXISTS webhook_deliveries_finished_idx;
DROP INDEX IF EXISTS otp_failures_failed_idx;
DROP INDEX IF EXISTS otp_codes_created_idx;
