-- name: TouchpointsUpsertAsset :one
INSERT INTO touchpoint_assets (id, name, image_url, orientation, width, height)
VALUES (@id, @name, @image_url, @orientation, @width, @height)
ON CONFLICT (id) DO UPDATE SET name = excluded.name, image_url = excluded.image_url,
    orientation = excluded.orientation, width = excluded.width, height = excluded.height, updated_at = now()
RETURNING (xmax = 0) AS created;

-- name: TouchpointsListAssets :many
SELECT * FROM touchpoint_assets ORDER BY id;

-- name: TouchpointsGetAsset :one
SELECT * FROM touchpoint_assets WHERE id = $1;

-- name: TouchpointsGameExists :one
SELECT EXISTS (SELECT 1 FROM games WHERE id = $1);

-- name: TouchpointsLockGame :one
SELECT id FROM games WHERE id = $1 FOR UPDATE;

-- name: TouchpointsUpsertPlacement :one
INSERT INTO touchpoint_placements (game_id, environment, id, screen, type, asset_source, preset_id,
    image_url, orientation, width, height, reward_id, product_id, has_rule, rule_category, rule_brand,
    rule_sort, is_active)
VALUES (@game_id, @environment, @id, @screen, @type, @asset_source, sqlc.narg(preset_id),
    @image_url, @orientation, @width, @height, sqlc.narg(reward_id), sqlc.narg(product_id), @has_rule,
    @rule_category, @rule_brand, @rule_sort, @is_active)
ON CONFLICT (game_id, environment, id) DO UPDATE SET screen = excluded.screen, type = excluded.type,
    asset_source = excluded.asset_source, preset_id = excluded.preset_id, image_url = excluded.image_url,
    orientation = excluded.orientation, width = excluded.width, height = excluded.height,
    reward_id = excluded.reward_id, product_id = excluded.product_id, has_rule = excluded.has_rule,
    rule_category = excluded.rule_category, rule_brand = excluded.rule_brand, rule_sort = excluded.rule_sort,
    is_active = excluded.is_active, updated_at = now()
RETURNING (xmax = 0) AS created, updated_at;

-- name: TouchpointsListPlacements :many
-- A game's placements of one environment, PRESET frames read from the library; @screen = ''
-- lists every screen, else only that screen's active placements (serving).
SELECT p.id, p.screen, p.type, p.asset_source, coalesce(p.preset_id, '')::text AS preset_id,
       coalesce(a.image_url, p.image_url)::text AS image_url,
       coalesce(a.orientation, p.orientation)::text AS orientation,
       coalesce(a.width, p.width)::integer AS width, coalesce(a.height, p.height)::integer AS height,
       p.reward_id, p.product_id, p.has_rule, p.rule_category, p.rule_brand, p.rule_sort, p.is_active,
       p.updated_at
FROM touchpoint_placements p
LEFT JOIN touchpoint_assets a ON a.id = p.preset_id
WHERE p.game_id = @game_id AND p.environment = @environment
  AND (@screen::text = '' OR (p.screen = @screen AND p.is_active))
ORDER BY p.screen, p.type, p.id;

-- name: TouchpointsDeleteLivePlacements :exec
DELETE FROM touchpoint_placements WHERE game_id = $1 AND environment = 'live';

-- name: TouchpointsCopyTestPlacements :execrows
-- Go-live: the test placements, copied to live (after TouchpointsDeleteLivePlacements).
INSERT INTO touchpoint_placements (game_id, environment, id, screen, type, asset_source, preset_id,
    image_url, orientation, width, height, reward_id, product_id, has_rule, rule_category, rule_brand,
    rule_sort, is_active)
SELECT t.game_id, 'live', t.id, t.screen, t.type, t.asset_source, t.preset_id, t.image_url, t.orientation,
    t.width, t.height, t.reward_id, t.product_id, t.has_rule, t.rule_category, t.rule_brand, t.rule_sort, t.is_active
FROM touchpoint_placements t WHERE t.game_id = @game_id AND t.environment = 'test';

