package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// treeCoinValues answers what the coin pricing a tree is worth (touchpoints.CoinValues) from
// the instance's coins.Values, which the coins service drops when it changes a coin's value.
type treeCoinValues struct {
	values *coins.Values
	coins  store.Of[coins.Repo]
}

// CoinsPerUnit implements touchpoints.CoinValues.
func (v treeCoinValues) CoinsPerUnit(ctx context.Context, gameID, coinID uuid.UUID) (int64, error) {
	return v.values.CoinsPerUnit(ctx, v.coins.Repo(), gameID, coinID)
}

// treeReads answers the reward reads of touchpoint trees (touchpoints.Reads) from the
// catalogue's read model, with pool stock counted as lists count it: a tree whose rewards the
// snapshot holds costs no round trip for them.
type treeReads struct {
	model *catalogue.ReadModel
	// free is catalogue.Service.FreeCodesOf (PoolStock in front of the storage).
	free catalogue.FreeCounter
}

// Rewards implements touchpoints.Reads.
func (t treeReads) Rewards(ctx context.Context, gameID, coinID uuid.UUID, ids []uuid.UUID) ([]touchpoints.RewardItem, []uuid.UUID, error) {
	snap, err := t.model.Current(ctx)
	if err != nil {
		return nil, nil, err
	}
	found := make([]touchpoints.RewardItem, 0, len(ids))
	var missing []uuid.UUID
	for _, id := range ids {
		l, hidden, ok := snap.Seen(gameID, coinID, id)
		if !ok {
			missing = append(missing, id)
			continue
		}
		found = append(found, touchpoints.RewardItem{Reward: l.Reward, Brand: l.Brand, Hidden: hidden, Override: l.Override})
	}
	if err := t.fillFree(ctx, found); err != nil {
		return nil, nil, err
	}
	return found, missing, nil
}

// fillFree sets the free codes of the pool rewards among items.
func (t treeReads) fillFree(ctx context.Context, items []touchpoints.RewardItem) error {
	free, err := t.freeOf(ctx, len(items), func(i int) *catalogue.Reward { return &items[i].Reward })
	if err != nil {
		return err
	}
	for i := range items {
		if items[i].Reward.IsPool() {
			n := free[items[i].Reward.ID]
			items[i].Free = &n
		}
	}
	return nil
}

// freeOf returns the free codes of the pool rewards among the n that reward gives (nil when none
// is a pool).
func (t treeReads) freeOf(ctx context.Context, n int, reward func(int) *catalogue.Reward) (map[uuid.UUID]int64, error) {
	return catalogue.CountFree(ctx, n, reward, t.free)
}

// BestRewards implements touchpoints.Reads: the snapshot's ranking of the rule, read in batches
// until q.Limit rewards are in stock (when q.InStock) or the ranking ends.
func (t treeReads) BestRewards(ctx context.Context, q touchpoints.RewardQuery) ([]touchpoints.RewardItem, error) {
	snap, err := t.model.Current(ctx)
	if err != nil {
		return nil, err
	}
	ranked := snap.Rank(catalogue.RuleQuery{GameID: q.GameID, CoinID: q.CoinID, Type: q.Type, Category: q.Category,
		Brand: q.Brand, SortBy: q.SortBy, Now: q.Now})
	out := make([]touchpoints.RewardItem, 0, min(max(q.Limit, 0), ranked.Len()))
	for next := 0; next < ranked.Len() && len(out) < q.Limit; {
		// A batch is twice what is missing (at least 16): pools out of stock are skipped. Only
		// the rewards kept are copied out of the snapshot.
		n := min(ranked.Len()-next, max(2*(q.Limit-len(out)), 16))
		free, err := t.freeOf(ctx, n, func(i int) *catalogue.Reward { return ranked.Reward(next + i) })
		if err != nil {
			return nil, err
		}
		for i := next; i < next+n && len(out) < q.Limit; i++ {
			r := ranked.Reward(i)
			var left *int64
			if r.IsPool() {
				c := free[r.ID]
				if q.InStock && c <= 0 {
					continue
				}
				left = &c
			}
			l := ranked.At(i)
			out = append(out, touchpoints.RewardItem{Reward: l.Reward, Brand: l.Brand, Override: l.Override, Free: left})
		}
		next += n
	}
	return out, nil
}
