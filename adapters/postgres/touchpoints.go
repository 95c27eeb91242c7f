package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// TouchpointsRepo is the storage of the touchpoints module.
type TouchpointsRepo struct {
	conn
	// rules runs the rule queries (best rewards and products) with custom plans; the lookups by
	// id and name run on conn.q as cached prepared statements, whose plans do not depend on
	// the values.
	rules *db.Queries
}

var _ touchpoints.Repo = (*TouchpointsRepo)(nil)

// NewTouchpointsStore returns the storage of the touchpoints module on d. The rule queries are
// planned for their actual parameters (customPlans): their optional filters and sort keys then
// fold away, and the default order walks the listing index. The lookups by id and name keep
// pgx's cached prepared statements: planning them anew each time cost more than running them.
func NewTouchpointsStore(d *DB) store.Of[touchpoints.Repo] {
	return newModuleStore(d, func(c conn) touchpoints.Repo {
		return &TouchpointsRepo{conn: c, rules: db.New(customPlans{c.dbtx})}
	})
}

func toCoreAsset(a db.TouchpointAsset) touchpoints.PresetAsset {
	return touchpoints.PresetAsset{ID: a.ID, Name: a.Name, ImageURL: a.ImageUrl, Orientation: a.Orientation,
		Width: int(a.Width), Height: int(a.Height)}
}

func toCoreProduct(p db.CatalogueProduct) catalogue.Product {
	return catalogue.Product{ID: p.ID, Name: p.Name, BrandName: p.BrandName, Category: p.Category,
		ImageURL: p.ImageUrl, HeroImageURL: p.HeroImageUrl, Rating: p.Rating, MRP: money.Amount(p.Mrp),
		ListingPrice: money.Amount(p.ListingPrice), DiscountedListingPrice: money.Amount(p.DiscountedListingPrice),
		MaxCoinDiscountPct: money.Pct(p.MaxCoinDiscountBps), PriceUpdatedAt: p.PriceUpdatedAt, IsActive: p.IsActive}
}

// toCoreRewardItem converts the narrow reward row of the touchpoint queries (through the
// catalogue's own converter, so money is read one way only).
func toCoreRewardItem(r db.TouchpointsRewardsRow) touchpoints.RewardItem {
	row := db.CatalogueReward{ID: r.ID, Type: r.Type, BrandCode: r.BrandCode, Name: r.Name, CampaignTitle: r.CampaignTitle,
		CampaignSubTitle: r.CampaignSubTitle, CampaignDetails: r.CampaignDetails, TermsAndConditions: r.TermsAndConditions,
		HowToRedeem: r.HowToRedeem, CoverImage: r.CoverImage, EndDate: r.EndDate, IsActive: r.IsActive, ValueType: r.ValueType,
		Denominations: r.Denominations, MinFace: r.MinFace, MaxFace: r.MaxFace, DiscountBps: r.DiscountBps,
		MinSelling: r.MinSelling, MaxSelling: r.MaxSelling, XScore: r.XScore, CreatedAt: r.CreatedAt, ProviderProductID: r.ProviderProductID}
	if r.HasSharedCode {
		row.SharedCode = []byte{}
	}
	it := touchpoints.RewardItem{Reward: toCoreReward(row), Hidden: r.Hidden, Override: override(r.Override),
		Brand: catalogue.Brand{Code: r.BrandCode, Name: r.BrandName, LogoURL: r.BrandLogoUrl, WebsiteURL: r.BrandWebsiteUrl,
			Issuer: r.BrandIssuer, Categories: r.BrandCategories, IsActive: r.BrandIsActive}}
	if r.Free >= 0 {
		it.Free = &r.Free
	}
	return it
}

