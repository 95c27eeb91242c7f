package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/catalogue"
)

// The store's listing and search rules stated in SQL: the reference the storage tests hold the
// catalogue's read model to (the same rewards, order, totals and relevance), and the statements
// the store benchmark (e2e/load) runs with pgbench beside the service. The service never runs
// them: the read model is the one implementation of what players see. Full text is PostgreSQL's
// ('simple' configuration, every word a prefix, ts_rank), typos pg_trgm's word similarity, the
// rule core/catalogue's textmatch.go states.

// CatalogueReference runs the reference statements.
type CatalogueReference struct{ db db.DBTX }

// NewCatalogueReference returns the reference statements on d.
func NewCatalogueReference(d db.DBTX) CatalogueReference { return CatalogueReference{d} }

// catalogueListVisible: the rewards a game's players see (catalogue.Visible), filtered,
// optionally one per brand (the largest discount), priced in one coin and sorted as
// catalogue.Compare says; the page is chosen on the narrow rows, then joined to the full records.
const catalogueListVisible = `
WITH v AS (
    SELECT r.id, r.discount_bps, r.x_score, r.created_at,
           coalesce((gr.coin_prices ->> $2::text)::bigint, 0)::bigint AS override,
           coalesce((gr.coin_prices ->> $2::text)::bigint, ceil(r.min_selling * $3::bigint / 100.0)::bigint) AS coin_price,
           CASE WHEN $4::boolean THEN row_number() OVER (PARTITION BY r.brand_code
               ORDER BY r.discount_bps DESC, r.x_score DESC, r.created_at DESC, r.id) ELSE 1 END AS brand_rank
    FROM catalogue_rewards r
    JOIN catalogue_brands b ON b.code = r.brand_code
    LEFT JOIN catalogue_game_rewards gr ON gr.game_id = $5 AND gr.reward_id = r.id
    WHERE r.is_active AND b.is_active AND NOT coalesce(gr.hidden, false)
      AND (r.end_date IS NULL OR r.end_date > $6::timestamptz)
      AND ($7::text = '' OR ((cardinality(r.countries) = 0 OR $7 = ANY (r.countries))
                                  AND (cardinality(b.countries) = 0 OR $7 = ANY (b.countries))))
      AND ($8::text = '' OR $8 = ANY (b.categories))
      AND ($9::text = '' OR r.brand_code = $9)
      AND ($10::boolean IS NULL OR (r.type = 'GIFT_CARD') = $10)
      AND (cardinality($11::uuid[]) = 0 OR r.id = ANY ($11::uuid[]))
), k AS (
    SELECT v.id, v.override, v.discount_bps, v.x_score, v.created_at,
           coalesce(o.orders, 0)::bigint AS orders_7d, v.coin_price
    FROM v
    LEFT JOIN (SELECT ro.reward_id, sum(ro.orders) AS orders FROM catalogue_reward_orders ro
               WHERE $1::text = 'TRENDING' AND ro.day > ($6::timestamptz)::date - 7
               GROUP BY ro.reward_id) o ON o.reward_id = v.id
    WHERE v.brand_rank = 1
), page AS (
    SELECT k.id, k.override, k.discount_bps, k.x_score, k.created_at, k.orders_7d, k.coin_price, count(*) OVER () AS total FROM k
    ORDER BY
        CASE WHEN $1::text = 'NEWEST' THEN k.created_at END DESC,
        CASE WHEN $1::text = 'TRENDING' THEN k.orders_7d END DESC,
        CASE WHEN $1::text = 'PRICE_LOW_HIGH' THEN k.coin_price END ASC,
        CASE WHEN $1::text = 'PRICE_HIGH_LOW' THEN k.coin_price END DESC,
        CASE WHEN $1::text = 'DISCOUNT' THEN k.discount_bps END DESC,
        k.x_score DESC, k.created_at DESC, k.id
    LIMIT $13 OFFSET $12
)
SELECT r.*, b.*, p.override, p.total, p.orders_7d
FROM page p
JOIN catalogue_rewards r ON r.id = p.id
JOIN catalogue_brands b ON b.code = r.brand_code
ORDER BY
    CASE WHEN $1::text = 'NEWEST' THEN p.created_at END DESC,
    CASE WHEN $1::text = 'TRENDING' THEN p.orders_7d END DESC,
    CASE WHEN $1::text = 'PRICE_LOW_HIGH' THEN p.coin_price END ASC,
    CASE WHEN $1::text = 'PRICE_HIGH_LOW' THEN p.coin_price END DESC,
    CASE WHEN $1::text = 'DISCOUNT' THEN p.discount_bps END DESC,
    p.x_score DESC, p.created_at DESC, p.id`

