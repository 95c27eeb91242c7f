package catalogue

import (
	"slices"
	"time"

	"github.com/google/uuid"
)

// RuleQuery selects the rewards a touchpoint rule picks: those the game's players see (in any
// country) of a type, category and brand, in a touchpoint order.
type RuleQuery struct {
	GameID uuid.UUID
	// CoinID is the coin whose price override comes with each reward; uuid.Nil for none.
	CoinID   uuid.UUID
	Type     Type
	Category string
	Brand    string
	// SortBy is a touchpoint order: NEWEST (created), PRICE_LOW_HIGH and PRICE_HIGH_LOW (selling
	// price of the smallest face value), DISCOUNT (discount on mrp), or anything else for none;
	// then x-score (highest first), newest, id: the order of the TouchpointsBestRewards SQL.
	SortBy string
	Now    time.Time
}

// Ranked is the rewards a RuleQuery picks, best first (stock not asked).
type Ranked struct {
	s      *Snapshot
	game   *gameView
	coinID uuid.UUID
	ids    []int32
}

// Len is how many rewards r holds.
func (r Ranked) Len() int { return len(r.ids) }

// At returns the i-th reward of r with the game's price override (Free and order counts unset).
func (r Ranked) At(i int) Listed {
	idx := r.ids[i]
	e := &r.s.rewards[idx]
	return Listed{Reward: *e.reward, Brand: *e.brand, Override: r.s.override(r.game, idx, r.coinID)}
}

// Reward returns the i-th reward of r as the snapshot holds it, without copying it: shared, to
// read only.
func (r Ranked) Reward(i int) *Reward { return r.s.rewards[r.ids[i]].reward }

// Seen returns reward id as the game sees it (whether it hides it, its price override for
// coinID); ok is false when the snapshot does not hold it (no such reward, or an inactive
// reward or brand, which only the storage holds).
func (s *Snapshot) Seen(gameID, coinID, id uuid.UUID) (l Listed, hidden bool, ok bool) {
	i, ok := s.byID[id]
	if !ok {
		return Listed{}, false, false
	}
	game := s.games[gameID]
	e := &s.rewards[i]
	return Listed{Reward: *e.reward, Brand: *e.brand, Override: s.override(game, i, coinID)}, s.hidden(game, i), true
}

// Rank returns the rewards q picks, best first: what TouchpointsBestRewards selects before its
// stock filter and limit, from memory.
func (s *Snapshot) Rank(q RuleQuery) Ranked {
	game := s.games[q.GameID]
	k := viewKey{game: q.GameID, rule: "rule:" + q.SortBy, typ: q.Type, category: q.Category, brand: q.Brand}
	v := s.view(k, func() *view { return s.buildRule(q, game) }, q.Now)
	return Ranked{s: s, game: game, coinID: q.CoinID, ids: v.ids}
}

func (s *Snapshot) buildRule(q RuleQuery, game *gameView) *view {
	// The rule's sorts are lists' orders on the selling price (no coin): compareKeys with the
	// selling price as the price; the rule has no orders or mode, so those compare equal.
	keys := make([]sortKey, 0, len(s.rewards))
	for i := range s.rewards {
		idx := int32(i)
		e := &s.rewards[i]
		r := e.reward
		if !s.visible(game, idx, "", q.Now) || (q.Type != "" && r.Type != q.Type) ||
			(q.Category != "" && !slices.Contains(e.brand.Categories, q.Category)) || (q.Brand != "" && r.BrandCode != q.Brand) {
			continue
		}
		keys = append(keys, sortKey{idx: idx, price: int64(r.SellingPriceOf(r.MinFace())), discount: r.DiscountOnMRP(),
			xscore: r.XScore, created: r.CreatedAt.UnixMicro(), id: r.ID, end: r.EndDate})
	}
	return sortedView(keys, Order(q.SortBy))
}