func toCorePlacement(gameID uuid.UUID, env studio.Environment, r db.TouchpointsListPlacementsRow) touchpoints.Placement {
	p := touchpoints.Placement{ID: r.ID, GameID: gameID, Environment: env, Screen: r.Screen,
		Type: touchpoints.ItemType(r.Type), RewardID: r.RewardID, IsActive: r.IsActive, UpdatedAt: r.UpdatedAt,
		Asset: touchpoints.Asset{Source: r.AssetSource, PresetID: r.PresetID, ImageURL: r.ImageUrl,
			Orientation: r.Orientation, Width: int(r.Width), Height: int(r.Height)}}
	if r.ProductID != nil {
		p.ProductID = *r.ProductID
	}
	if r.HasRule {
		p.Rule = &touchpoints.Rule{Category: r.RuleCategory, Brand: r.RuleBrand, SortBy: r.RuleSort}
	}
	return p
}

func toCoreTree(t db.TouchpointTree) (touchpoints.Tree, error) {
	out := touchpoints.Tree{ID: t.ID, GameID: t.GameID, Name: t.Name, UpdatedAt: t.UpdatedAt, Served: int(t.ServedSize)}
	if err := json.Unmarshal(t.Nodes, &out.Nodes); err != nil {
		return touchpoints.Tree{}, fmt.Errorf("decode tree %s: %w", t.ID, err)
	}
	return out, nil
}

// UpsertAsset implements touchpoints.Repo.
func (r *TouchpointsRepo) UpsertAsset(ctx context.Context, a touchpoints.PresetAsset) (bool, error) {
	created, err := r.q.TouchpointsUpsertAsset(ctx, db.TouchpointsUpsertAssetParams{ID: a.ID, Name: a.Name,
		ImageUrl: a.ImageURL, Orientation: a.Orientation, Width: int32(a.Width), Height: int32(a.Height)})
	if err != nil {
		return false, fmt.Errorf("upsert asset %s: %w", a.ID, err)
	}
	return created, nil
}

// ListAssets implements touchpoints.Repo.
func (r *TouchpointsRepo) ListAssets(ctx context.Context) ([]touchpoints.PresetAsset, error) {
	rows, err := r.q.TouchpointsListAssets(ctx)
	return toCoreAll(rows, err, toCoreAsset, "list assets")
}

// GetAsset implements touchpoints.Repo.
func (r *TouchpointsRepo) GetAsset(ctx context.Context, id string) (touchpoints.PresetAsset, error) {
	a, err := r.q.TouchpointsGetAsset(ctx, id)
	if isNoRows(err) {
		return touchpoints.PresetAsset{}, touchpoints.ErrAssetNotFound
	}
	if err != nil {
		return touchpoints.PresetAsset{}, fmt.Errorf("get asset %s: %w", id, err)
	}
	return toCoreAsset(a), nil
}

// LockGame implements touchpoints.Repo.
func (r *TouchpointsRepo) LockGame(ctx context.Context, gameID uuid.UUID) error {
	_, err := r.q.TouchpointsLockGame(ctx, gameID)
	if isNoRows(err) {
		return studio.ErrGameNotFound
	}
	if err != nil {
		return fmt.Errorf("lock game %s: %w", gameID, err)
	}
	return nil
}

// UpsertPlacement implements touchpoints.Repo.
func (r *TouchpointsRepo) UpsertPlacement(ctx context.Context, p touchpoints.Placement) (bool, time.Time, error) {
	params := db.TouchpointsUpsertPlacementParams{GameID: p.GameID, Environment: string(p.Environment), ID: p.ID,
		Screen: p.Screen, Type: string(p.Type), AssetSource: p.Asset.Source, RewardID: p.RewardID,
		RuleSort: touchpoints.SortDefault, IsActive: p.IsActive}
	if p.Asset.Source == touchpoints.SourcePreset {
		params.PresetID = &p.Asset.PresetID
	} else {
		params.ImageUrl, params.Orientation = p.Asset.ImageURL, p.Asset.Orientation
		params.Width, params.Height = int32(p.Asset.Width), int32(p.Asset.Height)
	}
	if p.ProductID != "" {
		params.ProductID = &p.ProductID
	}
	if p.Rule != nil {
		params.HasRule, params.RuleCategory, params.RuleBrand, params.RuleSort = true, p.Rule.Category, p.Rule.Brand, p.Rule.SortBy
	}
	row, err := r.q.TouchpointsUpsertPlacement(ctx, params)
	if pgCode(err) == "23505" {
		return false, time.Time{}, touchpoints.ErrPlacementConflict
	}
	if err != nil {
		return false, time.Time{}, fmt.Errorf("upsert placement %s: %w", p.ID, err)
	}
	return row.Created, row.UpdatedAt, nil
}

