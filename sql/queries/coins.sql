-- name: CoinsCreate :one
INSERT INTO coins (game_id, name, image_url) VALUES ($1, $2, $3) RETURNING *;

-- name: CoinsListByGame :many
SELECT * FROM coins WHERE game_id = $1 ORDER BY created_at, id;

-- name: CoinsGet :one
SELECT * FROM coins WHERE id = $1 AND game_id = $2;

-- name: CoinsCredit :one
INSERT INTO balances (player_id, coin_id, balance, lifetime_earned)
VALUES (@player_id, @coin_id, @amount::bigint, @amount::bigint)
ON CONFLICT (player_id, coin_id) DO UPDATE
SET balance = balances.balance + EXCLUDED.balance,
    lifetime_earned = balances.lifetime_earned + EXCLUDED.balance,
    updated_at = now()
RETURNING balance;

-- name: CoinsDebit :one
UPDATE balances
SET balance = balance - @amount::bigint, lifetime_spent = lifetime_spent + @amount::bigint, updated_at = now()
WHERE player_id = @player_id AND coin_id = @coin_id AND balance >= @amount::bigint
RETURNING balance;

-- name: CoinsInsertTransaction :one
INSERT INTO coin_transactions (game_id, environment, player_id, coin_id, type, amount, balance_after,
                               reason, reference_id, description, metadata)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
RETURNING id, created_at;

-- name: CoinsInsertEvent :one
INSERT INTO coin_events (game_id, environment, transaction_id, event_type, reason, player_id, user_uuid,
                         coin_id, delta, new_balance, reference_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
RETURNING id;

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
SELECT coalesce(sum(money_value), 0)::numeric(18, 2)::text AS savings FROM coin_transactions
WHERE player_id = @player_id AND coin_id = @coin_id AND type = 'DEBIT';

-- name: CoinsFirstCoin :one
SELECT * FROM coins WHERE game_id = $1 ORDER BY created_at, id LIMIT 1;
