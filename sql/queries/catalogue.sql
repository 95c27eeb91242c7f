-- name: CatalogueUpsertCategory :one
INSERT INTO catalogue_categories (code, name, image_url, display_order, translations)
VALUES (@code, @name, @image_url, @display_order, @translations)
ON CONFLICT (code) DO UPDATE SET name = excluded.name, image_url = excluded.image_url,
    display_order = excluded.display_order, translations = excluded.translations, updated_at = now()
RETURNING (xmax = 0) AS created;

-- name: CatalogueMissingCategories :many
SELECT c::text FROM unnest(@codes::text[]) AS c
WHERE NOT EXISTS (SELECT 1 FROM catalogue_categories k WHERE k.code = c);

-- name: CatalogueUpsertBrand :one
INSERT INTO catalogue_brands (code, name, description, logo_url, website_url, issuer, categories, countries,
    is_active, translations, provider_code)
VALUES (@code, @name, @description, @logo_url, @website_url, @issuer, @categories, @countries, @is_active,
    @translations, sqlc.narg(provider_code))
ON CONFLICT (code) DO UPDATE SET name = excluded.name, description = excluded.description,
    logo_url = excluded.logo_url, website_url = excluded.website_url, issuer = excluded.issuer,
    categories = excluded.categories, countries = excluded.countries, is_active = excluded.is_active,
    translations = excluded.translations,
    provider_code = coalesce(excluded.provider_code, catalogue_brands.provider_code), updated_at = now()
RETURNING (xmax = 0) AS created;

-- name: CatalogueGetBrand :one
SELECT * FROM catalogue_brands WHERE code = $1;

-- name: CatalogueBrandByProviderCode :one
SELECT * FROM catalogue_brands WHERE provider_code = $1;

-- name: CatalogueRefreshSearch :exec
-- Recomputes the search text of the rewards of one reward id, one brand, or one category.
UPDATE catalogue_rewards r SET
    search_name = lower(concat_ws(' ', r.name, b.name,
        (SELECT string_agg(t.value ->> 'name', ' ') FROM jsonb_each(r.translations) t),
        (SELECT string_agg(t.value ->> 'name', ' ') FROM jsonb_each(b.translations) t))),
    search_body = lower(concat_ws(' ', r.description, r.campaign_title, b.description,
        (SELECT string_agg(concat_ws(' ', c.name, (SELECT string_agg(t.value ->> 'name', ' ') FROM jsonb_each(c.translations) t)), ' ')
         FROM catalogue_categories c WHERE c.code = ANY (b.categories))))
FROM catalogue_brands b
WHERE b.code = r.brand_code
  AND (r.id = sqlc.narg(reward_id)::uuid OR r.brand_code = sqlc.narg(brand_code)::text
       OR sqlc.narg(category)::text = ANY (b.categories));

-- name: CatalogueInsertReward :one
INSERT INTO catalogue_rewards (type, brand_code, name, description, campaign_title, campaign_sub_title,
    campaign_details, terms_and_conditions, how_to_redeem, cover_image, assets, countries, end_date, is_active,
    value_type, denominations, min_face, max_face, discount_bps, min_selling, max_selling, purchase_cooldown,
    x_score, flag_allow_studio_edit_price, translations, shared_code, provider_product_id)
VALUES (@type, @brand_code, @name, @description, @campaign_title, @campaign_sub_title, @campaign_details,
    @terms_and_conditions, @how_to_redeem, @cover_image, @assets, @countries, sqlc.narg(end_date), @is_active,
    @value_type, @denominations, @min_face, @max_face, @discount_bps, @min_selling, @max_selling,
    @purchase_cooldown, @x_score, @flag_allow_studio_edit_price, @translations, sqlc.narg(shared_code),
    sqlc.narg(provider_product_id))
RETURNING id, created_at, updated_at;

-- name: CatalogueUpdateReward :one
UPDATE catalogue_rewards SET type = @type, brand_code = @brand_code, name = @name, description = @description,
    campaign_title = @campaign_title, campaign_sub_title = @campaign_sub_title,
    campaign_details = @campaign_details, terms_and_conditions = @terms_and_conditions,
    how_to_redeem = @how_to_redeem, cover_image = @cover_image, assets = @assets, countries = @countries,
    end_date = sqlc.narg(end_date), is_active = @is_active, value_type = @value_type,
    denominations = @denominations, min_face = @min_face, max_face = @max_face, discount_bps = @discount_bps,
    min_selling = @min_selling, max_selling = @max_selling, purchase_cooldown = @purchase_cooldown,
    x_score = @x_score, flag_allow_studio_edit_price = @flag_allow_studio_edit_price,
    translations = @translations,
    shared_code = CASE WHEN @set_shared_code::boolean THEN sqlc.narg(shared_code) ELSE shared_code END,
    updated_at = now()