// Placements implements touchpoints.Repo.
func (r *TouchpointsRepo) Placements(ctx context.Context, gameID uuid.UUID, env studio.Environment, screen string) ([]touchpoints.Placement, error) {
	rows, err := r.q.TouchpointsListPlacements(ctx, db.TouchpointsListPlacementsParams{GameID: gameID,
		Environment: string(env), Screen: screen})
	return toCoreAll(rows, err, func(row db.TouchpointsListPlacementsRow) touchpoints.Placement {
		return toCorePlacement(gameID, env, row)
	}, "list placements")
}

// PromotePlacements implements touchpoints.Repo.
func (r *TouchpointsRepo) PromotePlacements(ctx context.Context, gameID uuid.UUID) (int64, error) {
	if err := r.q.TouchpointsDeleteLivePlacements(ctx, gameID); err != nil {
		return 0, fmt.Errorf("delete live placements: %w", err)
	}
	n, err := r.q.TouchpointsCopyTestPlacements(ctx, gameID)
	if err != nil {
		return 0, fmt.Errorf("copy test placements: %w", err)
	}
	return n, nil
}

// SetCoin implements touchpoints.Repo.
func (r *TouchpointsRepo) SetCoin(ctx context.Context, gameID, coinID uuid.UUID) error {
	return wrapErr(r.q.TouchpointsSetCoin(ctx, db.TouchpointsSetCoinParams{GameID: gameID, CoinID: coinID}), "set touchpoint coin")
}

// Screen implements touchpoints.Repo: the placements and the game's context in one round trip.
func (r *TouchpointsRepo) Screen(ctx context.Context, gameID uuid.UUID, env studio.Environment, screen string, playerID *uuid.UUID) (touchpoints.Screen, error) {
	var out touchpoints.Screen
	var game db.TouchpointsGameContextRow
	var gameErr error
	err := r.pipeline(ctx, func(dbtx db.DBTX) error {
		q := db.New(dbtx)
		rows, err := q.TouchpointsListPlacements(ctx, db.TouchpointsListPlacementsParams{GameID: gameID,
			Environment: string(env), Screen: screen})
		if err != nil {
			return fmt.Errorf("list placements: %w", err)
		}
		out.Placements = make([]touchpoints.Placement, len(rows))
		for i, row := range rows {
			out.Placements[i] = toCorePlacement(gameID, env, row)
		}
		game, gameErr = q.TouchpointsGameContext(ctx, db.TouchpointsGameContextParams{GameID: gameID, PlayerID: playerID})
		return nil
	})
	if err != nil {
		return touchpoints.Screen{}, err
	}
	switch {
	case isNoRows(gameErr) && len(out.Placements) == 0:
		return out, nil
	case isNoRows(gameErr):
		return touchpoints.Screen{}, studio.ErrGameNotFound
	case gameErr != nil:
		return touchpoints.Screen{}, fmt.Errorf("game context: %w", unavailable(gameErr))
	}
	out.StoreURL = game.StoreUrl
	if game.CoinID != nil {
		out.Coin = &touchpoints.Coin{ID: *game.CoinID, Name: *game.CoinName, ImageURL: *game.CoinImageUrl,
			CoinsPerUnit: int64(*game.CoinsPerUnit), Balance: game.Balance}
	}
	return out, nil
}

