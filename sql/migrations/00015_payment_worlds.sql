-- Payments are per environment too: each provider event records the environment whose secret
-- verified it, and the built-in sandbox payment provider of the test environment keeps its
-- sessions here (so that every instance, and a restarted one, knows them).

-- +goose Up
ALTER TABLE payment_events ADD COLUMN environment text CHECK (environment IN ('live', 'test'));
UPDATE payment_events e SET environment = coalesce((SELECT o.environment FROM orders o WHERE o.id = e.order_id), 'live');
ALTER TABLE payment_events ALTER COLUMN environment SET NOT NULL;

-- The built-in sandbox's payment sessions (test environment only): no money moves.
CREATE TABLE sandbox_payment_sessions (
    id          text        PRIMARY KEY,
    order_id    text        NOT NULL UNIQUE,
    amount      bigint      NOT NULL CHECK (amount > 0),
    currency    text        NOT NULL,
    description text        NOT NULL DEFAULT '',
    return_url  text        NOT NULL DEFAULT '',
    status      text        NOT NULL CHECK (status IN ('OPEN', 'PAID', 'EXPIRED')),
    payment_id  text        NOT NULL DEFAULT '',
    refunded    boolean     NOT NULL DEFAULT false,
    expires_at  timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE sandbox_payment_sessions;
ALTER TABLE payment_events DROP COLUMN environment;
