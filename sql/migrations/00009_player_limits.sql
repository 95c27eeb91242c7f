-- OTP limits beyond the per-phone ones: the game-wide hourly cap on sends counts a game's codes
-- by time, and a phone's run of failed checks in a row locks it for a day.

-- +goose Up
CREATE INDEX otp_codes_scope_idx ON otp_codes (game_id, environment, created_at);

-- One row per phone that ever failed a check: the failed checks since its last successful login
-- (or its last lock), and until when it is locked.
CREATE TABLE otp_failure_runs (
    game_id      uuid        NOT NULL REFERENCES games (id),
    environment  text        NOT NULL,
    phone        text        NOT NULL,
    failures     int         NOT NULL DEFAULT 0 CHECK (failures >= 0),
    locked_until timestamptz,
    PRIMARY KEY (game_id, environment, phone)
);

-- +goose Down
DROP TABLE otp_failure_runs;
DROP INDEX otp_codes_scope_idx;