// Coin implements touchpoints.Repo.
func (r *TouchpointsRepo) Coin(ctx context.Context, gameID, coinID uuid.UUID, playerID *uuid.UUID) (touchpoints.Coin, error) {
	row, err := r.q.TouchpointsCoin(ctx, db.TouchpointsCoinParams{GameID: gameID, CoinID: coinID, PlayerID: playerID})
	if isNoRows(err) {
		return touchpoints.Coin{}, coins.ErrCoinNotFound
	}
	if err != nil {
		return touchpoints.Coin{}, fmt.Errorf("get coin %s: %w", coinID, err)
	}
	return touchpoints.Coin{ID: row.ID, Name: row.Name, ImageURL: row.ImageUrl, CoinsPerUnit: int64(row.CoinsPerUnit),
		Balance: row.Balance}, nil
}

// Rewards implements touchpoints.Repo.
func (r *TouchpointsRepo) Rewards(ctx context.Context, gameID, coinID uuid.UUID, ids []uuid.UUID) ([]touchpoints.RewardItem, error) {
	rows, err := r.q.TouchpointsRewards(ctx, db.TouchpointsRewardsParams{GameID: gameID, CoinID: coinID.String(), Ids: ids})
	return toCoreAll(rows, err, toCoreRewardItem, "rewards by id")
}

func bestRewardsParams(q touchpoints.RewardQuery) db.TouchpointsBestRewardsParams {
	return db.TouchpointsBestRewardsParams{GameID: q.GameID, CoinID: q.CoinID.String(), Now: q.Now, Type: string(q.Type),
		Category: q.Category, Brand: q.Brand, InStock: q.InStock, Ord: q.SortBy, Lim: int32(q.Limit)}
}

func bestProductsParams(q touchpoints.ProductQuery) db.TouchpointsBestProductsParams {
	return db.TouchpointsBestProductsParams{Category: q.Category, Brand: q.Brand, Ord: q.SortBy, Lim: int32(q.Limit)}
}

// BestRewards implements touchpoints.Repo.
func (r *TouchpointsRepo) BestRewards(ctx context.Context, q touchpoints.RewardQuery) ([]touchpoints.RewardItem, error) {
	rows, err := r.rules.TouchpointsBestRewards(ctx, bestRewardsParams(q))
	return toCoreAll(rows, err, func(row db.TouchpointsBestRewardsRow) touchpoints.RewardItem {
		return toCoreRewardItem(db.TouchpointsRewardsRow(row))
	}, "best rewards")
}

// Products implements touchpoints.Repo.
func (r *TouchpointsRepo) Products(ctx context.Context, ids []string) ([]catalogue.Product, error) {
	rows, err := r.q.TouchpointsProducts(ctx, ids)
	return toCoreAll(rows, err, toCoreProduct, "products by id")
}

// BestProducts implements touchpoints.Repo.
func (r *TouchpointsRepo) BestProducts(ctx context.Context, q touchpoints.ProductQuery) ([]catalogue.Product, error) {
	rows, err := r.rules.TouchpointsBestProducts(ctx, bestProductsParams(q))
	return toCoreAll(rows, err, toCoreProduct, "best products")
}

