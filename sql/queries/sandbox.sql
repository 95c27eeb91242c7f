-- name: SandboxCreateSession :one
-- Opens the sandbox session of an order, or returns the one it has.
INSERT INTO sandbox_payment_sessions (id, order_id, amount, currency, description, return_url, status, expires_at)
VALUES (@id, @order_id, @amount, @currency, @description, @return_url, 'OPEN', @expires_at)
ON CONFLICT (order_id) DO UPDATE SET order_id = EXCLUDED.order_id
RETURNING *;

-- name: SandboxGetSession :one
SELECT * FROM sandbox_payment_sessions WHERE id = $1;

-- name: SandboxPay :one
-- The payer paid: only an open session that has not expired.
UPDATE sandbox_payment_sessions SET status = 'PAID', payment_id = @payment_id
WHERE id = @id AND status = 'OPEN' AND expires_at > now()
RETURNING *;

-- name: SandboxExpire :one
-- Ends an open session unpaid (cancelled by the payer, or expired).
UPDATE sandbox_payment_sessions SET status = 'EXPIRED'
WHERE id = @id AND status = 'OPEN'
RETURNING *;

-- name: SandboxRefund :one
UPDATE sandbox_payment_sessions SET refunded = true
WHERE id = @id AND status = 'PAID'
RETURNING *;
