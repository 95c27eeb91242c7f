-- name: PartnerPutSettings :one
INSERT INTO partner_settings (game_id, enabled, settlement, discount_bps)
VALUES (@game_id, @enabled, @settlement, @discount_bps)
ON CONFLICT (game_id) DO UPDATE SET enabled = excluded.enabled, settlement = excluded.settlement,
    discount_bps = excluded.discount_bps, updated_at = now()
RETURNING *;

-- name: PartnerGetSettings :one
SELECT * FROM partner_settings WHERE game_id = $1;

-- name: PartnerPutSecret :exec
INSERT INTO partner_secrets (game_id, environment, secret_hash) VALUES (@game_id, @environment, @secret_hash)
ON CONFLICT (game_id, environment) DO UPDATE SET secret_hash = excluded.secret_hash, created_at = now();

-- name: PartnerGetSecret :one
SELECT secret_hash FROM partner_secrets WHERE game_id = @game_id AND environment = @environment;

-- name: PartnerDeleteTokens :exec
DELETE FROM partner_tokens WHERE game_id = @game_id AND environment = @environment;

-- name: PartnerLockTokens :exec
-- Serialises the token exchanges of one game and environment until the transaction ends.
SELECT pg_advisory_xact_lock(hashtextextended('partner_tokens:' || @game_id::text || ':' || @environment::text, 0));

-- name: PartnerTrimTokens :exec
-- Keeps the newest @keep tokens of a game and environment and deletes the others.
DELETE FROM partner_tokens WHERE token_hash IN (
    SELECT t.token_hash FROM partner_tokens t
    WHERE t.game_id = @game_id AND t.environment = @environment
    ORDER BY t.created_at DESC, t.token_hash OFFSET @keep::int);

-- name: PartnerInsertToken :exec
INSERT INTO partner_tokens (token_hash, game_id, environment, expires_at, key_hash, secret_hash)
VALUES (@token_hash, @game_id, @environment, @expires_at, @key_hash, sqlc.narg(secret_hash));

-- name: PartnerFindToken :one
-- The token's game and environment with the game's studio and partner settings, only while the
-- API key and the client secret it was exchanged with are both current: a rotation of either
-- revokes it, whatever raced it. On live a token always has a secret.
SELECT t.game_id, t.environment, t.expires_at, g.studio_id, g.name AS game_name,
    s.enabled AS partner_enabled, s.settlement, s.discount_bps
FROM partner_tokens t
JOIN games g ON g.id = t.game_id
JOIN api_keys k ON k.key_hash = t.key_hash AND k.game_id = t.game_id AND k.environment = t.environment AND k.revoked_at IS NULL
LEFT JOIN partner_secrets ps ON ps.game_id = t.game_id AND ps.environment = t.environment
LEFT JOIN partner_settings s ON s.game_id = t.game_id
WHERE t.token_hash = $1
  AND ps.secret_hash IS NOT DISTINCT FROM t.secret_hash
  AND (t.environment = 'test' OR t.secret_hash IS NOT NULL);

-- name: PartnerPurgeTokens :execrows
DELETE FROM partner_tokens WHERE token_hash IN (
    SELECT token_hash FROM partner_tokens WHERE expires_at < now() LIMIT @batch);

-- name: PartnerLockWallet :one
-- Creates the wallet at zero when it has none, and locks it until the transaction ends.
INSERT INTO partner_wallets (game_id, environment, balance) VALUES (@game_id, @environment, 0)
ON CONFLICT (game_id, environment) DO UPDATE SET balance = partner_wallets.balance
RETURNING balance;

-- name: PartnerGetWallet :one
SELECT balance FROM partner_wallets WHERE game_id = @game_id AND environment = @environment;

-- name: PartnerSetWallet :exec
UPDATE partner_wallets SET balance = @balance, updated_at = now() WHERE game_id = @game_id AND environment = @environment;

-- name: PartnerAddEntry :one
INSERT INTO partner_wallet_entries (game_id, environment, kind, amount, balance_after, order_id, reference)
VALUES (@game_id, @environment, @kind, @amount, @balance_after, sqlc.narg(order_id), sqlc.narg(reference))
RETURNING id;