// catalogueSearch: the visible rewards matching a search: full text (every word as a prefix,
// $6) over names (weight A) and descriptions and categories (weight B); or, with $5 (the second
// try when full text found nothing: a typo), trigram word similarity of the query to the names.
// Relevance ranks an exact name first, then names, then descriptions (or the closest names).
// Brand and category filters name codes or names; when none of them is known the filter is
// ignored.
const catalogueSearch = `
WITH v AS (
    SELECT r.id, r.discount_bps, r.x_score, r.created_at, r.value_type, r.type,
           coalesce((gr.coin_prices ->> $2::text)::bigint, 0)::bigint AS override,
           coalesce((gr.coin_prices ->> $2::text)::bigint, ceil(r.min_selling * $3::bigint / 100.0)::bigint) AS coin_price,
           (CASE WHEN lower(r.name) = $4::text OR lower(b.name) = $4::text THEN 2 ELSE 0 END
            + CASE WHEN $5::boolean THEN word_similarity($4::text, r.search_name)
                   ELSE ts_rank(r.search_tsv, to_tsquery('simple', $6::text)) END)::float8 AS relevance
    FROM catalogue_rewards r
    JOIN catalogue_brands b ON b.code = r.brand_code
    LEFT JOIN catalogue_game_rewards gr ON gr.game_id = $7 AND gr.reward_id = r.id
    WHERE r.is_active AND b.is_active AND NOT coalesce(gr.hidden, false)
      AND (r.end_date IS NULL OR r.end_date > $8::timestamptz)
      AND ($9::text = '' OR ((cardinality(r.countries) = 0 OR $9 = ANY (r.countries))
                                  AND (cardinality(b.countries) = 0 OR $9 = ANY (b.countries))))
      AND CASE WHEN $5::boolean THEN $4::text <% r.search_name
               ELSE r.search_tsv @@ to_tsquery('simple', $6::text) END
      AND (NOT EXISTS (SELECT 1 FROM catalogue_brands kb WHERE kb.code = ANY ($10::text[]) OR lower(kb.name) = ANY ($11::text[]))
           OR b.code = ANY ($10::text[]) OR lower(b.name) = ANY ($11::text[]))
      AND (NOT EXISTS (SELECT 1 FROM catalogue_categories kc WHERE kc.code = ANY ($12::text[]) OR lower(kc.name) = ANY ($13::text[]))
           OR EXISTS (SELECT 1 FROM catalogue_categories c WHERE c.code = ANY (b.categories)
                      AND (c.code = ANY ($12::text[]) OR lower(c.name) = ANY ($13::text[]))))
), k AS (
    SELECT v.id, v.override, v.discount_bps, v.x_score, v.created_at, v.relevance,
           CASE WHEN v.type IN ('GIFT_CARD', 'DIGITAL_CREDIT') AND v.value_type = 'RANGE' THEN 1 ELSE 0 END AS mode_rank,
           coalesce(o.orders, 0)::bigint AS orders_30d, v.coin_price
    FROM v
    LEFT JOIN (SELECT ro.reward_id, sum(ro.orders) AS orders FROM catalogue_reward_orders ro
               WHERE $1::text = 'MOST_ORDERED' AND ro.day > ($8::timestamptz)::date - 30
               GROUP BY ro.reward_id) o ON o.reward_id = v.id
), page AS (
    SELECT k.id, k.override, k.discount_bps, k.x_score, k.created_at, k.relevance, k.mode_rank, k.orders_30d, k.coin_price, count(*) OVER () AS total FROM k
    ORDER BY
        CASE WHEN $1::text = 'RELEVANCE' THEN k.relevance END DESC,
        CASE WHEN $1::text = 'PRICING_MODE' THEN k.mode_rank END ASC,
        CASE WHEN $1::text = 'PRICING_MODE' THEN k.relevance END DESC,
        CASE WHEN $1::text = 'NEWEST' THEN k.created_at END DESC,
        CASE WHEN $1::text = 'MOST_ORDERED' THEN k.orders_30d END DESC,
        CASE WHEN $1::text = 'PRICE_LOW_HIGH' THEN k.coin_price END ASC,
        CASE WHEN $1::text = 'PRICE_HIGH_LOW' THEN k.coin_price END DESC,
        CASE WHEN $1::text = 'DISCOUNT' THEN k.discount_bps END DESC,
        k.x_score DESC, k.created_at DESC, k.id
    LIMIT $15 OFFSET $14
)
SELECT r.*, b.*, p.override, p.total, p.orders_30d, p.relevance
FROM page p
JOIN catalogue_rewards r ON r.id = p.id
JOIN catalogue_brands b ON b.code = r.brand_code
ORDER BY
    CASE WHEN $1::text = 'RELEVANCE' THEN p.relevance END DESC,
    CASE WHEN $1::text = 'PRICING_MODE' THEN p.mode_rank END ASC,
    CASE WHEN $1::text = 'PRICING_MODE' THEN p.relevance END DESC,
    CASE WHEN $1::text = 'NEWEST' THEN p.created_at END DESC,
    CASE WHEN $1::text = 'MOST_ORDERED' THEN p.orders_30d END DESC,
    CASE WHEN $1::text = 'PRICE_LOW_HIGH' THEN p.coin_price END ASC,
    CASE WHEN $1::text = 'PRICE_HIGH_LOW' THEN p.coin_price END DESC,
    CASE WHEN $1::text = 'DISCOUNT' THEN p.discount_bps END DESC,
    p.x_score DESC, p.created_at DESC, p.id`

