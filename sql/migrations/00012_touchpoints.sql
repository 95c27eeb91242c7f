-- Touchpoints: the asset library (PRESET frames the operator manages), 2.0 placements per
-- (game, environment, screen, type), each game's touchpoint coin, and 1.0 trees per game.

-- +goose Up
CREATE TABLE touchpoint_assets (
    id          text        PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9_-]{1,63}$'),
    name        text        NOT NULL,
    image_url   text        NOT NULL,
    orientation text        NOT NULL CHECK (orientation IN ('PORTRAIT', 'LANDSCAPE')),
    width       integer     NOT NULL CHECK (width BETWEEN 1 AND 10000),
    height      integer     NOT NULL CHECK (height BETWEEN 1 AND 10000),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- A placement's frame is a library asset (PRESET, preset_id; its image and size are read from
-- the library when served) or the studio's own artwork (UPLOAD, the columns here). Its item is
-- a configured reward or product, a rule picking the best one, or both (the rule stands in
-- when the configured item is inactive or out of stock).
CREATE TABLE touchpoint_placements (
    game_id       uuid        NOT NULL REFERENCES games (id),
    environment   text        NOT NULL CHECK (environment IN ('live', 'test')),
    id            uuid        NOT NULL,
    screen        text        NOT NULL,
    type          text        NOT NULL CHECK (type IN ('product', 'coupon', 'gift-card')),
    asset_source  text        NOT NULL CHECK (asset_source IN ('PRESET', 'UPLOAD')),
    preset_id     text        REFERENCES touchpoint_assets (id),
    image_url     text        NOT NULL DEFAULT '',
    orientation   text        NOT NULL DEFAULT '',
    width         integer     NOT NULL DEFAULT 0,
    height        integer     NOT NULL DEFAULT 0,
    reward_id     uuid        REFERENCES catalogue_rewards (id),
    product_id    text        REFERENCES catalogue_products (id),
    has_rule      boolean     NOT NULL DEFAULT false,
    rule_category text        NOT NULL DEFAULT '',
    rule_brand    text        NOT NULL DEFAULT '',
    rule_sort     text        NOT NULL DEFAULT 'DEFAULT',
    is_active     boolean     NOT NULL DEFAULT true,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, environment, id),
    CHECK ((asset_source = 'PRESET') = (preset_id IS NOT NULL))
);
-- One placement per type on a screen: serving picks by type.
CREATE UNIQUE INDEX touchpoint_placements_screen_idx ON touchpoint_placements (game_id, environment, screen, type);

-- The coin a game's touchpoints price in; without a row, the game's oldest coin.
CREATE TABLE touchpoint_game_coins (
    game_id    uuid        PRIMARY KEY REFERENCES games (id),
    coin_id    uuid        NOT NULL REFERENCES coins (id),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- 1.0 trees, authored by the operator for a game (both environments). The name is case
-- sensitive (text equality). nodes is the validated tree as core/touchpoints writes it.
CREATE TABLE touchpoint_trees (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    game_id    uuid        NOT NULL REFERENCES games (id),
    name       text        NOT NULL CHECK (length(name) BETWEEN 1 AND 128),
    nodes      jsonb       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (game_id, name)
);

-- +goose Down
DROP TABLE touchpoint_trees;
DROP TABLE touchpoint_game_coins;
DROP TABLE touchpoint_placements;
DROP TABLE touchpoint_assets;
