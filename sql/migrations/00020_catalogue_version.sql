-- The catalogue's version: every instance keeps a read model of the catalogue in memory
-- (core/catalogue ReadModel) and reloads it when this number moves. Statement triggers on the
-- tables the read model holds bump it in the writing transaction and notify the channel
-- catalogue_changed at commit; instances also poll the number, so a notification lost to a
-- dropped connection is caught up by the next check. Pool stock (catalogue_codes) and order
-- counts (catalogue_reward_orders) are not versioned: purchases write them, and the read model
-- reads them apart.

-- +goose Up
CREATE TABLE catalogue_version (
    id      boolean PRIMARY KEY DEFAULT true CHECK (id),
    version bigint  NOT NULL
);
INSERT INTO catalogue_version (version) VALUES (1);

-- +goose StatementBegin
CREATE FUNCTION catalogue_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE catalogue_version SET version = version + 1;
    PERFORM pg_notify('catalogue_changed', '');
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER catalogue_categories_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON catalogue_categories
    FOR EACH STATEMENT EXECUTE FUNCTION catalogue_bump_version();
CREATE TRIGGER catalogue_brands_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON catalogue_brands
    FOR EACH STATEMENT EXECUTE FUNCTION catalogue_bump_version();
CREATE TRIGGER catalogue_rewards_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON catalogue_rewards
    FOR EACH STATEMENT EXECUTE FUNCTION catalogue_bump_version();
CREATE TRIGGER catalogue_game_rewards_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON catalogue_game_rewards
    FOR EACH STATEMENT EXECUTE FUNCTION catalogue_bump_version();

-- +goose Down
DROP TRIGGER catalogue_game_rewards_version ON catalogue_game_rewards;
DROP TRIGGER catalogue_rewards_version ON catalogue_rewards;
DROP TRIGGER catalogue_brands_version ON catalogue_brands;
DROP TRIGGER catalogue_categories_version ON catalogue_categories;
DROP FUNCTION catalogue_bump_version();
DROP TABLE catalogue_version;