// catalogueGetVisible: one reward as a game's players see it.
const catalogueGetVisible = `
SELECT r.*, b.*, coalesce((gr.coin_prices ->> $1::text)::bigint, 0)::bigint AS override
FROM catalogue_rewards r
JOIN catalogue_brands b ON b.code = r.brand_code
LEFT JOIN catalogue_game_rewards gr ON gr.game_id = $2 AND gr.reward_id = r.id
WHERE r.id = $3 AND r.is_active AND b.is_active AND NOT coalesce(gr.hidden, false)
  AND (r.end_date IS NULL OR r.end_date > $4::timestamptz)
  AND ($5::text = '' OR ((cardinality(r.countries) = 0 OR $5 = ANY (r.countries))
                              AND (cardinality(b.countries) = 0 OR $5 = ANY (b.countries))))`

// catalogueBrands: brands with the number of rewards the game's players see, by name; with a
// search ($5), those whose names it begins or is like, most similar first.
const catalogueBrands = `
SELECT b.*, count(r.id) AS reward_count
FROM catalogue_brands b
JOIN catalogue_rewards r ON r.brand_code = b.code
LEFT JOIN catalogue_game_rewards gr ON gr.game_id = $1 AND gr.reward_id = r.id
WHERE b.is_active AND r.is_active AND NOT coalesce(gr.hidden, false)
  AND (r.end_date IS NULL OR r.end_date > $2::timestamptz)
  AND ($3::boolean IS NULL OR (r.type = 'GIFT_CARD') = $3)
  AND ($4::text = '' OR $4 = ANY (b.categories))
  AND ($5::text = '' OR lower(b.name) LIKE replace(replace(replace($5, '\', '\\'), '%', '\%'), '_', '\_') || '%' OR lower(b.name) % $5 OR $5 <% lower(b.name))
GROUP BY b.code
ORDER BY CASE WHEN $5::text = '' THEN 0 ELSE similarity(lower(b.name), $5) END DESC, b.name, b.code
LIMIT $6`