-- name: TouchpointsSetCoin :exec
INSERT INTO touchpoint_game_coins (game_id, coin_id) VALUES (@game_id, @coin_id)
ON CONFLICT (game_id) DO UPDATE SET coin_id = excluded.coin_id, updated_at = now();

-- name: TouchpointsGameContext :one
-- What serving needs of the game: its store address, its touchpoint coin (the one set, else its
-- oldest; NULL columns when it has none) and the player's balance of it.
SELECT g.store_url, c.id AS coin_id, c.name AS coin_name, c.image_url AS coin_image_url,
       c.coins_per_unit, b.balance
FROM games g
LEFT JOIN coins c ON c.id = coalesce(
    (SELECT tc.coin_id FROM touchpoint_game_coins tc WHERE tc.game_id = g.id),
    (SELECT c2.id FROM coins c2 WHERE c2.game_id = g.id ORDER BY c2.created_at, c2.id LIMIT 1))
LEFT JOIN balances b ON b.coin_id = c.id AND b.player_id = sqlc.narg(player_id)::uuid
WHERE g.id = @game_id;

-- name: TouchpointsCoin :one
-- A coin of the game and the player's balance of it (NULL without a player or a balance row).
SELECT c.id, c.name, c.image_url, c.coins_per_unit, b.balance
FROM coins c
LEFT JOIN balances b ON b.coin_id = c.id AND b.player_id = sqlc.narg(player_id)::uuid
WHERE c.id = @coin_id AND c.game_id = @game_id;

-- name: TouchpointsRewards :many
-- Rewards by id as the game sees them, with only the columns touchpoints show (no search text,
-- translations or assets: reading and decoding them was a fifth of a tree's cost): hidden, the game's coin price for @coin_id (0 when none),
-- and the free codes of a coupon with a pool (-1 when it has none: unlimited or provider stock).
-- The brand and the game's row are looked up per reward (OFFSET 0 keeps the planner from
-- flattening the subqueries): as plain joins, the plan hashed every brand and every row of the
-- game for a handful of rewards (EXPLAIN ANALYZE on the benchmark's catalogue: 0.38 ms for one
-- reward, 0.82 ms for ten; now 0.16 and 0.32 ms).
SELECT r.id, r.type, r.brand_code, r.name, r.campaign_title, r.campaign_sub_title, r.campaign_details,
       r.terms_and_conditions, r.how_to_redeem, r.cover_image, r.end_date, r.is_active, r.value_type,
       r.denominations, r.min_face, r.max_face, r.discount_bps, r.min_selling, r.max_selling, r.x_score,
       r.created_at, (r.shared_code IS NOT NULL)::boolean AS has_shared_code, r.provider_product_id,
       b.name AS brand_name, b.logo_url AS brand_logo_url, b.website_url AS brand_website_url,
       b.issuer AS brand_issuer, b.categories AS brand_categories, b.is_active AS brand_is_active,
       coalesce(gr.hidden, false)::boolean AS hidden,
       coalesce((gr.coin_prices ->> @coin_id::text)::bigint, 0)::bigint AS override,
       (CASE WHEN r.type <> 'PHYSICAL' AND r.shared_code IS NULL AND r.provider_product_id IS NULL
             THEN (SELECT count(*) FROM catalogue_codes cc WHERE cc.reward_id = r.id AND cc.order_id IS NULL)
             ELSE -1 END)::bigint AS free
FROM catalogue_rewards r
JOIN LATERAL (SELECT b.* FROM catalogue_brands b WHERE b.code = r.brand_code OFFSET 0) b ON true
LEFT JOIN LATERAL (SELECT gr.* FROM catalogue_game_rewards gr WHERE gr.game_id = @game_id AND gr.reward_id = r.id OFFSET 0) gr ON true
WHERE r.id = ANY (@ids::uuid[]);

