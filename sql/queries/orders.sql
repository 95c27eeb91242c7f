-- name: OrdersInsert :one
INSERT INTO orders (id, game_id, environment, player_id, user_ref, reward_id, reward_type, coin_id, status,
    denomination, quantity, face_value, coins_spent, debit_tx_id, provider_product, address, deadline_at)
VALUES (@id, @game_id, @environment, @player_id, @user_ref, @reward_id, @reward_type, @coin_id, @status,
    @denomination, @quantity, @face_value, @coins_spent, sqlc.narg(debit_tx_id), sqlc.narg(provider_product),
    sqlc.narg(address), @deadline_at)
RETURNING created_at, updated_at;

-- name: OrdersAddTransition :exec
INSERT INTO order_transitions (order_id, from_status, to_status, reason)
VALUES (@order_id, sqlc.narg(from_status), @to_status, @reason);

-- name: OrdersMove :one
-- Moves an order only if it is still in @from_status; no row means another worker moved it.
UPDATE orders SET status = @to_status, updated_at = now(),
    refund_tx_id = coalesce(sqlc.narg(refund_tx_id), refund_tx_id),
    failure_reason = CASE WHEN @to_status::text = 'FAILED' THEN @reason ELSE failure_reason END
WHERE id = @id AND status = @from_status
RETURNING id;

-- name: OrdersGet :one
SELECT * FROM orders WHERE id = $1;

-- name: OrdersCodes :many
SELECT * FROM order_codes WHERE order_id = ANY (@ids::uuid[]) ORDER BY order_id, position;

-- name: OrdersListForPlayer :many
SELECT sqlc.embed(orders), count(*) OVER () AS total FROM orders
WHERE player_id = @player_id AND (sqlc.narg(reward_id)::uuid IS NULL OR reward_id = sqlc.narg(reward_id))
ORDER BY created_at DESC, id DESC
LIMIT @lim OFFSET @off;

-- name: OrdersTransitions :many
SELECT * FROM order_transitions WHERE order_id = $1 ORDER BY id;

-- name: OrdersLockPlayerReward :exec
-- The player's purchases of the reward, exclusively; the game's purchase budget, shared (setting
-- one waits for the purchases under way: see StudioSetPurchaseBudget).
SELECT pg_advisory_xact_lock(hashtextextended(@player_id::text || '/' || @reward_id::text, 0)),
    pg_advisory_xact_lock_shared(hashtextextended('purchase_budget/' || @game_id::text, 0));

-- name: OrdersLastPurchase :one
SELECT created_at FROM orders
WHERE player_id = @player_id AND reward_id = @reward_id AND status <> 'FAILED'
ORDER BY created_at DESC LIMIT 1;

-- name: OrdersInsertPartner :one
INSERT INTO orders (id, channel, game_id, environment, user_ref, reward_id, reward_type, status,
    denomination, quantity, face_value, coins_spent, provider_product, deadline_at,
    client_order_id, customer, settlement, amount, currency, brand_code, brand_name, payment_status,
    payment_provider, payment_session, payer_token, payment_expires_at, return_url)
VALUES (@id, 'PARTNER', @game_id, @environment, @user_ref, @reward_id, @reward_type, @status,
    @denomination, @quantity, @face_value, 0, @provider_product, @deadline_at,
    @client_order_id, @customer, @settlement, @amount, @currency, @brand_code, @brand_name, @payment_status,
    sqlc.narg(payment_provider), sqlc.narg(payment_session), sqlc.narg(payer_token), sqlc.narg(payment_expires_at),
    sqlc.narg(return_url))
RETURNING created_at, updated_at;

