-- The catalogue: categories, brands and rewards shared by every game of the deployment, with
-- coupon code pools, products for touchpoints, per-game hiding and coin prices, short links,
-- and each coin's value. Money is in hundredths of the deployment currency (bigint); a
-- percentage in hundredths of a percent.

-- +goose Up
CREATE EXTENSION IF NOT EXISTS pg_trgm;

ALTER TABLE coins ADD COLUMN coins_per_unit integer NOT NULL DEFAULT 10 CHECK (coins_per_unit BETWEEN 1 AND 1000000);

CREATE TABLE catalogue_categories (
    code          text        PRIMARY KEY CHECK (code ~ '^[A-Z0-9_]{2,64}$'),
    name          text        NOT NULL,
    image_url     text        NOT NULL DEFAULT '',
    display_order integer     NOT NULL DEFAULT 0,
    translations  jsonb       NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE catalogue_brands (
    code          text        PRIMARY KEY CHECK (code ~ '^[A-Z0-9_]{2,64}$'),
    name          text        NOT NULL,
    description   text        NOT NULL DEFAULT '',
    logo_url      text        NOT NULL DEFAULT '',
    website_url   text        NOT NULL DEFAULT '',
    issuer        text        NOT NULL DEFAULT '',
    categories    text[]      NOT NULL DEFAULT '{}',
    countries     text[]      NOT NULL DEFAULT '{}',
    is_active     boolean     NOT NULL DEFAULT true,
    translations  jsonb       NOT NULL DEFAULT '{}',
    -- The voucher provider's brand code, for brands its catalogue brought in.
    provider_code text        UNIQUE,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX catalogue_brands_name_trgm_idx ON catalogue_brands USING gin (lower(name) gin_trgm_ops);

CREATE TABLE catalogue_rewards (
    id                           uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    type                         text        NOT NULL CHECK (type IN ('GIFT_CARD', 'COUPON', 'DIGITAL_CREDIT', 'PHYSICAL')),
    brand_code                   text        NOT NULL REFERENCES catalogue_brands (code),
    name                         text        NOT NULL,
    description                  text        NOT NULL DEFAULT '',
    campaign_title               text        NOT NULL DEFAULT '',
    campaign_sub_title           text        NOT NULL DEFAULT '',
    campaign_details             text        NOT NULL DEFAULT '',
    terms_and_conditions         text        NOT NULL DEFAULT '',
    how_to_redeem                text        NOT NULL DEFAULT '',
    cover_image                  text        NOT NULL DEFAULT '',
    assets                       jsonb       NOT NULL DEFAULT '{}',
    countries                    text[]      NOT NULL DEFAULT '{}',
    end_date                     timestamptz,
    is_active                    boolean     NOT NULL DEFAULT true,
    value_type                   text        NOT NULL CHECK (value_type IN ('FIXED', 'RANGE')),
    -- FIXED: the face values offered, ascending (one value, the mrp, for coupons and goods).
    denominations                bigint[]    NOT NULL DEFAULT '{}',
    -- The smallest and largest face value (RANGE: minValue and maxValue).
    min_face                     bigint      NOT NULL CHECK (min_face > 0),
    max_face                     bigint      NOT NULL CHECK (max_face >= min_face),
    -- The discount on the face value (gift cards and credits), or (mrp - sellingPrice) / mrp.
    discount_bps                 integer     NOT NULL DEFAULT 0 CHECK (discount_bps BETWEEN 0 AND 10000),
    -- What the smallest and largest face value sell for.
    min_selling                  bigint      NOT NULL CHECK (min_selling >= 0),
    max_selling                  bigint      NOT NULL CHECK (max_selling >= min_selling),
    purchase_cooldown            integer     NOT NULL DEFAULT 0 CHECK (purchase_cooldown >= 0),
    x_score                      double precision NOT NULL DEFAULT 0,
    flag_allow_studio_edit_price boolean     NOT NULL DEFAULT false,
    translations                 jsonb       NOT NULL DEFAULT '{}',
    -- A code every buyer of a coupon gets, sealed (AES-GCM); NULL when the coupon has a pool.
    shared_code                  bytea,
    -- The voucher provider's product, for gift cards its catalogue brought in.
    provider_product_id          text        UNIQUE,
    -- Search: the names (weight A) and the descriptions and category names (weight B),
    -- kept up to date by the adapter when a reward, its brand or a category changes.
    search_name                  text        NOT NULL DEFAULT '',
    search_body                  text        NOT NULL DEFAULT '',
    search_tsv                   tsvector    GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', search_name), 'A') || setweight(to_tsvector('simple', search_body), 'B')) STORED,
    created_at                   timestamptz NOT NULL DEFAULT now(),
    updated_at                   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX catalogue_rewards_brand_idx ON catalogue_rewards (brand_code);
CREATE INDEX catalogue_rewards_listing_idx ON catalogue_rewards (x_score DESC, created_at DESC, id) WHERE is_active;
CREATE INDEX catalogue_rewards_tsv_idx ON catalogue_rewards USING gin (search_tsv);
CREATE INDEX catalogue_rewards_name_trgm_idx ON catalogue_rewards USING gin (search_name gin_trgm_ops);

-- A coupon's pool of codes, sealed (AES-GCM); code_hash (keyed) finds duplicates. A code is
-- taken by setting order_id in the purchase's transaction.
CREATE TABLE catalogue_codes (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    reward_id  uuid        NOT NULL REFERENCES catalogue_rewards (id),
    code_hash  bytea       NOT NULL,
    code       bytea       NOT NULL,
    pin        bytea,
    expiry     timestamptz,
    order_id   uuid,
    taken_at   timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (reward_id, code_hash)
);
-- In the order codes are taken (a batch shares its created_at, so id breaks the tie).
CREATE INDEX catalogue_codes_free_idx ON catalogue_codes (reward_id, created_at, id) WHERE order_id IS NULL;

-- Successful orders of a reward per day, for the TRENDING and most-ordered orders; the orders
-- module adds to it in the transaction that makes an order SUCCESS. Each day's count is spread
-- over 16 rows (shard), so concurrent purchases of one reward do not queue on one row lock.
CREATE TABLE catalogue_reward_orders (
    reward_id uuid     NOT NULL REFERENCES catalogue_rewards (id),
    day       date     NOT NULL,
    shard     smallint NOT NULL DEFAULT 0 CHECK (shard BETWEEN 0 AND 15),
    orders    integer  NOT NULL CHECK (orders >= 0),
    PRIMARY KEY (reward_id, day, shard)
);

-- What a game changes of the shared catalogue: hiding a reward, and coin prices for it.
CREATE TABLE catalogue_game_rewards (
    game_id     uuid        NOT NULL REFERENCES games (id),
    reward_id   uuid        NOT NULL REFERENCES catalogue_rewards (id),
    hidden      boolean     NOT NULL DEFAULT false,
    -- {coinId: coin price of the smallest face value}
    coin_prices jsonb       NOT NULL DEFAULT '{}',
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, reward_id)
);

-- Physical goods sold for money in the store web, with a coin discount; they feed touchpoints.
CREATE TABLE catalogue_products (
    id                       text        PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128),
    name                     text        NOT NULL,
    brand_name               text        NOT NULL DEFAULT '',
    category                 text        NOT NULL DEFAULT '',
    image_url                text        NOT NULL DEFAULT '',
    hero_image_url           text        NOT NULL DEFAULT '',
    rating                   double precision NOT NULL DEFAULT 0,
    mrp                      bigint      NOT NULL CHECK (mrp >= 0),
    listing_price            bigint      NOT NULL CHECK (listing_price >= 0),
    discounted_listing_price bigint      NOT NULL CHECK (discounted_listing_price >= 0),
    max_coin_discount_bps    integer     NOT NULL DEFAULT 0 CHECK (max_coin_discount_bps BETWEEN 0 AND 10000),
    price_updated_at         timestamptz NOT NULL,
    is_active                boolean     NOT NULL DEFAULT true,
    created_at               timestamptz NOT NULL DEFAULT now(),
    updated_at               timestamptz NOT NULL DEFAULT now()
);

-- A player's short link to a reward's brand site; clicks are counted.
CREATE TABLE catalogue_short_links (
    code       text        PRIMARY KEY,
    player_id  uuid        NOT NULL REFERENCES players (id),
    reward_id  uuid        NOT NULL REFERENCES catalogue_rewards (id),
    clicks     bigint      NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (player_id, reward_id)
);

-- +goose Down
DROP TABLE catalogue_short_links;
DROP TABLE catalogue_products;
DROP TABLE catalogue_game_rewards;
DROP TABLE catalogue_reward_orders;
DROP TABLE catalogue_codes;
DROP TABLE catalogue_rewards;
DROP TABLE catalogue_brands;
DROP TABLE catalogue_categories;
ALTER TABLE coins DROP COLUMN coins_per_unit;