// catalogueCategories: categories with the number of rewards the game's players see, in
// display order; with a search ($3), those whose names it begins or is like, most similar first.
const catalogueCategories = `
SELECT c.*, count(DISTINCT r.id) AS reward_count
FROM catalogue_categories c
JOIN catalogue_brands b ON c.code = ANY (b.categories) AND b.is_active
JOIN catalogue_rewards r ON r.brand_code = b.code AND r.is_active
LEFT JOIN catalogue_game_rewards gr ON gr.game_id = $1 AND gr.reward_id = r.id
WHERE NOT coalesce(gr.hidden, false) AND (r.end_date IS NULL OR r.end_date > $2::timestamptz)
  AND ($3::text = '' OR lower(c.name) LIKE replace(replace(replace($3, '\', '\\'), '%', '\%'), '_', '\_') || '%' OR lower(c.name) % $3 OR $3 <% lower(c.name))
GROUP BY c.code
ORDER BY CASE WHEN $3::text = '' THEN 0 ELSE similarity(lower(c.name), $3) END DESC, c.display_order, c.name, c.code
LIMIT $4`

// The statements' parameters, by the names the store benchmark passes them as.
type (
	listVisibleParams struct {
		Ord          string
		CoinID       string
		CoinsPerUnit int64
		Dedupe       bool
		GameID       uuid.UUID
		Now          time.Time
		Country      string
		Category     string
		Brand        string
		GiftCard     *bool
		RewardIds    []uuid.UUID
		Off, Lim     int32
	}
	searchParams struct {
		Ord                         string
		CoinID                      string
		CoinsPerUnit                int64
		Q                           string
		Fuzzy                       bool
		Tsq                         string
		GameID                      uuid.UUID
		Now                         time.Time
		Country                     string
		Brands, BrandsLower         []string
		Categories, CategoriesLower []string
		Off, Lim                    int32
	}
	getVisibleParams struct {
		CoinID  string
		GameID  uuid.UUID
		ID      uuid.UUID
		Now     time.Time
		Country string
	}
	namesParams struct {
		GameID   uuid.UUID
		Now      time.Time
		GiftCard *bool
		Category string
		Q        string
		Lim      int32
	}
)

// listedRow is a row of catalogueListVisible (Orders: in 7 days), catalogueSearch (in 30 days,
// and Relevance) or catalogueGetVisible (reward, brand and override alone).
type listedRow struct {
	db.CatalogueReward
	db.CatalogueBrand
	Override int64
	Total    int64
	Orders   int64
}

type searchedRow struct {
	listedRow
	Relevance float64
}

type visibleRow struct {
	db.CatalogueReward
	db.CatalogueBrand
	Override int64
}

func (r listedRow) listed() catalogue.Listed {
	return catalogue.Listed{Reward: toCoreReward(r.CatalogueReward), Brand: toCoreBrand(r.CatalogueBrand), Override: override(r.Override)}
}

