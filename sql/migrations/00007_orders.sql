-- Orders: a player's purchase of a reward with coins (and, later, partners' orders), its state
-- machine with every transition recorded, and the codes it delivered, sealed.

-- +goose Up
CREATE TABLE orders (
    id               uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    game_id          uuid        NOT NULL REFERENCES games (id),
    environment      text        NOT NULL CHECK (environment IN ('live', 'test')),
    player_id        uuid        NOT NULL REFERENCES players (id),
    -- How the studio knows the player, for the coin events of the debit and the refund.
    user_ref         text        NOT NULL,
    reward_id        uuid        NOT NULL REFERENCES catalogue_rewards (id),
    reward_type      text        NOT NULL,
    coin_id          uuid        NOT NULL REFERENCES coins (id),
    status           text        NOT NULL CHECK (status IN ('INITIATED', 'PROCESSING', 'PENDING_PAYMENT', 'SUCCESS',
                                                           'FAILED', 'TIMEOUT', 'REFUNDED')),
    -- The face value of one unit, and how many units.
    denomination     bigint      NOT NULL CHECK (denomination > 0),
    quantity         integer     NOT NULL CHECK (quantity BETWEEN 1 AND 10),
    face_value       bigint      NOT NULL CHECK (face_value > 0),
    coins_spent      bigint      NOT NULL CHECK (coins_spent > 0),
    debit_tx_id      uuid        REFERENCES coin_transactions (id),
    refund_tx_id     uuid        REFERENCES coin_transactions (id),
    -- The voucher provider's product, for orders it fulfils.
    provider_product text,
    -- A physical good's delivery address.
    address          jsonb,
    failure_reason   text        NOT NULL DEFAULT '',
    -- Past this, an order the provider has not finished is failed and refunded.
    deadline_at      timestamptz NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    -- A refund exists exactly when the order failed after its debit.
    CHECK ((refund_tx_id IS NOT NULL) = (status = 'FAILED'))
);
CREATE INDEX orders_player_idx ON orders (player_id, created_at DESC, id DESC);
CREATE INDEX orders_cooldown_idx ON orders (player_id, reward_id, created_at DESC) WHERE status <> 'FAILED';
CREATE INDEX orders_savings_idx ON orders (player_id, coin_id) WHERE status = 'SUCCESS';

-- Every change of an order's status, in order.
CREATE TABLE order_transitions (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_id    uuid        NOT NULL REFERENCES orders (id),
    from_status text,
    to_status   text        NOT NULL,
    reason      text        NOT NULL DEFAULT '',
    at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX order_transitions_order_idx ON order_transitions (order_id, id);

-- The codes an order delivered, sealed (AES-GCM).
CREATE TABLE order_codes (
    order_id            uuid        NOT NULL REFERENCES orders (id),
    position            integer     NOT NULL,
    code                bytea       NOT NULL,
    pin                 bytea,
    provider_voucher_id text        NOT NULL DEFAULT '',
    value               bigint      NOT NULL,
    expiry              timestamptz,
    PRIMARY KEY (order_id, position)
);

-- +goose Down
DROP TABLE order_codes;
DROP TABLE order_transitions;
DROP TABLE orders;
