package postgres

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
)

// CatalogueChannel is the channel on which the catalogue's triggers (migration 00020) notify
// each committed change.
const CatalogueChannel = "catalogue_changed"

// CatalogueSnapshots loads the catalogue's read model (catalogue.SnapshotSource) and listens
// for its changes.
type CatalogueSnapshots struct {
	d     *DB
	slice int32 // rewards per statement of a load
}

var _ catalogue.SnapshotSource = CatalogueSnapshots{}

// NewCatalogueSnapshots returns the read model's source on d.
func NewCatalogueSnapshots(d *DB) CatalogueSnapshots {
	return CatalogueSnapshots{d: d, slice: snapshotSlice}
}

// InSlicesOf returns c reading n rewards per statement of a load (snapshotSlice by default).
func (c CatalogueSnapshots) InSlicesOf(n int32) CatalogueSnapshots {
	c.slice = n
	return c
}

// Version implements catalogue.SnapshotSource.
func (c CatalogueSnapshots) Version(ctx context.Context) (int64, error) {
	v, err := db.New(outages{c.d.pool}).CatalogueVersion(ctx)
	if err != nil {
		return 0, fmt.Errorf("catalogue version: %w", err)
	}
	return v, nil
}

// Load implements catalogue.SnapshotSource: every statement in one read-only repeatable-read
// transaction, so the version read first labels exactly what the others read.
func (c CatalogueSnapshots) Load(ctx context.Context, now time.Time) (out catalogue.SnapshotData, err error) {
	err = unavailable(pgx.BeginTxFunc(ctx, c.d.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			// The whole catalogue, not a request: the service's bound on statements (5 s) is
			// too short for it on a busy server.
			if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = '60s'"); err != nil {
				return err
			}
			q, custom := db.New(tx), db.New(customPlans{tx})
			var err error
			if out.Version, err = q.CatalogueVersion(ctx); err != nil {
				return fmt.Errorf("version: %w", err)
			}
			cats, err := q.CatalogueSnapshotCategories(ctx)
			if err != nil {
				return fmt.Errorf("categories: %w", err)
			}
			out.Categories = make([]catalogue.Category, len(cats))
			for i, row := range cats {
				out.Categories[i] = toCoreCategory(row)
			}
			brands, err := q.CatalogueSnapshotBrands(ctx)
			if err != nil {
				return fmt.Errorf("brands: %w", err)
			}
			out.Brands = make([]catalogue.Brand, len(brands))
			for i, row := range brands {
				out.Brands[i] = toCoreBrand(row)
			}
			// Room for every reward at once: grown by appends, the slice of the largest part of
			// the snapshot would keep up to a quarter more than it holds.
			count, err := q.CatalogueSnapshotRewardCount(ctx)
			if err != nil {
				return fmt.Errorf("rewards: %w", err)
			}
			out.Rewards = make([]catalogue.Reward, 0, count)
			texts := newInterner()
			for after := uuid.Nil; ; {
				rewards, err := custom.CatalogueSnapshotRewards(ctx, db.CatalogueSnapshotRewardsParams{After: after, Lim: c.slice})
				if err != nil {
					return fmt.Errorf("rewards: %w", err)
				}
				for _, row := range rewards {
					out.Rewards = append(out.Rewards, snapshotReward(row, texts))
				}
				if len(rewards) < int(c.slice) {
					break
				}
				after = rewards[len(rewards)-1].ID
			}
			// Each slice of texts goes into the index's first pass as it is read: the texts of
			// 100,000 rewards are about 50 MB, their first pass a third less.
			out.SearchTexts = catalogue.NewSearchTexts(len(out.Rewards))
			for after := uuid.Nil; ; {
				search, err := custom.CatalogueSnapshotSearch(ctx, db.CatalogueSnapshotSearchParams{After: after, Lim: c.slice})
				if err != nil {
					return fmt.Errorf("search texts: %w", err)
				}
				for _, row := range search {
					out.SearchTexts.Add(row.ID, catalogue.SearchText{Name: row.SearchName, Vector: row.SearchVector, LowerName: row.LowerName})
				}
				if len(search) < int(c.slice) {
					break
				}
				after = search[len(search)-1].ID
			}
			names, err := q.CatalogueSnapshotNames(ctx)
			if err != nil {
				return fmt.Errorf("names: %w", err)
			}
			out.BrandNames, out.CategoryNames = map[string]string{}, map[string]string{}
			for _, row := range names {
				if row.Kind == "brand" {
					out.BrandNames[row.Code] = row.LowerName
				} else {
					out.CategoryNames[row.Code] = row.LowerName
				}
			}
			if out.Games, err = gameRewards(ctx, custom, nil); err != nil {
				return err
			}
			out.Orders, err = orderCounts(ctx, q, now)
			return err
		}))
	if err != nil {
		return catalogue.SnapshotData{}, fmt.Errorf("load the catalogue: %w", err)
	}
	return out, nil
}