// ListVisible returns a page of the rewards q's game's players see, in q's order, and the total.
func (c CatalogueReference) ListVisible(ctx context.Context, q catalogue.ListQuery) ([]catalogue.Listed, int64, error) {
	ids := q.RewardIDs
	if ids == nil {
		ids = []uuid.UUID{}
	}
	arg := listVisibleParams{Ord: string(q.Order), CoinID: q.CoinID.String(), CoinsPerUnit: q.CoinsPerUnit, Dedupe: q.Dedupe,
		GameID: q.GameID, Now: q.Now, Country: q.Country, Category: q.Category, Brand: q.Brand, GiftCard: q.GiftCard,
		RewardIds: ids, Off: int32(q.Offset), Lim: int32(q.Limit)}
	rows, err := c.db.Query(ctx, catalogueListVisible, arg.Ord, arg.CoinID, arg.CoinsPerUnit, arg.Dedupe, arg.GameID, arg.Now,
		arg.Country, arg.Category, arg.Brand, arg.GiftCard, arg.RewardIds, arg.Off, arg.Lim)
	if err != nil {
		return nil, 0, fmt.Errorf("list rewards: %w", err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByPos[listedRow])
	if err != nil {
		return nil, 0, fmt.Errorf("list rewards: %w", err)
	}
	out := make([]catalogue.Listed, len(found))
	var total int64
	for i, row := range found {
		out[i] = row.listed()
		out[i].Orders7d, total = row.Orders, row.Total
	}
	return out, total, nil
}

// tsQuery turns what a player typed into a prefix query over its words: "amaz gift" becomes
// "amaz:* & gift:*". Anything but letters and digits separates words, so nothing typed can
// break the query syntax.
func tsQuery(text string) string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range words {
		words[i] = w + ":*"
	}
	return strings.Join(words, " & ")
}

func lowerAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strings.ToLower(s)
	}
	return out
}

// Search returns a page of the visible rewards matching q.Text, and the total: full text
// first; only when it finds nothing at all is the text taken for a typo and matched by trigram
// word similarity.
func (c CatalogueReference) Search(ctx context.Context, q catalogue.SearchQuery) ([]catalogue.Listed, int64, error) {
	text := strings.ToLower(strings.TrimSpace(q.Text))
	arg := searchParams{Ord: string(q.Order), CoinID: q.CoinID.String(), CoinsPerUnit: q.CoinsPerUnit, Q: text, Tsq: tsQuery(text),
		GameID: q.GameID, Now: q.Now, Country: q.Country, Brands: stringsOrEmpty(q.Brands), BrandsLower: lowerAll(q.Brands),
		Categories: stringsOrEmpty(q.Categories), CategoriesLower: lowerAll(q.Categories), Off: int32(q.Offset), Lim: int32(q.Limit)}
	search := func(arg searchParams) ([]searchedRow, error) {
		rows, err := c.db.Query(ctx, catalogueSearch, arg.Ord, arg.CoinID, arg.CoinsPerUnit, arg.Q, arg.Fuzzy, arg.Tsq, arg.GameID,
			arg.Now, arg.Country, arg.Brands, arg.BrandsLower, arg.Categories, arg.CategoriesLower, arg.Off, arg.Lim)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, pgx.RowToStructByPos[searchedRow])
	}
	arg.Fuzzy = arg.Tsq == ""
	found, err := search(arg)
	if err == nil && len(found) == 0 && !arg.Fuzzy {
		if arg.Off > 0 { // past the end, or nothing at all?
			first := arg
			first.Off, first.Lim = 0, 1
			var some []searchedRow
			some, err = search(first)
			arg.Fuzzy = err == nil && len(some) == 0
		} else {
			arg.Fuzzy = true
		}
		if arg.Fuzzy {
			found, err = search(arg)
		}
	}
	if err != nil {
		return nil, 0, fmt.Errorf("search rewards: %w", err)
	}
	out := make([]catalogue.Listed, len(found))
	var total int64
	for i, row := range found {
		out[i] = row.listed()
		out[i].Orders30d, out[i].Relevance, total = row.Orders, row.Relevance, row.Total
	}
	return out, total, nil
}

