-- A reward's successful orders of a day are spread over 64 rows instead of 16: with 16, a
-- purchase still waited about 2 ms on average (8 clients buying one coupon) for another's
-- commit that had drawn the same row. The counts are sums over a day's rows, whatever their
-- number.

-- +goose Up
ALTER TABLE catalogue_reward_orders
    DROP CONSTRAINT catalogue_reward_orders_shard_check,
    ADD CONSTRAINT catalogue_reward_orders_shard_check CHECK (shard BETWEEN 0 AND 63);

-- +goose Down
WITH moved AS (DELETE FROM catalogue_reward_orders WHERE shard > 15 RETURNING reward_id, day, shard, orders)
INSERT INTO catalogue_reward_orders AS c (reward_id, day, shard, orders)
SELECT reward_id, day, shard % 16, sum(orders) FROM moved GROUP BY reward_id, day, shard % 16
ON CONFLICT (reward_id, day, shard) DO UPDATE SET orders = c.orders + excluded.orders;
ALTER TABLE catalogue_reward_orders
    DROP CONSTRAINT catalogue_reward_orders_shard_check,
    ADD CONSTRAINT catalogue_reward_orders_shard_check CHECK (shard BETWEEN 0 AND 15);
