-- rewards_raise lets one statement refuse its own outcome: a statement that a transaction sends
-- together with its COMMIT (one round trip) checks what it changed and, when the check fails,
-- calls rewards_raise, so that PostgreSQL aborts the transaction before the COMMIT runs. The
-- SQLSTATE (class RW, ours) tells the service which refusal it was.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION rewards_raise(code text, message text) RETURNS int
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = code, MESSAGE = message;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION rewards_raise(text, text);
