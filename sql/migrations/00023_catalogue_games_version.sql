-- What each game changed of the rewards (catalogue_game_rewards: a game's hiding and coin
-- prices) is the catalogue change studios make most, and the only one a read model can take
-- without loading the rest again. The version row says which of its latest steps were such
-- changes: games_version is the version the last one made, games_run how many of them came one
-- after the other up to it. When version = games_version, the steps from version - games_run + 1
-- to version changed the games' rewards alone (catalogue_version's row lock orders the writers,
-- so versions follow their commits). Any other step (the other tables' triggers, or a version
-- moved by hand) leaves games_version behind, and the next load is a whole one.

-- +goose Up
ALTER TABLE catalogue_version
    ADD COLUMN games_version bigint NOT NULL DEFAULT 0,
    ADD COLUMN games_run     bigint NOT NULL DEFAULT 0;

-- +goose StatementBegin
CREATE FUNCTION catalogue_bump_games_version() RETURNS trigger LANGUAGE plpgsql AS $$
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

DROP TRIGGER catalogue_game_rewards_version ON catalogue_game_rewards;
CREATE TRIGGER catalogue_game_rewards_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON catalogue_game_rewards
    FOR EACH STATEMENT EXECUTE FUNCTION catalogue_bump_games_version();

-- +goose Down
DROP TRIGGER catalogue_game_rewards_version ON catalogue_game_rewards;
CREATE TRIGGER catalogue_game_rewards_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON catalogue_game_rewards
    FOR EACH STATEMENT EXECUTE FUNCTION catalogue_bump_version();
DROP FUNCTION catalogue_bump_games_version();
ALTER TABLE catalogue_version DROP COLUMN games_version, DROP COLUMN games_run;
