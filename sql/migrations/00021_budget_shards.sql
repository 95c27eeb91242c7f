-- A day's purchase total is the sum of up to 64 rows (shards), so that purchases of a game
-- without a budget do not all wait for one row: every store purchase of the game and
-- environment used to update the same row, and each held it through its commit (at 8 clients
-- the statement waited 13-14 ms on average, more than the rest of the purchase took).
-- * Without a budget (NULL), a purchase adds its face value to a shard picked at random.
-- * With a budget, a purchase adds to shard 0, whose lock serialises them as the one row did,
--   and checks shard 0 as it now is plus the other shards, which only purchases that found no
--   budget write. A purchase holds a shared advisory lock of its game from its first
--   statement, and setting a budget takes it exclusively: the budget changes only once the
--   purchases that read none have committed, so that the purchases that read it see all they
--   added.
-- * A refunded order takes its face value back from shard 0, never below a zero total: shard 0
--   may be negative, the sum never is.

-- +goose Up
ALTER TABLE purchase_budget_days
    ADD COLUMN shard smallint NOT NULL DEFAULT 0 CHECK (shard BETWEEN 0 AND 63),
    DROP CONSTRAINT purchase_budget_days_pkey,
    ADD PRIMARY KEY (game_id, environment, day, shard),
    DROP CONSTRAINT purchase_budget_days_spent_check;
ALTER TABLE purchase_budget_days ALTER COLUMN shard DROP DEFAULT;

-- +goose Down
WITH moved AS (DELETE FROM purchase_budget_days WHERE shard <> 0 RETURNING game_id, environment, day, spent)
INSERT INTO purchase_budget_days AS d (game_id, environment, day, shard, spent)
SELECT game_id, environment, day, 0, sum(spent) FROM moved GROUP BY game_id, environment, day
ON CONFLICT (game_id, environment, day, shard) DO UPDATE SET spent = d.spent + excluded.spent;
UPDATE purchase_budget_days SET spent = 0 WHERE spent < 0;
ALTER TABLE purchase_budget_days
    DROP CONSTRAINT purchase_budget_days_pkey,
    ADD PRIMARY KEY (game_id, environment, day),
    DROP COLUMN shard,
    ADD CONSTRAINT purchase_budget_days_spent_check CHECK (spent >= 0);
