-- A read of a PENDING_PAYMENT order asks the payment provider at most once per window per order,
-- across every instance: the read that claims the window records when.

-- +goose Up
ALTER TABLE orders ADD COLUMN payment_checked_at timestamptz;

-- +goose Down
ALTER TABLE orders DROP COLUMN payment_checked_at;
