-- A partner quote is single use: the order that uses one records it in its own transaction.

-- +goose Up
CREATE TABLE partner_quote_uses (
    quote_id text        PRIMARY KEY,
    order_id uuid        NOT NULL,
    used_at  timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE partner_quote_uses;