-- name: PartnerCreditExists :one
SELECT EXISTS (SELECT 1 FROM partner_wallet_entries
    WHERE game_id = @game_id AND environment = @environment AND kind = 'CREDIT' AND reference = @reference);

-- name: PartnerOrderEntryExists :one
SELECT EXISTS (SELECT 1 FROM partner_wallet_entries WHERE order_id = @order_id AND kind = @kind);

-- name: PartnerEntries :many
SELECT * FROM partner_wallet_entries WHERE game_id = @game_id AND environment = @environment ORDER BY id;

-- name: PartnerEntriesPage :many
SELECT * FROM partner_wallet_entries WHERE game_id = @game_id AND environment = @environment ORDER BY id
LIMIT @lim OFFSET @off;

-- name: PartnerCountEntries :one
SELECT count(*) FROM partner_wallet_entries WHERE game_id = @game_id AND environment = @environment;

-- name: PartnerBrands :many
-- A page of the gift cards partners can buy (partner_gift_cards), by brand name; search matches
-- the brand's name or code.
SELECT sqlc.embed(partner_gift_cards), count(*) OVER () AS total FROM partner_gift_cards
WHERE sqlc.narg(search)::text IS NULL
    OR brand_name ILIKE '%' || replace(replace(replace(sqlc.narg(search)::text, '\', '\\'), '%', '\%'), '_', '\_') || '%'
    OR brand_code ILIKE '%' || replace(replace(replace(sqlc.narg(search)::text, '\', '\\'), '%', '\%'), '_', '\_') || '%'
ORDER BY brand_name, brand_code
LIMIT @lim OFFSET @off;

-- name: PartnerBrand :one
-- The gift card of one brand (partner_gift_cards), for an order or a preview. Its own statement,
-- whose generic plan PostgreSQL keeps and which finds the brand by its key: PartnerBrands'
-- generic plan ranks the whole catalogue, and a lookup through it was planned at every order
-- (0.37 ms with 10,000 rewards, four times its execution).
SELECT * FROM partner_gift_cards WHERE brand_code = @code;

-- name: PartnerRecordEvent :execrows
INSERT INTO payment_events (provider, event_id, type, session_id, order_id, environment)
VALUES (@provider, @event_id, @type, @session_id, sqlc.narg(order_id), @environment)
ON CONFLICT DO NOTHING;

-- name: PartnerUseQuote :execrows
-- Records that an order used a quote; no row when another order used it first.
INSERT INTO partner_quote_uses (quote_id, order_id) VALUES (@quote_id, @order_id)
ON CONFLICT (quote_id) DO NOTHING;

-- name: PartnerClaimPaymentCheck :execrows
-- Claims the right to ask the provider about an order's payment now: no row when it was asked
-- less than @every_seconds ago.
UPDATE orders SET payment_checked_at = now()
WHERE id = @id AND (payment_checked_at IS NULL OR payment_checked_at <= now() - make_interval(secs => @every_seconds::float8));

-- name: PartnerDebitInTx :exec
-- Debits a wallet for an order and records the entry, in one statement for a transaction that
-- sends it with its COMMIT, so that the wallet row every order of the partner contends on is
-- locked only while the commit runs: a wallet that does not cover @amount raises RWWAL, which
-- aborts the transaction.
WITH w AS (
    UPDATE partner_wallets p SET balance = p.balance - @amount::bigint, updated_at = now()
    WHERE p.game_id = @game_id AND p.environment = @environment AND p.balance >= @amount::bigint
    RETURNING p.balance
), e AS (
    INSERT INTO partner_wallet_entries (game_id, environment, kind, amount, balance_after, order_id)
    SELECT @game_id, @environment, 'DEBIT', 0 - @amount::bigint, w.balance, @order_id::uuid FROM w
    RETURNING 1
)
SELECT CASE WHEN EXISTS (SELECT 1 FROM e) THEN 1 ELSE rewards_raise('RWWAL', 'the wallet does not cover the order') END;
