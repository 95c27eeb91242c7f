-- Each claim of an idempotency key gets its own token, so that a request whose claim was taken
-- over (it stalled past the stale limit) can no longer complete or release the key.

-- +goose Up
ALTER TABLE idempotency_keys ADD COLUMN claim_token uuid;

-- +goose Down
ALTER TABLE idempotency_keys DROP COLUMN claim_token;