// LoadChanges implements catalogue.SnapshotSource: in one read-only repeatable-read
// transaction, the version, the steps after after (migration 00024: each step's kind and the
// rewards it changed) and, when those steps changed only rewards (at most most of them) and the
// games' rewards, what they changed: the changed rewards' rows and search texts, and the games'
// rewards (every game's when the games' changed, else the changed rewards' alone).
func (c CatalogueSnapshots) LoadChanges(ctx context.Context, after int64, most int) (ch catalogue.Changes, ok bool, err error) {
	err = unavailable(pgx.BeginTxFunc(ctx, c.d.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			q, custom := db.New(tx), db.New(customPlans{tx})
			version, err := q.CatalogueVersion(ctx)
			if err != nil {
				return fmt.Errorf("version: %w", err)
			}
			steps, err := q.CatalogueChangesSince(ctx, after)
			if err != nil {
				return fmt.Errorf("steps: %w", err)
			}
			ch = catalogue.Changes{Version: version}
			seen := map[uuid.UUID]bool{}
			for i, step := range steps {
				if step.Version != after+1+int64(i) || step.Version > version || step.Kind == "other" {
					return nil // a step the log no longer holds, or one a whole load takes
				}
				ch.AllGames = ch.AllGames || step.Kind == "games"
				for _, id := range step.Rewards {
					if !seen[id] {
						seen[id] = true
						ch.Rewards = append(ch.Rewards, id)
					}
				}
			}
			if int64(len(steps)) != version-after || len(ch.Rewards) > most {
				return nil
			}
			ok = true
			if len(ch.Rewards) > 0 {
				// The same statements as a whole load's, for the changed rewards alone.
				lim := int32(len(ch.Rewards))
				rows, err := custom.CatalogueSnapshotRewards(ctx, db.CatalogueSnapshotRewardsParams{After: uuid.Nil, Lim: lim, Ids: ch.Rewards})
				if err != nil {
					return fmt.Errorf("rewards: %w", err)
				}
				texts := newInterner()
				ch.Current = make([]catalogue.Reward, len(rows))
				for i, row := range rows {
					ch.Current[i] = snapshotReward(row, texts)
				}
				search, err := custom.CatalogueSnapshotSearch(ctx, db.CatalogueSnapshotSearchParams{After: uuid.Nil, Lim: lim, Ids: ch.Rewards})
				if err != nil {
					return fmt.Errorf("search texts: %w", err)
				}
				ch.Search = make(map[uuid.UUID]catalogue.SearchText, len(search))
				for _, row := range search {
					ch.Search[row.ID] = catalogue.SearchText{Name: row.SearchName, Vector: row.SearchVector, LowerName: row.LowerName}
				}
			}
			switch {
			case ch.AllGames:
				ch.Games, err = gameRewards(ctx, custom, nil)
			case len(ch.Rewards) > 0:
				ch.Games, err = gameRewards(ctx, custom, ch.Rewards)
			}
			return err
		}))
	if err != nil {
		return catalogue.Changes{}, false, fmt.Errorf("load the catalogue's changes: %w", err)
	}
	return ch, ok, nil
}

// gameRewards are what the games changed of the rewards: of every reward when ids is nil, else
// of those of ids. q runs with custom plans.
func gameRewards(ctx context.Context, q *db.Queries, ids []uuid.UUID) ([]catalogue.GameReward, error) {
	rows, err := q.CatalogueSnapshotGameRewards(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("game rewards: %w", err)
	}
	out := make([]catalogue.GameReward, len(rows))
	for i, row := range rows {
		g := catalogue.GameReward{GameID: row.GameID, RewardID: row.RewardID, Hidden: row.Hidden}
		if err := json.Unmarshal(row.CoinPrices, &g.CoinPrices); err != nil {
			return nil, fmt.Errorf("coin prices of %s in game %s: %w", row.RewardID, row.GameID, err)
		}
		out[i] = g
	}
	return out, nil
}

// snapshotReward is a reward as a load reads it, its texts and sets shared through texts.
func snapshotReward(row db.CatalogueSnapshotRewardsRow, texts *interner) catalogue.Reward {
	r := toCoreReward(db.CatalogueReward{ID: row.ID, Type: row.Type, BrandCode: row.BrandCode, Name: row.Name,
		Description: row.Description, CampaignTitle: row.CampaignTitle, CampaignSubTitle: row.CampaignSubTitle,
		CampaignDetails: row.CampaignDetails, TermsAndConditions: row.TermsAndConditions, HowToRedeem: row.HowToRedeem,
		CoverImage: row.CoverImage, EndDate: row.EndDate,
		IsActive: row.IsActive, ValueType: row.ValueType, Denominations: row.Denominations, MinFace: row.MinFace,
		MaxFace: row.MaxFace, DiscountBps: row.DiscountBps, MinSelling: row.MinSelling, MaxSelling: row.MaxSelling,
		PurchaseCooldown: row.PurchaseCooldown, XScore: row.XScore, FlagAllowStudioEditPrice: row.FlagAllowStudioEditPrice,
		ProviderProductID: row.ProviderProductID, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt})
	r.HasSharedCode = row.HasSharedCode
	texts.shareReward(&r, row.Assets, row.Translations, row.Countries)
	return r
}