-- name: OrdersInsertPartnerInTx :exec
-- OrdersInsertPartner and its transitions in one statement, for a transaction that sends it with
-- its next statement or its COMMIT: the creation time is the caller's (the transaction's, read
-- by an earlier statement), and the transitions are in their order (an empty from is none).
WITH o AS (
  INSERT INTO orders (id, channel, game_id, environment, user_ref, reward_id, reward_type, status,
      denomination, quantity, face_value, coins_spent, provider_product, deadline_at,
      client_order_id, customer, settlement, amount, currency, brand_code, brand_name, payment_status,
      payment_provider, payment_session, payer_token, payment_expires_at, return_url, created_at, updated_at)
  VALUES (@id, 'PARTNER', @game_id, @environment, @user_ref, @reward_id, @reward_type, @status,
      @denomination, @quantity, @face_value, 0, @provider_product, @deadline_at,
      @client_order_id, @customer, @settlement, @amount, @currency, @brand_code, @brand_name, @payment_status,
      sqlc.narg(payment_provider), sqlc.narg(payment_session), sqlc.narg(payer_token), sqlc.narg(payment_expires_at),
      sqlc.narg(return_url), @created_at, @created_at)
  RETURNING id
)
INSERT INTO order_transitions (order_id, from_status, to_status, reason, at)
SELECT o.id, nullif(unnest(@froms::text[]), ''), unnest(@tos::text[]), unnest(@reasons::text[]), @created_at FROM o;

-- name: OrdersByClientOrderID :one
SELECT * FROM orders
WHERE channel = 'PARTNER' AND game_id = @game_id AND environment = @environment AND client_order_id = @client_order_id;

-- name: OrdersListForPartner :many
SELECT sqlc.embed(orders), count(*) OVER () AS total FROM orders
WHERE channel = 'PARTNER' AND game_id = @game_id AND environment = @environment
    AND (sqlc.narg(customer_ref)::text IS NULL OR user_ref = sqlc.narg(customer_ref))
    AND (sqlc.narg(client_order_id)::text IS NULL OR client_order_id = sqlc.narg(client_order_id))
ORDER BY created_at DESC, id DESC
LIMIT @lim OFFSET @off;

-- name: OrdersSetPayment :one
-- Changes a partner order's payment status only if it is still @from_status.
UPDATE orders SET payment_status = @to_status, updated_at = now(),
    payment_id = coalesce(sqlc.narg(payment_id), payment_id)
WHERE id = @id AND payment_status = @from_status
RETURNING id;

-- name: OrdersBySession :one
SELECT id FROM orders WHERE payment_session = @payment_session;

-- name: OrdersReturnBudget :exec
-- Gives a failed purchase's face value back to the total of the day it was made (the sum of its
-- shards), through shard 0, never below a zero total.
INSERT INTO purchase_budget_days AS d (game_id, environment, day, shard, spent)
SELECT @game_id, @environment::text, @day::date, 0, -least(@amount::bigint, t.total)
FROM (SELECT sum(s.spent) AS total FROM purchase_budget_days s
      WHERE s.game_id = @game_id AND s.environment = @environment::text AND s.day = @day::date) t
WHERE t.total > 0
ON CONFLICT (game_id, environment, day, shard) DO UPDATE SET spent = d.spent + EXCLUDED.spent;

-- name: OrdersInsertInTx :exec
-- OrdersInsert and its transitions in one statement, for a transaction that sends it with its
-- next statement: the creation time is the caller's (the time it answers with). The order is
-- stored in its last transition's status (@status), and the transitions in their order (an
-- empty from is none).
WITH o AS (
  INSERT INTO orders (id, game_id, environment, player_id, user_ref, reward_id, reward_type, coin_id, status,
      denomination, quantity, face_value, coins_spent, debit_tx_id, provider_product, address, deadline_at,
      created_at, updated_at)
  VALUES (@id, @game_id, @environment, @player_id, @user_ref, @reward_id, @reward_type, @coin_id, @status,
      @denomination, @quantity, @face_value, @coins_spent, sqlc.narg(debit_tx_id), sqlc.narg(provider_product),
      sqlc.narg(address), @deadline_at, @created_at, @created_at)
  RETURNING id
)
INSERT INTO order_transitions (order_id, from_status, to_status, reason, at)
SELECT o.id, nullif(unnest(@froms::text[]), ''), unnest(@tos::text[]), unnest(@reasons::text[]), @created_at FROM o;

-- name: OrdersAddTransitions :exec
-- Transitions of one order in their order (an empty from is none).
INSERT INTO order_transitions (order_id, from_status, to_status, reason)
SELECT @order_id, nullif(unnest(@froms::text[]), ''), unnest(@tos::text[]), unnest(@reasons::text[]);