-- name: TouchpointsBestRewards :many
-- The best rewards the game's players see by a rule, in stock when @in_stock (a coupon with a
-- pool needs a free code). With custom plans the CASE keys of other orders fold to constants,
-- so the DEFAULT order walks catalogue_rewards_listing_idx and stops at @lim.
SELECT r.id, r.type, r.brand_code, r.name, r.campaign_title, r.campaign_sub_title, r.campaign_details,
       r.terms_and_conditions, r.how_to_redeem, r.cover_image, r.end_date, r.is_active, r.value_type,
       r.denominations, r.min_face, r.max_face, r.discount_bps, r.min_selling, r.max_selling, r.x_score,
       r.created_at, (r.shared_code IS NOT NULL)::boolean AS has_shared_code, r.provider_product_id,
       b.name AS brand_name, b.logo_url AS brand_logo_url, b.website_url AS brand_website_url,
       b.issuer AS brand_issuer, b.categories AS brand_categories, b.is_active AS brand_is_active,
       false::boolean AS hidden,
       coalesce((gr.coin_prices ->> @coin_id::text)::bigint, 0)::bigint AS override,
       (CASE WHEN r.type <> 'PHYSICAL' AND r.shared_code IS NULL AND r.provider_product_id IS NULL
             THEN (SELECT count(*) FROM catalogue_codes cc WHERE cc.reward_id = r.id AND cc.order_id IS NULL)
             ELSE -1 END)::bigint AS free
