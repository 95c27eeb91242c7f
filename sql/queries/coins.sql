-- name: CoinsCreate :one
INSERT INTO coins (game_id, name, image_url, coins_per_unit) VALUES ($1, $2, $3, $4) RETURNING *;

-- name: CoinsSetValue :one
UPDATE coins SET coins_per_unit = @coins_per_unit WHERE id = @id RETURNING *;

-- name: CoinsGetByID :one
SELECT * FROM coins WHERE id = $1;

-- name: CoinsListByGame :many
SELECT * FROM coins WHERE game_id = $1 ORDER BY created_at, id;

-- name: CoinsGet :one
SELECT * FROM coins WHERE id = $1 AND game_id = $2;

-- name: CoinsFunds :many
SELECT c.id, c.name, c.image_url,
       coalesce(b.balance, 0)::bigint AS balance,
       coalesce(b.lifetime_earned, 0)::bigint AS lifetime_earned,
       coalesce(b.lifetime_spent, 0)::bigint AS lifetime_spent
FROM coins c
LEFT JOIN balances b ON b.coin_id = c.id AND b.player_id = @player_id
WHERE c.game_id = @game_id
ORDER BY c.created_at, c.id;

-- name: CoinsListTransactions :many
SELECT * FROM coin_transactions
WHERE player_id = @player_id AND (sqlc.narg(coin_id)::uuid IS NULL OR coin_id = sqlc.narg(coin_id))
ORDER BY created_at DESC, id DESC
LIMIT @lim OFFSET @off;

-- name: CoinsCountTransactions :one
SELECT count(*) FROM coin_transactions
WHERE player_id = @player_id AND (sqlc.narg(coin_id)::uuid IS NULL OR coin_id = sqlc.narg(coin_id));

-- name: CoinsSavings :one
-- The money value (face value, in hundredths) of the rewards the player bought with the coin.
SELECT coalesce(sum(face_value), 0)::bigint AS savings FROM orders
WHERE player_id = @player_id AND coin_id = @coin_id AND status = 'SUCCESS';

-- name: CoinsFirstCoin :one
SELECT * FROM coins WHERE game_id = $1 ORDER BY created_at, id LIMIT 1;

-- name: CoinsApplyMovement :one
-- One statement for a whole balance change (@type CREDIT or DEBIT): check the coin is the
-- game's, change the balance — a debit only where the balance covers it, in one conditional
-- update — append the journal entry, record the coin event and add its webhook deliveries, one
-- to each configuration that takes it (webhook_routes). coin_found is false for another game's
-- coin; transaction_id is null when nothing changed (that, or an insufficient balance).
-- The deliveries are the webhook outbox's rows, so the statement commits by itself as well with
-- them as without (one round trip, the balance row locked only while it runs).
WITH coin AS (
    SELECT k.id AS found_id FROM coins k WHERE k.id = @coin_id AND k.game_id = @game_id
), credited AS (
    -- movements numbers the coin events of the player's coin (their sequence): the row is
    -- locked by this update, so concurrent movements of the player's coin take 1, 2, 3 … in
    -- the order they commit, and other players' movements never wait for it.
    INSERT INTO balances (player_id, coin_id, balance, lifetime_earned, movements)
    SELECT @player_id, coin.found_id, @amount::bigint, @amount::bigint, 1 FROM coin
    WHERE @type::text = 'CREDIT'
    ON CONFLICT (player_id, coin_id) DO UPDATE
    SET balance = balances.balance + EXCLUDED.balance,
        lifetime_earned = balances.lifetime_earned + EXCLUDED.balance,
        movements = balances.movements + 1,
        updated_at = now()
    RETURNING balance, movements
), debited AS (
    UPDATE balances b
    SET balance = b.balance - @amount::bigint, lifetime_spent = b.lifetime_spent + @amount::bigint,
        movements = b.movements + 1, updated_at = now()
    FROM coin
    WHERE @type::text = 'DEBIT' AND b.player_id = @player_id AND b.coin_id = coin.found_id AND b.balance >= @amount::bigint
    RETURNING b.balance, b.movements
), bal AS (
    SELECT balance, movements FROM credited UNION ALL SELECT balance, movements FROM debited
), tx AS (
    -- clock_timestamp(), taken once the balance row is locked, rather than the transaction's
    -- now(): the movements of one transaction (CoinsRepo's batch of one player's movements) get
    -- times in the order they were made, and so does the history, newest first.
    INSERT INTO coin_transactions (game_id, environment, player_id, coin_id, type, amount, balance_after,
                                   reason, reference_id, description, metadata, created_at)
    SELECT @game_id, @environment, @player_id, @coin_id, @type::text, @amount::bigint, bal.balance,
           @reason, @reference_id, @description, @metadata, clock_timestamp()
    FROM bal
    RETURNING id, created_at, balance_after
), ev AS (
    INSERT INTO coin_events (game_id, environment, transaction_id, event_type, reason, player_id, user_uuid,
                             coin_id, delta, new_balance, reference_id, created_at, sequence)
    SELECT @game_id, @environment, tx.id, @event_type, @reason, @player_id, @user_uuid, @coin_id,
           CASE WHEN @type::text = 'DEBIT' THEN 0 - @amount::bigint ELSE @amount::bigint END,
           tx.balance_after, @reference_id, tx.created_at, bal.movements
    FROM tx, bal
    RETURNING id, transaction_id, created_at
), fan AS (
    -- The configurations that take the event are the webhooks module's to choose (webhook_routes).
    INSERT INTO webhook_deliveries (event_id, config_id, studio_id, environment, event_type, transaction_id, event_created_at)
    SELECT ev.id, r.config_id, r.studio_id, r.environment, @event_type, ev.transaction_id, ev.created_at
    FROM ev, webhook_routes(@game_id, @environment, @event_type, @reason) r
    RETURNING id
)
SELECT EXISTS (SELECT 1 FROM coin) AS coin_found,
       tx.id AS transaction_id, tx.created_at, tx.balance_after,
       coalesce((SELECT array_agg(fan.id) FROM fan), '{}')::uuid[] AS delivery_ids
FROM (SELECT 1) AS one
LEFT JOIN tx ON true;