WHERE id = @id
RETURNING created_at, updated_at, (shared_code IS NOT NULL)::boolean AS has_shared_code;

-- name: CatalogueGetReward :one
SELECT * FROM catalogue_rewards WHERE id = $1;

-- name: CatalogueLockReward :one
SELECT * FROM catalogue_rewards WHERE id = $1 FOR UPDATE;

-- name: CatalogueRewardByProviderProduct :one
SELECT * FROM catalogue_rewards WHERE provider_product_id = $1;

-- name: CatalogueListRewards :many
SELECT *, count(*) OVER () AS total FROM catalogue_rewards
WHERE (@type::text = '' OR type = @type) AND (@brand_code::text = '' OR brand_code = @brand_code)
  AND (sqlc.narg(active)::boolean IS NULL OR is_active = sqlc.narg(active))
ORDER BY created_at DESC, id
LIMIT @lim OFFSET @off;

-- name: CatalogueDeactivateProviderRewards :one
WITH gone AS (
    UPDATE catalogue_rewards SET is_active = false, updated_at = now()
    WHERE provider_product_id IS NOT NULL AND is_active AND NOT (provider_product_id = ANY (@keep_products::text[]))
    RETURNING id
), gone_brands AS (
    UPDATE catalogue_brands SET is_active = false, updated_at = now()
    WHERE provider_code IS NOT NULL AND is_active AND NOT (provider_code = ANY (@keep_brands::text[]))
    RETURNING code
)
SELECT (SELECT count(*) FROM gone)::bigint AS rewards, (SELECT count(*) FROM gone_brands)::bigint AS brands;

-- name: CatalogueAddCode :batchexec
-- One code of a pool (sent in a pipelined batch); a code already in the pool is ignored.
INSERT INTO catalogue_codes (reward_id, code_hash, code, pin, expiry)
VALUES (@reward_id, @code_hash, @code, sqlc.narg(pin), sqlc.narg(expiry))
ON CONFLICT (reward_id, code_hash) DO NOTHING;

-- name: CatalogueFreeCodes :one
SELECT count(*) FROM catalogue_codes WHERE reward_id = $1 AND order_id IS NULL;

-- name: CatalogueFreeCodesOf :many
-- The free codes of the pool rewards among a page of rewards: coupons without a shared code, and
-- gift cards and credits the operator made (no provider product).
SELECT r.id AS reward_id, count(c.id) AS free
FROM catalogue_rewards r
LEFT JOIN catalogue_codes c ON c.reward_id = r.id AND c.order_id IS NULL
WHERE r.id = ANY (@ids::uuid[]) AND r.type <> 'PHYSICAL' AND r.shared_code IS NULL AND r.provider_product_id IS NULL
GROUP BY r.id;

-- name: CatalogueUpsertProduct :one
INSERT INTO catalogue_products (id, name, brand_name, category, image_url, hero_image_url, rating, mrp,
    listing_price, discounted_listing_price, max_coin_discount_bps, price_updated_at, is_active)
VALUES (@id, @name, @brand_name, @category, @image_url, @hero_image_url, @rating, @mrp, @listing_price,
    @discounted_listing_price, @max_coin_discount_bps, @price_updated_at, @is_active)
ON CONFLICT (id) DO UPDATE SET name = excluded.name, brand_name = excluded.brand_name,
    category = excluded.category, image_url = excluded.image_url, hero_image_url = excluded.hero_image_url,
    rating = excluded.rating, mrp = excluded.mrp, listing_price = excluded.listing_price,
    discounted_listing_price = excluded.discounted_listing_price,
    max_coin_discount_bps = excluded.max_coin_discount_bps, price_updated_at = excluded.price_updated_at,
    is_active = excluded.is_active, updated_at = now()
RETURNING (xmax = 0) AS created;

-- name: CatalogueGameReward :one
SELECT * FROM catalogue_game_rewards WHERE game_id = $1 AND reward_id = $2;

-- name: CatalogueSaveGameReward :exec
INSERT INTO catalogue_game_rewards (game_id, reward_id, hidden, coin_prices)
VALUES (@game_id, @reward_id, @hidden, @coin_prices)
ON CONFLICT (game_id, reward_id) DO UPDATE SET hidden = excluded.hidden, coin_prices = excluded.coin_prices,
    updated_at = now();

