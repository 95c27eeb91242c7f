-- Environments are separate money worlds, and spending is bounded:
-- * a partner token remembers the API key and the client secret it was exchanged with, and is
--   valid only while both are still current (a rotation revokes it, even one that raced the
--   exchange);
-- * a game's purchase budget per environment and UTC day, and the day's running total;
-- * payment provider events record the environment whose secret verified them.

-- +goose Up
ALTER TABLE partner_tokens
    ADD COLUMN key_hash    bytea,
    ADD COLUMN secret_hash bytea;
-- Tokens issued before this migration name no key: they stop working (partners exchange again).
CREATE INDEX partner_tokens_newest_idx ON partner_tokens (game_id, environment, created_at DESC);

-- The face value (hundredths of the deployment currency) a game's store purchases may reach per
-- UTC day and environment; NULL means unlimited. Live defaults to 100,000.00.
ALTER TABLE games
    ADD COLUMN purchase_budget_live bigint DEFAULT 10000000 CHECK (purchase_budget_live >= 0),
    ADD COLUMN purchase_budget_test bigint CHECK (purchase_budget_test >= 0);

-- The day's total of non-failed store purchases per game and environment: every purchase adds
-- its face value in its own transaction, only while the total stays within the budget; a
-- refunded order takes its share back.
CREATE TABLE purchase_budget_days (
    game_id     uuid   NOT NULL REFERENCES games (id),
    environment text   NOT NULL CHECK (environment IN ('live', 'test')),
    day         date   NOT NULL,
    spent       bigint NOT NULL CHECK (spent >= 0),
    PRIMARY KEY (game_id, environment, day)
);

-- +goose Down
DROP TABLE purchase_budget_days;
ALTER TABLE games DROP COLUMN purchase_budget_test, DROP COLUMN purchase_budget_live;
DROP INDEX partner_tokens_newest_idx;
ALTER TABLE partner_tokens DROP COLUMN secret_hash, DROP COLUMN key_hash;