-- name: OrdersMoveInTx :exec
-- OrdersMove and its transition in one statement, for a transaction that sends it with its next
-- statement or its COMMIT: an order no longer in @from_status raises RWMOV, which aborts the
-- transaction.
WITH m AS (
  UPDATE orders SET status = @to_status, updated_at = now(),
      failure_reason = CASE WHEN @to_status::text = 'FAILED' THEN @reason ELSE failure_reason END
  WHERE orders.id = @id AND orders.status = @from_status
  RETURNING orders.id
), t AS (
  INSERT INTO order_transitions (order_id, from_status, to_status, reason)
  SELECT m.id, @from_status, @to_status, @reason FROM m
  RETURNING 1
)
SELECT CASE WHEN EXISTS (SELECT 1 FROM t) THEN 1 ELSE rewards_raise('RWMOV', 'the order was moved by another worker') END;

-- name: OrdersAddCodesInTx :exec
-- Every code of an order in one statement (an empty expiry is none).
INSERT INTO order_codes (order_id, position, code, pin, provider_voucher_id, value, expiry)
SELECT @order_id::uuid, unnest(@positions::int[]), unnest(@codes::bytea[]), unnest(@pins::bytea[]),
    unnest(@provider_voucher_ids::text[]), unnest(@vals::bigint[]),
    nullif(unnest(@expiries::text[]), '')::timestamptz;

-- name: OrdersSpendBudgetInTx :exec
-- OrdersSpendBudget for a transaction that sends it with its COMMIT: when the budget would be
-- passed it raises RWBDG, which aborts the transaction. The day's total is the sum of its shards:
-- without a budget the face value goes to a shard picked at random, so that purchases do not
-- wait for each other; with one it goes to shard 0, whose lock serialises the purchases that
-- check the budget, and the other shards (written only by purchases that found no budget, all
-- committed before a budget is set: OrdersLockPlayerReward) count as they are.
WITH budget AS (
    SELECT CASE WHEN @environment::text = 'live' THEN g.purchase_budget_live ELSE g.purchase_budget_test END AS cap
    FROM games g WHERE g.id = @game_id
), others AS (
    SELECT coalesce(sum(o.spent), 0)::bigint AS spent FROM purchase_budget_days o
    WHERE o.game_id = @game_id AND o.environment = @environment::text AND o.day = @day::date AND o.shard <> 0
        AND (SELECT cap FROM budget) IS NOT NULL
), spent AS (
    INSERT INTO purchase_budget_days AS d (game_id, environment, day, shard, spent)
    SELECT @game_id, @environment::text, @day::date,
        CASE WHEN budget.cap IS NULL THEN floor(random() * 64)::smallint ELSE 0 END, @amount::bigint
    FROM budget
    WHERE budget.cap IS NULL OR (SELECT spent FROM others) + @amount::bigint <= budget.cap
    ON CONFLICT (game_id, environment, day, shard) DO UPDATE SET spent = d.spent + EXCLUDED.spent
    WHERE (SELECT cap FROM budget) IS NULL
        OR (SELECT spent FROM others) + d.spent + EXCLUDED.spent <= (SELECT cap FROM budget)
    RETURNING d.spent
)
SELECT CASE WHEN EXISTS (SELECT 1 FROM spent) THEN 1 ELSE rewards_raise('RWBDG', 'purchase budget exceeded') END;

-- name: OrdersPlanHolds :one
-- Checks that a purchase planned from memory (the catalogue's read model at @version, the coin
-- worth @coins_per_unit) still holds in the purchase's transaction, before anything else it
-- sends: the catalogue has not moved past @version and the coin is the game's and still worth as
-- much; otherwise it raises RWPLN, which aborts the transaction, and PostgreSQL skips the rest
-- of the batch (the debit, the take of a code), so a stale plan changes and locks nothing.
SELECT CASE
    WHEN (SELECT version FROM catalogue_version) = @version::bigint
     AND EXISTS (SELECT 1 FROM coins k WHERE k.id = @coin_id AND k.game_id = @game_id AND k.coins_per_unit = @coins_per_unit::bigint)
    THEN true
    ELSE rewards_raise('RWPLN', 'the catalogue or the coin changed since the purchase was planned') = 0
  END::boolean AS holds;