-- name: CatalogueGetVisibleWithCoin :one
-- One reward as a game's players see it (core/catalogue Visible), with the game's coin it is
-- priced in, in one round trip: a purchase the read model cannot plan; no row when either is
-- missing.
SELECT sqlc.embed(k), sqlc.embed(r), sqlc.embed(b), coalesce((gr.coin_prices ->> @coin_key::text)::bigint, 0)::bigint AS override
FROM coins k
JOIN catalogue_rewards r ON r.id = @id
JOIN catalogue_brands b ON b.code = r.brand_code
LEFT JOIN catalogue_game_rewards gr ON gr.game_id = @game_id AND gr.reward_id = r.id
WHERE k.id = @coin_id AND k.game_id = @game_id
  AND r.is_active AND b.is_active AND NOT coalesce(gr.hidden, false)
  AND (r.end_date IS NULL OR r.end_date > @now::timestamptz)
  AND (@country::text = '' OR ((cardinality(r.countries) = 0 OR @country = ANY (r.countries))
                              AND (cardinality(b.countries) = 0 OR @country = ANY (b.countries))));

-- name: CatalogueShortLink :one
WITH ins AS (
    INSERT INTO catalogue_short_links (code, player_id, reward_id) VALUES (@code, @player_id, @reward_id)
    ON CONFLICT (player_id, reward_id) DO NOTHING
    RETURNING code
)
SELECT code FROM ins
UNION ALL
SELECT code FROM catalogue_short_links WHERE player_id = @player_id AND reward_id = @reward_id
LIMIT 1;

-- name: CatalogueFollowLink :one
UPDATE catalogue_short_links l SET clicks = l.clicks + 1
FROM catalogue_rewards r JOIN catalogue_brands b ON b.code = r.brand_code
WHERE l.code = @code AND r.id = l.reward_id
RETURNING b.website_url;

-- name: CatalogueCountCodes :one
-- Every code of a pool, taken or not (codes are never deleted).
SELECT count(*) FROM catalogue_codes WHERE reward_id = $1;

-- name: CatalogueTakeCodes :many
-- Gives up to @n free codes of a pool to an order; codes other transactions are taking are
-- skipped, never waited for, so concurrent purchases each get different codes at once. The
-- codes are found first (an InitPlan) and then updated by their key, whatever the plan: as a
-- join (WHERE id IN), a generic plan costed for a parameter's LIMIT scans the whole table.
UPDATE catalogue_codes c SET order_id = @order_id, taken_at = now()
WHERE c.id = ANY (ARRAY(
    SELECT f.id FROM catalogue_codes f
    WHERE f.reward_id = @reward_id AND f.order_id IS NULL
    ORDER BY f.created_at, f.id
    LIMIT @n
    FOR UPDATE SKIP LOCKED
))
RETURNING c.code, c.pin, c.expiry;

-- name: CatalogueTakeCode :many
-- CatalogueTakeCodes of one code, a purchase's usual quantity. Its LIMIT is no parameter, so
-- PostgreSQL keeps its generic plan: with LIMIT @n it costs a generic plan for a tenth of the
-- pool, more than planning each take, and plans every take again (which cost more than the
-- take itself).
UPDATE catalogue_codes c SET order_id = @order_id, taken_at = now()
WHERE c.id = ANY (ARRAY(
    SELECT f.id FROM catalogue_codes f
    WHERE f.reward_id = @reward_id AND f.order_id IS NULL
    ORDER BY f.created_at, f.id
    LIMIT 1
    FOR UPDATE SKIP LOCKED
))
RETURNING c.code, c.pin, c.expiry;

-- name: CatalogueSharedCode :one
SELECT shared_code FROM catalogue_rewards WHERE id = $1 AND shared_code IS NOT NULL;

-- name: CatalogueRecordOrder :exec
INSERT INTO catalogue_reward_orders (reward_id, day, shard, orders) VALUES (@reward_id, @day, floor(random() * 64)::smallint, 1)
ON CONFLICT (reward_id, day, shard) DO UPDATE SET orders = catalogue_reward_orders.orders + 1;

-- name: CatalogueVersion :one
-- The catalogue's version (migration 00020): it moves with every change of what the read
-- model holds.
SELECT version FROM catalogue_version;

