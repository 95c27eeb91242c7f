-- The gift-card partner API: a game's partner settings, its client secret and the bearer tokens
-- issued under it per environment, the prepaid wallet with its ledger, partner orders (the
-- orders table, channel PARTNER) and the payment providers' events.

-- +goose Up
CREATE TABLE partner_settings (
    game_id      uuid        PRIMARY KEY REFERENCES games (id),
    enabled      boolean     NOT NULL,
    settlement   text        NOT NULL CHECK (settlement IN ('WALLET', 'CASH')),
    -- The partner's discount on face value, in basis points (0 to 90 %).
    discount_bps integer     NOT NULL CHECK (discount_bps BETWEEN 0 AND 9000),
    updated_at   timestamptz NOT NULL DEFAULT now()
);

-- One client secret per game and environment (a SHA-256 of it; the plaintext is shown once).
-- generation counts rotations: tokens carry the generation they were issued under.
CREATE TABLE partner_secrets (
    game_id     uuid        NOT NULL REFERENCES games (id),
    environment text        NOT NULL CHECK (environment IN ('live', 'test')),
    secret_hash bytea       NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, environment)
);

-- Bearer tokens (a SHA-256 of each), bound to a game and environment; rotating the secret deletes
-- the tokens of that game and environment.
CREATE TABLE partner_tokens (
    token_hash  bytea       PRIMARY KEY,
    game_id     uuid        NOT NULL REFERENCES games (id),
    environment text        NOT NULL CHECK (environment IN ('live', 'test')),
    expires_at  timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX partner_tokens_game_idx ON partner_tokens (game_id, environment);
CREATE INDEX partner_tokens_expiry_idx ON partner_tokens (expires_at);

-- The partner's prepaid wallet per game and environment. balance is the sum of its entries,
-- kept in the row that every change locks; it never goes below zero.
CREATE TABLE partner_wallets (
    game_id     uuid        NOT NULL REFERENCES games (id),
    environment text        NOT NULL CHECK (environment IN ('live', 'test')),
    balance     bigint      NOT NULL CHECK (balance >= 0),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, environment)
);

-- Partner orders live in orders (channel PARTNER): no player and no coin; the partner's terms.
ALTER TABLE orders
    ADD COLUMN channel            text NOT NULL DEFAULT 'STORE' CHECK (channel IN ('STORE', 'PARTNER')),
    ALTER COLUMN player_id DROP NOT NULL,
    ALTER COLUMN coin_id DROP NOT NULL,
    DROP CONSTRAINT orders_coins_spent_check,
    ADD CONSTRAINT orders_coins_spent_check CHECK (coins_spent >= 0),
    DROP CONSTRAINT orders_check,
    -- A store order has its player, coin and price in coins, and a coin refund exactly when FAILED.
    ADD CONSTRAINT orders_store_check CHECK (channel <> 'STORE' OR (player_id IS NOT NULL AND coin_id IS NOT NULL
        AND coins_spent > 0 AND (refund_tx_id IS NOT NULL) = (status = 'FAILED'))),
    ADD COLUMN client_order_id    text,
    ADD COLUMN customer           jsonb,
    ADD COLUMN settlement         text CHECK (settlement IN ('WALLET', 'CASH')),
    -- What the partner pays (WALLET: debited from the wallet; CASH: what the user pays), in hundredths.
    ADD COLUMN amount             bigint CHECK (amount > 0),
    ADD COLUMN currency           text,
    ADD COLUMN brand_code         text,
    ADD COLUMN brand_name         text,
    ADD COLUMN payment_status     text CHECK (payment_status IN ('NOT_REQUIRED', 'PENDING', 'PAID', 'EXPIRED', 'REFUNDED')),
    ADD COLUMN payment_provider   text,
    -- The provider's session id, what the payer is given (Stripe: the approval URL; Cashfree: the
    -- payment_session_id), the provider's payment id once paid, and when the session expires.
    ADD COLUMN payment_session    text,
    ADD COLUMN payer_token        text,
    ADD COLUMN payment_id         text,
    ADD COLUMN payment_expires_at timestamptz,
    ADD COLUMN return_url         text,
    ADD CONSTRAINT orders_partner_check CHECK (channel <> 'PARTNER' OR (client_order_id IS NOT NULL AND customer IS NOT NULL
        AND settlement IS NOT NULL AND amount IS NOT NULL AND payment_status IS NOT NULL
        AND (settlement = 'WALLET') = (payment_status = 'NOT_REQUIRED')
        AND (settlement = 'WALLET' OR (payment_session IS NOT NULL AND payment_expires_at IS NOT NULL))));
