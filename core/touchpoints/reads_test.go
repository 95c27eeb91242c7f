package touchpoints

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
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
