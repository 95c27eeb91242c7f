-- Indexes for the retention purges and the /metrics collectors: each purge batch and each
-- scrape reads an index instead of scanning its table. Built CONCURRENTLY, so that applying
-- this to a large live database blocks no writes (hence no transaction around it).

-- +goose NO TRANSACTION
-- +goose Up
CREATE INDEX CONCURRENTLY IF NOT EXISTS otp_codes_created_idx ON otp_codes (created_at);
CREATE INDEX CONCURRENTLY IF NOT EXISTS otp_failures_failed_idx ON otp_failures (failed_at);
CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_finished_idx ON webhook_deliveries (created_at)
    WHERE status IN ('SUCCESS', 'FAILED');
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_open_idx ON orders (status)
    WHERE status NOT IN ('SUCCESS', 'FAILED', 'REFUNDED');

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS orders_open_idx;
DROP INDEX CONCURRENTLY IF EXISTS webhook_deliveries_finished_idx;
DROP INDEX CONCURRENTLY IF EXISTS otp_failures_failed_idx;
DROP INDEX CONCURRENTLY IF EXISTS otp_codes_created_idx;