FROM catalogue_rewards r
JOIN catalogue_brands b ON b.code = r.brand_code
LEFT JOIN catalogue_game_rewards gr ON gr.game_id = @game_id AND gr.reward_id = r.id
WHERE r.is_active AND b.is_active AND NOT coalesce(gr.hidden, false)
  AND (r.end_date IS NULL OR r.end_date > @now::timestamptz)
  AND (@type::text = '' OR r.type = @type)
  AND (@category::text = '' OR @category = ANY (b.categories))
  AND (@brand::text = '' OR r.brand_code = @brand)
  -- A scalar subquery, not EXISTS: PostgreSQL may turn an EXISTS under OR into a hashed
  -- subplan that reads every free code of the catalogue (5 ms on the benchmark's) before the
  -- first row; this one runs per row, only for the pool coupons the index walk reaches.
  AND (NOT @in_stock::boolean OR r.type = 'PHYSICAL' OR r.shared_code IS NOT NULL OR r.provider_product_id IS NOT NULL
       OR (SELECT 1 FROM catalogue_codes cc WHERE cc.reward_id = r.id AND cc.order_id IS NULL LIMIT 1) IS NOT NULL)
ORDER BY
    CASE WHEN @ord::text = 'NEWEST' THEN r.created_at END DESC,
    CASE WHEN @ord::text = 'PRICE_LOW_HIGH' THEN r.min_selling END ASC,
    CASE WHEN @ord::text = 'PRICE_HIGH_LOW' THEN r.min_selling END DESC,
    CASE WHEN @ord::text = 'DISCOUNT' THEN r.discount_bps END DESC,
    r.x_score DESC, r.created_at DESC, r.id
LIMIT @lim;

-- name: TouchpointsProducts :many
SELECT * FROM catalogue_products WHERE id = ANY (@ids::text[]);

-- name: TouchpointsBestProducts :many
-- The best active products by a rule. DEFAULT: best rated first.
SELECT * FROM catalogue_products p
WHERE p.is_active
  AND (@category::text = '' OR p.category = @category)
  AND (@brand::text = '' OR p.brand_name = @brand)
ORDER BY
    CASE WHEN @ord::text = 'NEWEST' THEN p.created_at END DESC,
    CASE WHEN @ord::text = 'PRICE_LOW_HIGH' THEN p.discounted_listing_price END ASC,
    CASE WHEN @ord::text = 'PRICE_HIGH_LOW' THEN p.discounted_listing_price END DESC,
    CASE WHEN @ord::text = 'DISCOUNT' THEN (p.mrp - p.discounted_listing_price)::float8 / greatest(p.mrp, 1) END DESC,
    p.rating DESC, p.created_at DESC, p.id
LIMIT @lim;

-- name: TouchpointsExistingRewards :many
SELECT id, type FROM catalogue_rewards WHERE id = ANY (@ids::uuid[]);

-- name: TouchpointsExistingProducts :many
SELECT id FROM catalogue_products WHERE id = ANY (@ids::text[]);

-- name: TouchpointsUpsertTree :one
INSERT INTO touchpoint_trees (game_id, name, nodes, served_size) VALUES (@game_id, @name, @nodes, @served_size)
ON CONFLICT (game_id, name) DO UPDATE SET nodes = excluded.nodes, served_size = excluded.served_size, updated_at = now()
RETURNING id, updated_at, (xmax = 0) AS created;

-- name: TouchpointsDeleteTree :execrows
DELETE FROM touchpoint_trees WHERE game_id = @game_id AND name = @name;

-- name: TouchpointsTreeByName :one
SELECT * FROM touchpoint_trees WHERE game_id = @game_id AND name = @name;

-- name: TouchpointsTreeByID :one
SELECT * FROM touchpoint_trees WHERE game_id = @game_id AND id = @id;

-- name: TouchpointsTreeSizes :many
-- The first @lim trees of the game in list order, without their nodes (what paging reads), and
-- how many trees the game has.
SELECT id, name, served_size, count(*) OVER () AS total
FROM touchpoint_trees WHERE game_id = @game_id ORDER BY name, id LIMIT @lim;

-- name: TouchpointsTreesByID :many
-- The game's trees of @ids, in list order.
SELECT * FROM touchpoint_trees WHERE game_id = @game_id AND id = ANY (@ids::uuid[]) ORDER BY name, id;

-- name: TouchpointsTreeAndCoinByName :one
-- What reading a tree by name needs, in one statement (one round trip): the coin coin_id of the
-- game with the player's balance (NULL columns when coin_id is NULL or not a coin of the game)
-- and the tree (NULL columns when there is none). The nodes come only when the tree is not the
-- version the caller has decoded already (known_id, known_updated_at): a stored tree is
-- kilobytes of (compressed) JSON that the database would read and send on every call.
SELECT c.id AS coin_id, c.name AS coin_name, c.image_url AS coin_image_url, c.coins_per_unit, b.balance,
       t.id AS tree_id, t.name AS tree_name, t.updated_at AS tree_updated_at, t.served_size AS tree_served_size,
       (CASE WHEN t.id = sqlc.narg(known_id)::uuid AND t.updated_at = sqlc.narg(known_updated_at)::timestamptz
             THEN NULL ELSE t.nodes END)::jsonb AS nodes
FROM (VALUES (1)) AS one (x)
LEFT JOIN coins c ON c.id = sqlc.narg(coin_id)::uuid AND c.game_id = @game_id::uuid
LEFT JOIN balances b ON b.coin_id = c.id AND b.player_id = sqlc.narg(player_id)::uuid
LEFT JOIN touchpoint_trees t ON t.game_id = @game_id::uuid AND t.name = @name::text;

-- name: TouchpointsTreeAndCoinByID :one
-- TouchpointsTreeAndCoinByName for a tree named by id.
SELECT c.id AS coin_id, c.name AS coin_name, c.image_url AS coin_image_url, c.coins_per_unit, b.balance,
       t.id AS tree_id, t.name AS tree_name, t.updated_at AS tree_updated_at, t.served_size AS tree_served_size,
       (CASE WHEN t.id = sqlc.narg(known_id)::uuid AND t.updated_at = sqlc.narg(known_updated_at)::timestamptz
             THEN NULL ELSE t.nodes END)::jsonb AS nodes
FROM (VALUES (1)) AS one (x)
LEFT JOIN coins c ON c.id = sqlc.narg(coin_id)::uuid AND c.game_id = @game_id::uuid
LEFT JOIN balances b ON b.coin_id = c.id AND b.player_id = sqlc.narg(player_id)::uuid
LEFT JOIN touchpoint_trees t ON t.game_id = @game_id::uuid AND t.id = @id::uuid;