-- name: CatalogueChangesSince :many
-- The catalogue's steps after @after that the log still holds (migration 00024), in order.
SELECT version, kind, rewards FROM catalogue_changes WHERE version > @after::bigint ORDER BY version;

-- name: CatalogueSnapshotCategories :many
-- The read model's load (core/catalogue ReadModel), one statement per table in one
-- repeatable-read transaction, so that the version read with them labels exactly what they say.
SELECT * FROM catalogue_categories;

-- name: CatalogueSnapshotBrands :many
-- Active brands only: the rewards of others are seen by no one.
SELECT * FROM catalogue_brands WHERE is_active;

-- name: CatalogueSnapshotRewardCount :one
-- How many rewards CatalogueSnapshotRewards reads in all (in the load's repeatable-read
-- transaction, exactly): the load makes room for them at once.
SELECT count(*) FROM catalogue_rewards r
JOIN catalogue_brands b ON b.code = r.brand_code AND b.is_active
WHERE r.is_active;

-- name: CatalogueSnapshotRewards :many
-- Active rewards of active brands, without their sealed shared code or search columns; @lim of
-- them after @after, by id (the load reads them a slice at a time, so that it never holds every
-- row at once beside what it makes of them); with @ids, only those of them (a change of a few
-- rewards, loaded alone). Run with custom plans (customPlans), so that a null @ids drops
-- its condition and a given one is an index look-up.
SELECT r.id, r.type, r.brand_code, r.name, r.description, r.campaign_title, r.campaign_sub_title, r.campaign_details,
    r.terms_and_conditions, r.how_to_redeem, r.cover_image, r.assets, r.countries, r.end_date, r.is_active,
    r.value_type, r.denominations, r.min_face, r.max_face, r.discount_bps, r.min_selling, r.max_selling,
    r.purchase_cooldown, r.x_score, r.flag_allow_studio_edit_price, r.translations,
    (r.shared_code IS NOT NULL)::boolean AS has_shared_code, r.provider_product_id, r.created_at, r.updated_at
FROM catalogue_rewards r
JOIN catalogue_brands b ON b.code = r.brand_code AND b.is_active
WHERE r.is_active AND r.id > @after AND (sqlc.narg(ids)::uuid[] IS NULL OR r.id = ANY (sqlc.narg(ids)::uuid[]))
ORDER BY r.id
LIMIT @lim;

-- name: CatalogueSnapshotSearch :many
-- The search texts of the active rewards of active brands, as the read model's search matches
-- them: the search name (trigrams), the full text vector in its text form, and lower(name);
-- @lim of them after @after, by id, and with @ids only those of them, as
-- CatalogueSnapshotRewards.
SELECT r.id, r.search_name, r.search_tsv::text AS search_vector, lower(r.name)::text AS lower_name
FROM catalogue_rewards r
JOIN catalogue_brands b ON b.code = r.brand_code AND b.is_active
WHERE r.is_active AND r.id > @after AND (sqlc.narg(ids)::uuid[] IS NULL OR r.id = ANY (sqlc.narg(ids)::uuid[]))
ORDER BY r.id
LIMIT @lim;

-- name: CatalogueSnapshotNames :many
-- Every brand's and category's lower-case name, active or not (search filters by name).
SELECT 'brand'::text AS kind, code, lower(name)::text AS lower_name FROM catalogue_brands
UNION ALL
SELECT 'category'::text, code, lower(name)::text FROM catalogue_categories;

-- name: CatalogueSnapshotGameRewards :many
-- What each game changed of the rewards (hidden, coin prices), for the active rewards; with
-- @ids, of those of them alone (a change of a few rewards). Run with custom plans, as
-- CatalogueSnapshotRewards.
SELECT gr.game_id, gr.reward_id, gr.hidden, gr.coin_prices
FROM catalogue_game_rewards gr
JOIN catalogue_rewards r ON r.id = gr.reward_id AND r.is_active
WHERE sqlc.narg(ids)::uuid[] IS NULL OR gr.reward_id = ANY (sqlc.narg(ids)::uuid[]);

-- name: CatalogueOrderCounts :many
-- Successful orders per reward in the last 7 and 30 days (TRENDING, most-ordered), as the
-- listing statements count them.
SELECT reward_id,
    coalesce(sum(orders) FILTER (WHERE day > (@now::timestamptz)::date - 7), 0)::bigint AS orders_7d,
    coalesce(sum(orders), 0)::bigint AS orders_30d
FROM catalogue_reward_orders
WHERE day > (@now::timestamptz)::date - 30
GROUP BY reward_id;