// RewardTypes implements touchpoints.Repo.
func (r *TouchpointsRepo) RewardTypes(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]catalogue.Type, error) {
	out := map[uuid.UUID]catalogue.Type{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := r.q.TouchpointsExistingRewards(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("reward types: %w", err)
	}
	for _, row := range rows {
		out[row.ID] = catalogue.Type(row.Type)
	}
	return out, nil
}

// ExistingProducts implements touchpoints.Repo.
func (r *TouchpointsRepo) ExistingProducts(ctx context.Context, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	found, err := r.q.TouchpointsExistingProducts(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("existing products: %w", err)
	}
	return found, nil
}

// Lookup implements touchpoints.Repo: every read in one round trip. The rule queries run with
// custom plans, as BestRewards and BestProducts do: SET LOCAL plan_cache_mode inside the batch,
// which is a transaction of its own on the pool (on a transaction the setting lasts to its end).
func (r *TouchpointsRepo) Lookup(ctx context.Context, l touchpoints.Lookup) (touchpoints.Found, error) {
	out := touchpoints.Found{BestRewards: make([][]touchpoints.RewardItem, len(l.BestRewards)),
		BestProducts: make([][]catalogue.Product, len(l.BestProducts))}
	rules := len(l.BestRewards)+len(l.BestProducts) > 0
	if len(l.RewardIDs) == 0 && len(l.ProductIDs) == 0 && !rules {
		return out, nil
	}
	own := rules && r.owner == nil
	err := r.pipeline(ctx, func(dbtx db.DBTX) error {
		q := db.New(dbtx)
		if own {
			if _, err := dbtx.Exec(ctx, "BEGIN READ ONLY"); err != nil {
				return fmt.Errorf("begin: %w", err)
			}
		}
		if len(l.RewardIDs) > 0 {
			rows, err := q.TouchpointsRewards(ctx, db.TouchpointsRewardsParams{GameID: l.GameID, CoinID: l.CoinID.String(), Ids: l.RewardIDs})
			if err != nil {
				return fmt.Errorf("rewards by id: %w", err)
			}
			out.Rewards = make([]touchpoints.RewardItem, len(rows))
			for i, row := range rows {
				out.Rewards[i] = toCoreRewardItem(row)
			}
		}
		if len(l.ProductIDs) > 0 {
			rows, err := q.TouchpointsProducts(ctx, l.ProductIDs)
			if err != nil {
				return fmt.Errorf("products by id: %w", err)
			}
			out.Products = make([]catalogue.Product, len(rows))
			for i, p := range rows {
				out.Products[i] = toCoreProduct(p)
			}
		}
		if !rules {
			return nil
		}
		if _, err := dbtx.Exec(ctx, "SET LOCAL plan_cache_mode = force_custom_plan"); err != nil {
			return fmt.Errorf("custom plans: %w", err)
		}
		for i, rq := range l.BestRewards {
			rows, err := q.TouchpointsBestRewards(ctx, bestRewardsParams(rq))
			if err != nil {
				return fmt.Errorf("best rewards: %w", err)
			}
			out.BestRewards[i] = make([]touchpoints.RewardItem, len(rows))
			for j, row := range rows {
				out.BestRewards[i][j] = toCoreRewardItem(db.TouchpointsRewardsRow(row))
			}
		}
		for i, pq := range l.BestProducts {
			rows, err := q.TouchpointsBestProducts(ctx, bestProductsParams(pq))
			if err != nil {
				return fmt.Errorf("best products: %w", err)
			}
			out.BestProducts[i] = make([]catalogue.Product, len(rows))
			for j, p := range rows {
				out.BestProducts[i][j] = toCoreProduct(p)
			}
		}
		if own {
			if _, err := dbtx.Exec(ctx, "COMMIT"); err != nil {
				return fmt.Errorf("commit: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return touchpoints.Found{}, err
	}
	return out, nil
}

// TreeWithCoin implements touchpoints.Repo in one statement, which leaves the tree's nodes out
// when they are known's.
func (r *TouchpointsRepo) TreeWithCoin(ctx context.Context, gameID uuid.UUID, key touchpoints.TreeKey, coinID, playerID *uuid.UUID, known *touchpoints.Tree) (touchpoints.Tree, *touchpoints.Coin, error) {
	var knownID *uuid.UUID
	var knownAt *time.Time
	if known != nil {
		knownID, knownAt = &known.ID, &known.UpdatedAt
	}
	var row db.TouchpointsTreeAndCoinByNameRow
	var err error
	if key.ID != uuid.Nil {
		var byID db.TouchpointsTreeAndCoinByIDRow
		byID, err = r.q.TouchpointsTreeAndCoinByID(ctx, db.TouchpointsTreeAndCoinByIDParams{KnownID: knownID, KnownUpdatedAt: knownAt,
			CoinID: coinID, GameID: gameID, PlayerID: playerID, ID: key.ID})
		row = db.TouchpointsTreeAndCoinByNameRow(byID)
	} else {
		row, err = r.q.TouchpointsTreeAndCoinByName(ctx, db.TouchpointsTreeAndCoinByNameParams{KnownID: knownID, KnownUpdatedAt: knownAt,
			CoinID: coinID, GameID: gameID, PlayerID: playerID, Name: key.Name})
	}
	if err != nil {
		return touchpoints.Tree{}, nil, fmt.Errorf("get tree: %w", err)
	}
	var coin *touchpoints.Coin
	if coinID != nil {
		if row.CoinID == nil {
			return touchpoints.Tree{}, nil, coins.ErrCoinNotFound
		}
		coin = &touchpoints.Coin{ID: *row.CoinID, Name: *row.CoinName, ImageURL: *row.CoinImageUrl,
			CoinsPerUnit: int64(*row.CoinsPerUnit), Balance: row.Balance}
	}
	if row.TreeID == nil {
		return touchpoints.Tree{}, nil, touchpoints.ErrTouchpointNotFound
	}
	if row.Nodes == nil {
		// The statement leaves the nodes out only when the tree is known's version.
		if known == nil || known.ID != *row.TreeID || !known.UpdatedAt.Equal(*row.TreeUpdatedAt) {
			return touchpoints.Tree{}, nil, fmt.Errorf("get tree %s: no nodes read", *row.TreeID)
		}
		return *known, coin, nil
	}
	t, err := toCoreTree(db.TouchpointTree{ID: *row.TreeID, GameID: gameID, Name: *row.TreeName, Nodes: row.Nodes,
		UpdatedAt: *row.TreeUpdatedAt, ServedSize: *row.TreeServedSize})
	if err != nil {
		return touchpoints.Tree{}, nil, err
	}
	return t, coin, nil
}

// UpsertTree implements touchpoints.Repo.
func (r *TouchpointsRepo) UpsertTree(ctx context.Context, t touchpoints.Tree) (touchpoints.Tree, bool, error) {
	nodes := t.Nodes
	if nodes == nil {
		nodes = []touchpoints.Node{}
	}
	raw, err := json.Marshal(nodes)
	if err != nil {
		return touchpoints.Tree{}, false, fmt.Errorf("encode tree: %w", err)
	}
	row, err := r.q.TouchpointsUpsertTree(ctx, db.TouchpointsUpsertTreeParams{GameID: t.GameID, Name: t.Name, Nodes: raw,
		ServedSize: int32(t.Served)})
	if err != nil {
		return touchpoints.Tree{}, false, fmt.Errorf("upsert tree: %w", err)
	}
	t.ID, t.UpdatedAt, t.Nodes = row.ID, row.UpdatedAt, nodes
	return t, row.Created, nil
}

// DeleteTree implements touchpoints.Repo.
func (r *TouchpointsRepo) DeleteTree(ctx context.Context, gameID uuid.UUID, name string) error {
	n, err := r.q.TouchpointsDeleteTree(ctx, db.TouchpointsDeleteTreeParams{GameID: gameID, Name: name})
	if err != nil {
		return fmt.Errorf("delete tree: %w", err)
	}
	if n == 0 {
		return touchpoints.ErrTouchpointNotFound
	}
	return nil
}

// TreeSizes implements touchpoints.Repo: the trees' nodes stay in the database.
func (r *TouchpointsRepo) TreeSizes(ctx context.Context, gameID uuid.UUID, n int) ([]touchpoints.TreeSize, int, error) {
	rows, err := r.q.TouchpointsTreeSizes(ctx, db.TouchpointsTreeSizesParams{GameID: gameID, Lim: int32(n)})
	if err != nil {
		return nil, 0, fmt.Errorf("tree sizes: %w", err)
	}
	out := make([]touchpoints.TreeSize, len(rows))
	total := 0
	for i, row := range rows {
		out[i] = touchpoints.TreeSize{ID: row.ID, Name: row.Name, Served: int(row.ServedSize)}
		total = int(row.Total)
	}
	return out, total, nil
}

// TreesByID implements touchpoints.Repo, decoding only the trees known does not hold.
func (r *TouchpointsRepo) TreesByID(ctx context.Context, gameID uuid.UUID, ids []uuid.UUID, known map[uuid.UUID]touchpoints.Tree) ([]touchpoints.Tree, error) {
	rows, err := r.q.TouchpointsTreesByID(ctx, db.TouchpointsTreesByIDParams{GameID: gameID, Ids: ids})
	if err != nil {
		return nil, fmt.Errorf("trees by id: %w", err)
	}
	out := make([]touchpoints.Tree, 0, len(rows))
	for _, row := range rows {
		if k, ok := known[row.ID]; ok && k.UpdatedAt.Equal(row.UpdatedAt) && k.Name == row.Name {
			out = append(out, k)
			continue
		}
		t, err := toCoreTree(row)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// pipeline sends the statements of several sqlc queries to the database in one round trip (a
// pgx batch), keeping sqlc's statements and row scanning. run is called twice and must make
// the same calls in the same order whatever they return: first on a DBTX that queues each
// statement and answers as if it found nothing (no rows, a :one query's Scan leaves its
// destinations alone), then, once the batch is sent, on one that hands each call its statement's
// results.
func (r *TouchpointsRepo) pipeline(ctx context.Context, run func(db.DBTX) error) error {
	b := &pgx.Batch{}
	if err := run(queueing{b}); err != nil {
		return err
	}
	if b.Len() == 0 {
		return nil
	}
	br := r.dbtx.SendBatch(ctx, b)
	err := run(reading{br})
	if cerr := br.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("batch: %w", cerr)
	}
	return unavailable(err)
}

// queueing is the DBTX of pipeline's first pass.
type queueing struct{ b *pgx.Batch }

func (q queueing) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	q.b.Queue(sql, args...)
	return pgconn.CommandTag{}, nil
}

func (q queueing) Query(_ context.Context, sql string, args ...any) (pgx.Rows, error) {
	q.b.Queue(sql, args...)
	return noRows{}, nil
}

func (q queueing) QueryRow(_ context.Context, sql string, args ...any) pgx.Row {
	q.b.Queue(sql, args...)
	return noRows{}
}

func (q queueing) SendBatch(context.Context, *pgx.Batch) pgx.BatchResults {
	panic("postgres: a batch inside a pipeline")
}

// reading is the DBTX of pipeline's second pass: each call takes the next statement's results.
type reading struct{ br pgx.BatchResults }

func (r reading) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) { return r.br.Exec() }
func (r reading) Query(context.Context, string, ...any) (pgx.Rows, error)         { return r.br.Query() }
func (r reading) QueryRow(context.Context, string, ...any) pgx.Row                { return r.br.QueryRow() }

func (r reading) SendBatch(context.Context, *pgx.Batch) pgx.BatchResults {
	panic("postgres: a batch inside a pipeline")
}

// noRows is the empty result of a queued statement.
type noRows struct{}

func (noRows) Close()                                       {}
func (noRows) Err() error                                   { return nil }
func (noRows) CommandTag() pgconn.CommandTag                { return pgconn.CommandTag{} }
func (noRows) FieldDescriptions() []pgconn.FieldDescription { return nil }
func (noRows) Next() bool                                   { return false }
func (noRows) Scan(...any) error                            { return nil }
func (noRows) Values() ([]any, error)                       { return nil, nil }
func (noRows) RawValues() [][]byte                          { return nil }
func (noRows) Conn() *pgx.Conn                              { return nil }
func (noRows) TypeMap() *pgtype.Map                         { return nil }