-- The partner's idempotency key: one order per clientOrderId per game and environment, forever.
CREATE UNIQUE INDEX orders_client_order_idx ON orders (game_id, environment, client_order_id) WHERE channel = 'PARTNER';
CREATE INDEX orders_partner_list_idx ON orders (game_id, environment, created_at DESC, id DESC) WHERE channel = 'PARTNER';
CREATE INDEX orders_payment_session_idx ON orders (payment_session) WHERE payment_session IS NOT NULL;

-- Every change of a wallet: a CREDIT by the operator (reference unique per wallet), the DEBIT of
-- an order and the REFUND of a failed one (one each per order at most).
CREATE TABLE partner_wallet_entries (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id       uuid        NOT NULL,
    environment   text        NOT NULL,
    kind          text        NOT NULL CHECK (kind IN ('CREDIT', 'DEBIT', 'REFUND')),
    -- Signed: credits and refunds positive, debits negative.
    amount        bigint      NOT NULL CHECK ((kind = 'DEBIT') = (amount < 0) AND amount <> 0),
    balance_after bigint      NOT NULL CHECK (balance_after >= 0),
    order_id      uuid        REFERENCES orders (id),
    reference     text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (game_id, environment) REFERENCES partner_wallets (game_id, environment),
    CHECK ((kind = 'CREDIT') = (order_id IS NULL)),
    CHECK ((kind = 'CREDIT') = (reference IS NOT NULL))
);
CREATE UNIQUE INDEX partner_wallet_credit_ref_idx ON partner_wallet_entries (game_id, environment, reference) WHERE kind = 'CREDIT';
CREATE UNIQUE INDEX partner_wallet_order_idx ON partner_wallet_entries (order_id, kind) WHERE order_id IS NOT NULL;
CREATE INDEX partner_wallet_entries_idx ON partner_wallet_entries (game_id, environment, id);

-- Payment provider webhooks, recorded once by the provider's event id before they are acted on.
CREATE TABLE payment_events (
    provider    text        NOT NULL,
    event_id    text        NOT NULL,
    type        text        NOT NULL,
    session_id  text        NOT NULL DEFAULT '',
    order_id    uuid,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (provider, event_id)
);

-- +goose Down
DROP TABLE payment_events;
DROP TABLE partner_wallet_entries;
DROP INDEX orders_payment_session_idx;
DROP INDEX orders_partner_list_idx;
DROP INDEX orders_client_order_idx;
DELETE FROM order_codes WHERE order_id IN (SELECT id FROM orders WHERE channel = 'PARTNER');
DELETE FROM order_transitions WHERE order_id IN (SELECT id FROM orders WHERE channel = 'PARTNER');
DELETE FROM orders WHERE channel = 'PARTNER';
ALTER TABLE orders
    DROP CONSTRAINT orders_partner_check,
    DROP COLUMN return_url, DROP COLUMN payment_expires_at, DROP COLUMN payment_id, DROP COLUMN payer_token,
    DROP COLUMN payment_session, DROP COLUMN payment_provider, DROP COLUMN payment_status, DROP COLUMN brand_name,
    DROP COLUMN brand_code, DROP COLUMN currency, DROP COLUMN amount, DROP COLUMN settlement, DROP COLUMN customer,
    DROP COLUMN client_order_id,
    DROP CONSTRAINT orders_store_check,
    ADD CONSTRAINT orders_check CHECK ((refund_tx_id IS NOT NULL) = (status = 'FAILED')),
    DROP CONSTRAINT orders_coins_spent_check,
    ADD CONSTRAINT orders_coins_spent_check CHECK (coins_spent > 0),
    ALTER COLUMN coin_id SET NOT NULL,
    ALTER COLUMN player_id SET NOT NULL,
    DROP COLUMN channel;
DROP TABLE partner_wallets;
DROP TABLE partner_tokens;
DROP TABLE partner_secrets;
DROP TABLE partner_settings;
