package touchpoints

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// memoryReads holds some rewards; fail makes every read fail.
type memoryReads struct {
	held map[uuid.UUID]RewardItem
	fail bool
}

func (m memoryReads) Rewards(_ context.Context, _, _ uuid.UUID, ids []uuid.UUID) ([]RewardItem, []uuid.UUID, error) {
	if m.fail {
		return nil, nil, errors.New("no snapshot")
	}
	var found []RewardItem
	var missing []uuid.UUID
	for _, id := range ids {
		if r, ok := m.held[id]; ok {
			found = append(found, r)
		} else {
			missing = append(missing, id)
		}
	}
	return found, missing, nil
}

func (m memoryReads) BestRewards(_ context.Context, q RewardQuery) ([]RewardItem, error) {
	if m.fail {
		return nil, errors.New("no snapshot")
	}
	var out []RewardItem
	for _, r := range m.held {
		if r.Reward.BrandCode == q.Brand {
			out = append(out, r)
		}
	}
	return out, nil
}

// Reads answers the rewards it holds and every rewards rule; the Repo gets the rest (rewards it
// does not hold, products), or every read when Reads fails.
func TestReadMemoryLeavesTheRestToTheRepo(t *testing.T) {
	t.Parallel()
	held, other := uuid.New(), uuid.New()
	reads := memoryReads{held: map[uuid.UUID]RewardItem{held: {Reward: catalogue.Reward{ID: held, BrandCode: "ACME"}}}}
	l := Lookup{GameID: uuid.New(), CoinID: uuid.New(), RewardIDs: []uuid.UUID{held, other}, ProductIDs: []string{"sku-1"},
		BestRewards:  []RewardQuery{{Brand: "ACME", Limit: 10}, {Brand: "NONE", Limit: 10}},
		BestProducts: []ProductQuery{{Limit: 10}}}
	s := NewService(nil, Config{Reads: reads})
	found, rest, ok := s.readMemory(context.Background(), l)
	require.True(t, ok)
	require.Len(t, found.Rewards, 1)
	require.Equal(t, held, found.Rewards[0].Reward.ID)
	require.Len(t, found.BestRewards, 2)
	require.Len(t, found.BestRewards[0], 1)
	require.Empty(t, found.BestRewards[1])
	require.Equal(t, []uuid.UUID{other}, rest.RewardIDs)
	require.Empty(t, rest.BestRewards)
	require.Equal(t, l.ProductIDs, rest.ProductIDs)
	require.Equal(t, l.BestProducts, rest.BestProducts)

	s = NewService(nil, Config{Reads: memoryReads{fail: true}})
	_, rest, ok = s.readMemory(context.Background(), l)
	require.False(t, ok)
	require.Equal(t, l, rest)
}

// screenRepo serves one screen and counts the reward reads that reach it.
type screenRepo struct {
	Repo
	screen        Screen
	held          map[uuid.UUID]RewardItem
	rewards, best int
}

func (r *screenRepo) Screen(context.Context, uuid.UUID, studio.Environment, string, *uuid.UUID) (Screen, error) {
	return r.screen, nil
}

func (r *screenRepo) Rewards(_ context.Context, _, _ uuid.UUID, ids []uuid.UUID) ([]RewardItem, error) {
	r.rewards++
	var out []RewardItem
	for _, id := range ids {
		if it, ok := r.held[id]; ok {
			out = append(out, it)
		}
	}
	return out, nil
}

func (r *screenRepo) BestRewards(_ context.Context, q RewardQuery) ([]RewardItem, error) {
	r.best++
	return memoryReads{held: r.held}.BestRewards(context.Background(), q)
}

// repoOf is a store.Of of one repo, outside transactions.
type repoOf struct{ r Repo }

func (o repoOf) Repo() Repo                                          { return o.r }
func (o repoOf) WithTx(store.Tx) Repo                                { return o.r }
func (o repoOf) InTx(ctx context.Context, fn func(Repo) error) error { return fn(o.r) }

// Serving a placement reads its configured reward and its rule from Reads, never the Repo; a
// configured reward Reads does not hold is one nobody sees, so the rule serves instead. When
// Reads fails, the Repo answers both.
func TestServeReadsRewardsFromMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	configured, byRule, unseen := uuid.New(), uuid.New(), uuid.New()
	item := func(id uuid.UUID, brand string) RewardItem {
		return RewardItem{Reward: catalogue.Reward{ID: id, Type: catalogue.GiftCard, BrandCode: brand, Name: brand, IsActive: true,
			ValueType: catalogue.Fixed, Denominations: []money.Amount{100_00}}, Brand: catalogue.Brand{Code: brand, Name: brand, IsActive: true}}
	}
	held := map[uuid.UUID]RewardItem{configured: item(configured, "ACME"), byRule: item(byRule, "RULE")}
	placement := func(id uuid.UUID) Placement {
		return Placement{ID: uuid.New(), Screen: "home", Type: TypeGiftCard, RewardID: &id, Rule: &Rule{Brand: "RULE"}, IsActive: true}
	}
	for _, tc := range []struct {
		name              string
		reads             Reads
		rewardID          uuid.UUID
		want              uuid.UUID
		rewards, bestRule int
	}{
		{"configured, from memory", memoryReads{held: held}, configured, configured, 0, 0},
		{"unseen: the rule, from memory", memoryReads{held: held}, unseen, byRule, 0, 0},
		{"memory fails: the repo", memoryReads{fail: true}, configured, configured, 1, 0},
		{"memory fails, unseen: the repo's rule", memoryReads{fail: true}, unseen, byRule, 1, 1},
	} {
		repo := &screenRepo{screen: Screen{Placements: []Placement{placement(tc.rewardID)}, StoreURL: "https://store.example.com"}, held: held}
		s := NewService(repoOf{repo}, Config{Currency: "INR", Reads: tc.reads})
		out, err := s.Serve(ctx, ServeRequest{Screen: "home"})
		require.NoError(t, err, tc.name)
		require.NotNil(t, out.Item, tc.name)
		require.Equal(t, tc.want.String(), out.Item.ID, tc.name)
		require.Equal(t, tc.rewards, repo.rewards, "%s: rewards read from the repo", tc.name)
		require.Equal(t, tc.bestRule, repo.best, "%s: rules read from the repo", tc.name)
	}
}