// GetVisible returns one reward as the game's players see it, or catalogue.ErrRewardNotFound.
func (c CatalogueReference) GetVisible(ctx context.Context, q catalogue.ListQuery, id uuid.UUID) (catalogue.Listed, error) {
	arg := getVisibleParams{CoinID: q.CoinID.String(), GameID: q.GameID, ID: id, Now: q.Now, Country: q.Country}
	rows, err := c.db.Query(ctx, catalogueGetVisible, arg.CoinID, arg.GameID, arg.ID, arg.Now, arg.Country)
	if err != nil {
		return catalogue.Listed{}, fmt.Errorf("get reward %s: %w", id, err)
	}
	row, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByPos[visibleRow])
	if isNoRows(err) {
		return catalogue.Listed{}, catalogue.ErrRewardNotFound
	}
	if err != nil {
		return catalogue.Listed{}, fmt.Errorf("get reward %s: %w", id, err)
	}
	return listedRow{CatalogueReward: row.CatalogueReward, CatalogueBrand: row.CatalogueBrand, Override: row.Override}.listed(), nil
}

// allRows bounds the metadata lists, which hold every brand or category with visible rewards.
const allRows = 10_000

func (c CatalogueReference) brands(ctx context.Context, arg namesParams) ([]catalogue.BrandMeta, error) {
	rows, err := c.db.Query(ctx, catalogueBrands, arg.GameID, arg.Now, arg.GiftCard, arg.Category, arg.Q, arg.Lim)
	if err != nil {
		return nil, fmt.Errorf("list brands: %w", err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
		db.CatalogueBrand
		RewardCount int64
	}])
	if err != nil {
		return nil, fmt.Errorf("list brands: %w", err)
	}
	out := make([]catalogue.BrandMeta, len(found))
	for i, row := range found {
		out[i] = catalogue.BrandMeta{Brand: toCoreBrand(row.CatalogueBrand), RewardCount: row.RewardCount}
	}
	return out, nil
}

func (c CatalogueReference) categories(ctx context.Context, arg namesParams) ([]catalogue.CategoryMeta, error) {
	rows, err := c.db.Query(ctx, catalogueCategories, arg.GameID, arg.Now, arg.Q, arg.Lim)
	if err != nil {
		return nil, fmt.Errorf("list categories: %w", err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
		db.CatalogueCategory
		RewardCount int64
	}])
	if err != nil {
		return nil, fmt.Errorf("list categories: %w", err)
	}
	out := make([]catalogue.CategoryMeta, len(found))
	for i, row := range found {
		out[i] = catalogue.CategoryMeta{Category: toCoreCategory(row.CatalogueCategory), RewardCount: row.RewardCount}
	}
	return out, nil
}

// Brands returns the brands with rewards the game's players see, by name.
func (c CatalogueReference) Brands(ctx context.Context, gameID uuid.UUID, giftCard *bool, category string, now time.Time) ([]catalogue.BrandMeta, error) {
	return c.brands(ctx, namesParams{GameID: gameID, Now: now, GiftCard: giftCard, Category: category, Lim: allRows})
}

// Categories returns the categories with rewards the game's players see, in display order.
func (c CatalogueReference) Categories(ctx context.Context, gameID uuid.UUID, now time.Time) ([]catalogue.CategoryMeta, error) {
	return c.categories(ctx, namesParams{GameID: gameID, Now: now, Lim: allRows})
}

// SearchBrands returns up to limit brands matching text (names, typo- and prefix-tolerant),
// best first.
func (c CatalogueReference) SearchBrands(ctx context.Context, gameID uuid.UUID, text string, limit int, now time.Time) ([]catalogue.BrandMeta, error) {
	return c.brands(ctx, namesParams{GameID: gameID, Now: now, Q: strings.ToLower(text), Lim: int32(limit)})
}

// SearchCategories returns up to limit categories matching text, best first.
func (c CatalogueReference) SearchCategories(ctx context.Context, gameID uuid.UUID, text string, limit int, now time.Time) ([]catalogue.CategoryMeta, error) {
	return c.categories(ctx, namesParams{GameID: gameID, Now: now, Q: strings.ToLower(text), Lim: int32(limit)})
}
