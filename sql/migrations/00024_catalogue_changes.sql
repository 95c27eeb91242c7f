-- The catalogue's latest steps, each with what it changed, so that a read model can take a
-- change of a few rewards without loading the whole catalogue again (at 100,000 rewards a whole
-- load takes seconds and holds two snapshots). Each step of catalogue_version (migration 00020)
-- writes its row in the same transaction: kind 'rewards' with the ids of the rewards its
-- statement inserted, updated or deleted; 'games' for catalogue_game_rewards alone (what 00023's
-- games_version told); 'other' for brands, categories or a truncate, which ask for a whole
-- load. The last 1,000 steps are kept: a reader further behind, or one that finds a step missing
-- (a version moved by hand), loads the whole catalogue. catalogue_version's row lock orders the
-- writers, so steps commit in the order of their versions.

-- +goose Up
CREATE TABLE catalogue_changes (
    version bigint PRIMARY KEY,
    kind    text   NOT NULL CHECK (kind IN ('rewards', 'games', 'other')),
    rewards uuid[] NOT NULL DEFAULT '{}'
);

-- +goose StatementBegin
CREATE FUNCTION catalogue_step(step_kind text, ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v bigint;
BEGIN
    UPDATE catalogue_version SET version = version + 1 RETURNING version INTO v;
    INSERT INTO catalogue_changes (version, kind, rewards) VALUES (v, step_kind, ids)
        ON CONFLICT (version) DO UPDATE SET kind = 'other', rewards = '{}'; -- a version moved back by hand
    DELETE FROM catalogue_changes WHERE version <= v - 1000;
    PERFORM pg_notify('catalogue_changed', '');
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION catalogue_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM catalogue_step('other', '{}');
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION catalogue_bump_games_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM catalogue_step('games', '{}');
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION catalogue_bump_rewards_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM catalogue_step('rewards', ARRAY(SELECT id FROM new_rows));
    ELSIF TG_OP = 'UPDATE' THEN
        PERFORM catalogue_step('rewards', ARRAY(SELECT id FROM new_rows UNION SELECT id FROM old_rows));
    ELSE
        PERFORM catalogue_step('rewards', ARRAY(SELECT id FROM old_rows));
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

DROP TRIGGER catalogue_rewards_version ON catalogue_rewards;
CREATE TRIGGER catalogue_rewards_inserted AFTER INSERT ON catalogue_rewards
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalogue_bump_rewards_version();
-- The update's trigger keeps 00020's name: the one operators and tests turn off to make a change
-- no one is told of.
CREATE TRIGGER catalogue_rewards_version AFTER UPDATE ON catalogue_rewards
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalogue_bump_rewards_version();
CREATE TRIGGER catalogue_rewards_deleted AFTER DELETE ON catalogue_rewards
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalogue_bump_rewards_version();
CREATE TRIGGER catalogue_rewards_truncated AFTER TRUNCATE ON catalogue_rewards
    FOR EACH STATEMENT EXECUTE FUNCTION catalogue_bump_version();

ALTER TABLE catalogue_version DROP COLUMN games_version, DROP COLUMN games_run;

-- What the games changed of a few rewards is read by reward.
CREATE INDEX catalogue_game_rewards_reward_idx ON catalogue_game_rewards (reward_id);

-- +goose Down
DROP INDEX catalogue_game_rewards_reward_idx;
ALTER TABLE catalogue_version
    ADD COLUMN games_version bigint NOT NULL DEFAULT 0,
    ADD COLUMN games_run     bigint NOT NULL DEFAULT 0;

DROP TRIGGER catalogue_rewards_truncated ON catalogue_rewards;
DROP TRIGGER catalogue_rewards_deleted ON catalogue_rewards;
DROP TRIGGER catalogue_rewards_version ON catalogue_rewards;
DROP TRIGGER catalogue_rewards_inserted ON catalogue_rewards;
CREATE TRIGGER catalogue_rewards_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON catalogue_rewards
    FOR EACH STATEMENT EXECUTE FUNCTION catalogue_bump_version();
DROP FUNCTION catalogue_bump_rewards_version();

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION catalogue_bump_games_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE catalogue_version SET
        games_run     = CASE WHEN games_version = version THEN games_run + 1 ELSE 1 END,
        version       = version + 1,
        games_version = version + 1;
    PERFORM pg_notify('catalogue_changed', '');
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION catalogue_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE catalogue_version SET version = version + 1;
    PERFORM pg_notify('catalogue_changed', '');
    RETURN NULL;
END
$$;
-- +goose StatementEnd

DROP FUNCTION catalogue_step(text, uuid[]);
DROP TABLE catalogue_changes;