// OrderCounts implements catalogue.SnapshotSource.
func (c CatalogueSnapshots) OrderCounts(ctx context.Context, now time.Time) (map[uuid.UUID]catalogue.OrderCount, error) {
	return orderCounts(ctx, db.New(outages{c.d.pool}), now)
}

func orderCounts(ctx context.Context, q *db.Queries, now time.Time) (map[uuid.UUID]catalogue.OrderCount, error) {
	rows, err := q.CatalogueOrderCounts(ctx, now)
	if err != nil {
		return nil, fmt.Errorf("order counts: %w", err)
	}
	out := make(map[uuid.UUID]catalogue.OrderCount, len(rows))
	for _, row := range rows {
		out[row.RewardID] = catalogue.OrderCount{Last7d: row.Orders7d, Last30d: row.Orders30d}
	}
	return out, nil
}

// Watch implements catalogue.SnapshotSource: it holds one connection of the pool, LISTENing on
// CatalogueChannel, until ctx ends or the connection fails.
func (c CatalogueSnapshots) Watch(ctx context.Context, changed func()) error {
	pc, err := c.d.pool.Acquire(ctx)
	if err != nil {
		return unavailable(err)
	}
	defer pc.Release()
	conn := pc.Conn()
	if _, err := conn.Exec(ctx, "LISTEN "+CatalogueChannel); err != nil {
		_ = pc.Hijack().Close(context.Background())
		return unavailable(err)
	}
	changed() // anything committed before LISTEN took effect
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			// The connection is listening (or broken): it never goes back to the pool.
			_ = pc.Hijack().Close(context.Background())
			if ctx.Err() != nil {
				return nil
			}
			return unavailable(err)
		}
		changed()
	}
}

// snapshotSlice is how many rewards the load reads per statement.
const snapshotSlice = 5_000

// interner keeps one copy of each text, and of each set of assets, translations, countries and
// face values, for the rewards of one load: rewards of one brand often share them (a synced
// brand's terms, how to redeem, description, logo and countries), and the snapshot never
// changes what it holds, so its rewards can share them too.
type interner struct {
	texts        map[string]string
	assets       map[string]map[string]string
	translations map[string]catalogue.Translations
	countries    map[string][]string
	faces        map[string][]money.Amount
}

func newInterner() *interner {
	return &interner{texts: map[string]string{}, assets: map[string]map[string]string{},
		translations: map[string]catalogue.Translations{}, countries: map[string][]string{}, faces: map[string][]money.Amount{}}
}

func (in *interner) intern(s string) string {
	if s == "" {
		return s
	}
	if t, ok := in.texts[s]; ok {
		return t
	}
	in.texts[s] = s
	return s
}

// shareReward makes r's texts, face values and countries, and the assets and translations it
// decodes from their JSON, the copies other rewards of the load already hold. An empty set is
// nil.
func (in *interner) shareReward(r *catalogue.Reward, assets, translations []byte, countries []string) {
	for _, f := range []*string{&r.BrandCode, &r.Description, &r.CampaignTitle, &r.CampaignSubTitle,
		&r.CampaignDetails, &r.TermsAndConditions, &r.HowToRedeem, &r.CoverImage, &r.ProviderProductID} {
		*f = in.intern(*f)
	}
	r.Type, r.ValueType = catalogue.Type(in.intern(string(r.Type))), catalogue.ValueType(in.intern(string(r.ValueType)))
	r.Assets = shared(in.assets, string(assets), func() (a map[string]string) {
		if _ = json.Unmarshal(assets, &a); len(a) == 0 { // as toCoreReward reads them
			return nil
		}
		return a
	})
	r.Translations = shared(in.translations, string(translations), func() catalogue.Translations {
		if t := toTranslations(translations); len(t) > 0 {
			return t
		}
		return nil
	})
	r.Countries = shared(in.countries, strings.Join(countries, ","), func() []string {
		if len(countries) == 0 {
			return nil
		}
		out := make([]string, len(countries))
		for i, c := range countries {
			out[i] = in.intern(c)
		}
		return out
	})
	key := make([]byte, 0, 8*len(r.Denominations))
	for _, d := range r.Denominations {
		key = binary.LittleEndian.AppendUint64(key, uint64(d))
	}
	r.Denominations = shared(in.faces, string(key), func() []money.Amount {
		if len(r.Denominations) == 0 {
			return nil
		}
		return slices.Clip(r.Denominations)
	})
}

// shared returns the value kept under key, making and keeping it first.
func shared[V any](kept map[string]V, key string, make func() V) V {
	if v, ok := kept[key]; ok {
		return v
	}
	v := make()
	kept[key] = v
	return v
}
