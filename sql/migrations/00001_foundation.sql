-- Foundation: studios, their games, the games' API keys and the games' coins.

-- +goose Up
CREATE TABLE studios (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name       text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE games (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    studio_id  uuid        NOT NULL REFERENCES studios (id),
    name       text        NOT NULL,
    store_url  text        NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX games_studio_idx ON games (studio_id, created_at);

-- Only a SHA-256 of each key is stored. A rotated key keeps its row with revoked_at set, so a
-- caller still holding it is told the key was rotated rather than that it never existed.
CREATE TABLE api_keys (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    game_id     uuid        NOT NULL REFERENCES games (id),
    environment text        NOT NULL CHECK (environment IN ('live', 'test')),
    key_hash    bytea       NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);
CREATE UNIQUE INDEX api_keys_one_active_idx ON api_keys (game_id, environment) WHERE revoked_at IS NULL;

CREATE TABLE coins (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    game_id    uuid        NOT NULL REFERENCES games (id),
    name       text        NOT NULL,
    image_url  text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX coins_game_idx ON coins (game_id, created_at, id);

-- +goose Down
DROP TABLE coins;
DROP TABLE api_keys;
DROP TABLE games;
DROP TABLE studios;
