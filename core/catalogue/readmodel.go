package catalogue

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/semaphore"

	"github.com/rewardsco/rewards/core/money"
)

// SnapshotData is the whole catalogue as the read model holds it, read in one consistent view
// of the storage and labelled with the version that view had.
type SnapshotData struct {
	Version    int64
	Categories []Category
	// Brands are the active brands; Rewards the active rewards of those brands: nothing else is
	// ever visible.
	Brands  []Brand
	Rewards []Reward
	// Games are what each game changed of those rewards.
	Games []GameReward
	// Orders count successful orders per reward (TRENDING, most-ordered).
	Orders map[uuid.UUID]OrderCount
	// SearchTexts is the first pass of the search index over each reward's search texts, made
	// as they were read, in the order of Rewards; or Search holds the texts by id. Without
	// either (nil) the snapshot does not search (Searches).
	SearchTexts *SearchTexts
	Search      map[uuid.UUID]SearchText
	// BrandNames and CategoryNames are every brand's and category's lower-case name, by code,
	// active or not: what search filters by name match.
	BrandNames, CategoryNames map[string]string
}

// Changes are what changed of the catalogue between a snapshot's version and Version, when
// only rewards and the games' hiding and prices did (SnapshotSource.LoadChanges).
type Changes struct {
	Version int64
	// Rewards are the rewards whose rows changed (inserted, updated or deleted); Current those
	// of them now active, of active brands (the others leave the snapshot), and Search their
	// search texts by id.
	Rewards []uuid.UUID
	Current []Reward
	Search  map[uuid.UUID]SearchText
	// Games are what the games changed of the rewards: every game's of every reward
	// (SnapshotData.Games) when AllGames (the games' hiding or coin prices changed), else
	// those of the changed rewards alone.
	Games    []GameReward
	AllGames bool
}

// OrderCount is a reward's successful orders in the last 7 and 30 days.
type OrderCount struct{ Last7d, Last30d int64 }

// SnapshotSource is the storage the read model loads the catalogue from.
type SnapshotSource interface {
	// Version returns the catalogue's version, which moves with every committed change of what
	// SnapshotData holds (order counts and pool stock excepted).
	Version(ctx context.Context) (int64, error)
	// Load reads the whole catalogue; order counts are those of the days before now.
	Load(ctx context.Context, now time.Time) (SnapshotData, error)
	// LoadChanges reads what changed of the catalogue after version after, in one consistent
	// view, when it can be taken without a whole Load: only rewards (at most most of them) and
	// what the games changed of the rewards. ok is false when anything else changed, more
	// rewards did, or the steps since after are no longer known (a whole Load is needed).
	LoadChanges(ctx context.Context, after int64, most int) (changes Changes, ok bool, err error)
	// OrderCounts reads the order counts alone.
	OrderCounts(ctx context.Context, now time.Time) (map[uuid.UUID]OrderCount, error)
	// Watch listens for changes of the catalogue until ctx ends or the connection fails,
	// whose error it returns. It calls changed once it listens (a change may have been missed
	// before) and then at each change another instance or this one commits.
	Watch(ctx context.Context, changed func()) error
}

// Intervals of the read model's watcher (ReadModel.Run).
const (
	// VersionCheckInterval is how often the watcher compares the catalogue's version with its
	// snapshot's, whatever notifications say: a notification lost with its connection delays
	// a change by at most this (plus a load).
	VersionCheckInterval = 300 * time.Millisecond
	// OrderCountsInterval is how often order counts (TRENDING, most-ordered) are read again.
	OrderCountsInterval = 5 * time.Second
	// freeMemoryInterval spaces the returns of a load's garbage to the system.
	freeMemoryInterval = 5 * time.Second
	// maxChangedRewards is how many changed rewards, beyond half of a snapshot's, are loaded
	// alone into a new snapshot rather than by a whole load.
	maxChangedRewards = 1000
	// maxCachedIDs bounds the sorted views a snapshot keeps (one per game, coin, filters and
	// order asked for), counted in reward indexes (4 bytes each): 16 MiB.
	maxCachedIDs = 4 << 20
)

// ReadModel is the catalogue in memory: an immutable Snapshot, replaced whole by a new one
// when the catalogue's version moves, so a read never waits for a load (but the very first).
// Changes made through this instance's Service are loaded before the call that made them
// returns (read-your-writes); changes committed elsewhere arrive through Run. Without Run, each
// read compares the version first (one cheap statement), so a read model nobody runs is never
// stale. When the storage cannot be reached, reads keep being served from the last snapshot.
type ReadModel struct {
	src SnapshotSource
	now func() time.Time

	cur      atomic.Pointer[Snapshot]
	freed    atomic.Int64 // when memory was last given back (UnixNano)
	load     sync.Mutex   // one load at a time
	watching atomic.Bool
	// OnError, when set, hears every failed load of Run (the last snapshot stays).
	OnError func(error)
}

// NewReadModel returns a read model over src; now is the clock (nil: time.Now).
func NewReadModel(src SnapshotSource, now func() time.Time) *ReadModel {
	if now == nil {
		now = time.Now
	}
	return &ReadModel{src: src, now: now}
}

// Current returns the snapshot to read: the last one loaded, or a first load. Without a running
// watcher it first loads a newer version if there is one; when that check fails, the last
// snapshot is served.
func (m *ReadModel) Current(ctx context.Context) (*Snapshot, error) {
	s := m.cur.Load()
	if s == nil {
		if err := m.Refresh(ctx); err != nil {
			return nil, err
		}
		return m.cur.Load(), nil
	}
	if !m.watching.Load() {
		if err := m.Refresh(ctx); err == nil {
			s = m.cur.Load()
		}
	}
	return s, nil
}

// Loaded is Current for a reader that must not wait for the catalogue's first load (a
// purchase, which can read the storage instead): nil until a snapshot is loaded.
func (m *ReadModel) Loaded(ctx context.Context) *Snapshot {
	if m.cur.Load() == nil {
		return nil
	}
	s, err := m.Current(ctx)
	if err != nil {
		return nil
	}
	return s
}

// Refresh loads the catalogue again when its version moved past the snapshot's (or when there
// is no snapshot yet), and returns once the new snapshot serves reads.
func (m *ReadModel) Refresh(ctx context.Context) error {
	m.load.Lock()
	defer m.load.Unlock()
	if s := m.cur.Load(); s != nil {
		v, err := m.src.Version(ctx)
		if err != nil {
			return fmt.Errorf("catalogue version: %w", err)
		}
		if v <= s.version {
			return nil
		}
		// A few rewards, or a game's hiding or coin prices (the changes studios and operators
		// make most), changed alone: the rest of the snapshot stands as it is.
		changes, ok, err := m.src.LoadChanges(ctx, s.version, len(s.rewards)/2+maxChangedRewards)
		if err != nil {
			return fmt.Errorf("load the catalogue's changes: %w", err)
		}
		if ok {
			m.cur.Store(s.withChanges(changes, m.now()))
			return nil
		}
	}
	now := m.now()
	data, err := m.src.Load(ctx, now)
	if err != nil {
		return fmt.Errorf("load the catalogue: %w", err)
	}
	snap := newSnapshot(data, now)
	// A snapshot serves once its search index stands: a load makes several times the snapshot's
	// size in garbage (the rows, their texts, the index's first numbering), which the runtime
	// would keep for minutes, and a forced collection gives it back. At start-up that is before
	// the first request, which would otherwise build its views beside the collection and the
	// index, on a heap the collection takes them for part of; after a reload, it also gives
	// back the snapshot replaced.
	if err := snap.SearchIndexErr(); err != nil {
		m.fail(fmt.Errorf("index the catalogue's search texts (searches fail until the next load): %w", err))
	}
	if first := m.cur.Load() == nil; first {
		m.freeMemory()
		m.cur.Store(snap)
	} else {
		m.cur.Store(snap)
		go m.freeMemory()
	}
	return nil
}

// freeMemory gives the heap's free pages back to the system, at most every
// freeMemoryInterval: each is a whole collection.
func (m *ReadModel) freeMemory() {
	if last := m.freed.Load(); time.Since(time.Unix(0, last)) >= freeMemoryInterval && m.freed.CompareAndSwap(last, time.Now().UnixNano()) {
		debug.FreeOSMemory()
	}
}

// refreshOrders reads the order counts again into a new snapshot of the same catalogue.
func (m *ReadModel) refreshOrders(ctx context.Context) error {
	orders, err := m.src.OrderCounts(ctx, m.now())
	if err != nil {
		return fmt.Errorf("order counts: %w", err)
	}
	m.load.Lock()
	defer m.load.Unlock()
	if s := m.cur.Load(); s != nil {
		m.cur.Store(s.withOrders(orders))
	}
	return nil
}

// Run keeps the read model current until ctx ends: it loads the catalogue, then loads it again
// at each notified change and whenever the periodic version check finds it moved (a
// notification lost with a dropped connection), and reads order counts every
// OrderCountsInterval. A failed load keeps the last snapshot and is tried again at the next
// check.
func (m *ReadModel) Run(ctx context.Context) {
	m.watching.Store(true)
	defer m.watching.Store(false)
	changed := make(chan struct{}, 1)
	signal := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	go func() {
		for ctx.Err() == nil {
			err := m.src.Watch(ctx, signal)
			if ctx.Err() != nil {
				return
			}
			m.fail(fmt.Errorf("listen for catalogue changes: %w", err))
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	check := time.NewTicker(VersionCheckInterval)
	defer check.Stop()
	orders := time.NewTicker(OrderCountsInterval)
	defer orders.Stop()
	m.fail(m.Refresh(ctx))
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
			m.fail(m.Refresh(ctx))
		case <-check.C:
			m.fail(m.Refresh(ctx))
		case <-orders.C:
			m.fail(m.refreshOrders(ctx))
		}
	}
}

func (m *ReadModel) fail(err error) {
	if err != nil && m.OnError != nil {
		m.OnError(err)
	}
}

// Snapshot is one immutable version of the catalogue, with the sorted views its reads built
// (each valid until the first end date among its rewards).
type Snapshot struct {
	version  int64
	loadedAt time.Time
	rewards  []entry
	byID     map[uuid.UUID]int32
	// categories in display order (display order, name, code).
	categories []Category
	// brands are the active brands by code, with the indexes in categories of their
	// categories (each once): what a changed reward's entry is made of (withChanges), and
	// what its categories are.
	brands    map[string]*Brand
	brandCats map[string][]int
	games     map[uuid.UUID]*gameView
	orders    []OrderCount // by reward index

	mu      sync.Mutex
	views   map[viewKey]*viewSlot
	viewIDs int // reward indexes held by views
	metas   map[uuid.UUID]*gameMeta

	search      *searchBuild // nil: no search texts loaded
	searchViews searchViews
}

type entry struct {
	reward *Reward // in SnapshotData.Rewards, which the snapshot keeps rather than copies
	brand  *Brand
}

// gameView is what one game changed of the catalogue, by reward index.
type gameView struct {
	hidden map[int32]bool
	prices map[int32]map[uuid.UUID]int64
}

func newSnapshot(d SnapshotData, now time.Time) *Snapshot {
	s := &Snapshot{version: d.Version, loadedAt: now, byID: make(map[uuid.UUID]int32, len(d.Rewards)),
		games: map[uuid.UUID]*gameView{}, views: map[viewKey]*viewSlot{}}
	s.categories = slices.Clone(d.Categories)
	slices.SortFunc(s.categories, func(a, b Category) int {
		return cmp.Or(cmp.Compare(a.DisplayOrder, b.DisplayOrder), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Code, b.Code))
	})
	catIndex := make(map[string]int, len(s.categories))
	for i, c := range s.categories {
		catIndex[c.Code] = i
	}
	brands := make(map[string]*Brand, len(d.Brands))
	brandCats := make(map[string][]int, len(d.Brands))
	for i := range d.Brands {
		b := &d.Brands[i]
		brands[b.Code] = b
		var cats []int
		for _, code := range b.Categories {
			if ci, ok := catIndex[code]; ok && !slices.Contains(cats, ci) {
				cats = append(cats, ci)
			}
		}
		brandCats[b.Code] = cats
	}
	s.brands, s.brandCats = brands, brandCats
	s.rewards = make([]entry, 0, len(d.Rewards))
	for i := range d.Rewards {
		r := &d.Rewards[i]
		b, ok := brands[r.BrandCode]
		if !ok {
			continue
		}
		s.byID[r.ID] = int32(len(s.rewards))
		s.rewards = append(s.rewards, entry{reward: r, brand: b})
	}
	s.games = gameViews(s.byID, d.Games)
	s.orders = ordersByIndex(s, d.Orders)
	if d.SearchTexts != nil || d.Search != nil {
		// The search index is finished once the snapshot serves everything else: until it is,
		// searches wait for it (Searches).
		b := &searchBuild{done: make(chan struct{})}
		s.search = b
		go func() {
			defer close(b.done)
			texts := d.SearchTexts
			if texts == nil {
				texts = searchTextsOf(s, d.Search)
			}
			x, err := newSearchIndex(len(s.rewards), func(i int) uuid.UUID { return s.rewards[i].reward.ID }, texts, d.BrandNames, d.CategoryNames)
			if err != nil {
				b.err = err
				return
			}
			b.idx = wholeSearch(x)
		}()
	}
	return s
}

// gameViews are what each game changed of the rewards, by reward index.
func gameViews(byID map[uuid.UUID]int32, games []GameReward) map[uuid.UUID]*gameView {
	out := map[uuid.UUID]*gameView{}
	for _, g := range games {
		if i, ok := byID[g.RewardID]; ok {
			addGame(out, i, g)
		}
	}
	return out
}

// addGame adds what g's game changed of reward i to games.
func addGame(games map[uuid.UUID]*gameView, i int32, g GameReward) {
	gv := games[g.GameID]
	if gv == nil {
		gv = &gameView{hidden: map[int32]bool{}, prices: map[int32]map[uuid.UUID]int64{}}
		games[g.GameID] = gv
	}
	if g.Hidden {
		gv.hidden[i] = true
	}
	if len(g.CoinPrices) > 0 {
		gv.prices[i] = g.CoinPrices
	}
}

// withChanges is s's catalogue with the changes ch made to it, at ch.Version. When only the
// games' hiding and prices changed, its rewards, categories, order counts and search index are
// s's. When rewards changed, the others keep their entries (and their order counts, until the
// next count); the changed ones keep their places when the set of rewards stands, and otherwise
// those still seen come after the others. Either way s's list views are carried over
// (carryViews), and the search index is made in the background as s's with the changed rewards
// in an overlay (snapshotSearch.with), reading the texts of the changed rewards alone: until it
// stands (a few ms), searches wait for it.
func (s *Snapshot) withChanges(ch Changes, now time.Time) *Snapshot {
	out := s.sameCatalogue()
	out.version = ch.Version
	if len(ch.Rewards) == 0 {
		if !ch.AllGames { // a step that changed nothing the snapshot holds
			out.carryViews(s, nil, func(uuid.UUID) []int32 { return nil }, now)
			return out
		}
		out.games = gameViews(s.byID, ch.Games)
		changed := map[uuid.UUID][]int32{}
		out.carryViews(s, nil, func(game uuid.UUID) []int32 {
			c, ok := changed[game]
			if !ok {
				c = gameChanges(s.games[game], out.games[game])
				changed[game] = c
			}
			return c
		}, now)
		return out
	}
	changed := make(map[uuid.UUID]bool, len(ch.Rewards))
	for _, id := range ch.Rewards {
		changed[id] = true
	}
	var current []entry // the changed rewards the snapshot lists, as they are now
	inPlace := true     // every changed reward was listed and still is
	for i := range ch.Current {
		r := &ch.Current[i]
		if b, ok := s.brands[r.BrandCode]; ok && changed[r.ID] {
			current = append(current, entry{reward: r, brand: b})
			_, was := s.byID[r.ID]
			inPlace = inPlace && was
		}
	}
	inPlace = inPlace && len(current) == len(changed)
	var from []int32 // each entry's index in s, -1 for a changed one
	if inPlace {
		// The changes studios and operators make most (a reward renamed, repriced) keep the set
		// of rewards: each keeps its place, and the snapshot's index by id and its order counts
		// (a changed reward keeps its count until the next) stand as they are.
		out.rewards, from = slices.Clone(s.rewards), make([]int32, len(s.rewards))
		for i := range from {
			from[i] = int32(i)
		}
		for _, e := range current {
			i := s.byID[e.reward.ID]
			out.rewards[i], from[i] = e, -1
		}
		out.byID = s.byID
	} else {
		out.rewards = make([]entry, 0, len(s.rewards)+len(current))
		from = make([]int32, 0, cap(out.rewards))
		for i := range s.rewards {
			if !changed[s.rewards[i].reward.ID] {
				out.rewards = append(out.rewards, s.rewards[i])
				from = append(from, int32(i))
			}
		}
		for _, e := range current {
			out.rewards = append(out.rewards, e)
			from = append(from, -1)
		}
		out.byID = make(map[uuid.UUID]int32, len(out.rewards))
		for i := range out.rewards {
			out.byID[out.rewards[i].reward.ID] = int32(i)
		}
	}
	to := inverse(from, len(s.rewards)) // each entry of s's index in out, -1 for one gone
	if ch.AllGames {
		out.games = gameViews(out.byID, ch.Games)
	} else {
		out.games = remapGames(s.games, to)
		for _, g := range ch.Games {
			if i, ok := out.byID[g.RewardID]; ok && changed[g.RewardID] {
				addGame(out.games, i, g)
			}
		}
	}
	if inPlace {
		out.orders = s.orders
	} else {
		out.orders = changedOrders(s, out, from)
	}
	if !ch.AllGames {
		var changed []int32
		for i, j := range from {
			if j < 0 {
				changed = append(changed, int32(i))
			}
		}
		out.carryViews(s, to, func(uuid.UUID) []int32 { return changed }, now)
	}
	out.search = nil
	if prev := s.search; prev != nil && ch.Search != nil {
		b := &searchBuild{done: make(chan struct{})}
		out.search = b
		go func() { // holding the last index alone: the last snapshot's views go meanwhile
			defer close(b.done)
			<-prev.done
			if prev.idx == nil {
				b.err = fmt.Errorf("no search index to take the changed rewards into: %w", prev.err)
				return
			}
			b.idx, b.err = prev.idx.with(out, from, to, ch.Search)
		}()
	}
	return out
}

// changedOrders are the order counts of out, which took a change of some rewards from s (its
// entry i was s's from[i], or is a changed reward, -1): a changed reward keeps its count until
// the next.
func changedOrders(s, out *Snapshot, from []int32) []OrderCount {
	orders := make([]OrderCount, len(out.rewards))
	for i, j := range from {
		if k, ok := s.byID[out.rewards[i].reward.ID]; j < 0 && ok {
			j = k
		}
		if j >= 0 {
			orders[i] = s.orders[j]
		}
	}
	return orders
}

// inverse is from turned around: from[i] is the index in the last snapshot (of n rewards) of
// the new one's entry i, or -1; inverse's [j] is the new index of the last one's entry j, or -1.
func inverse(from []int32, n int) []int32 {
	to := make([]int32, n)
	for j := range to {
		to[j] = -1
	}
	for i, j := range from {
		if j >= 0 {
			to[j] = int32(i)
		}
	}
	return to
}

// remapGames is games in the indexes of a new snapshot: to[j] is the new index of entry j, or -1
// (inverse).
func remapGames(games map[uuid.UUID]*gameView, to []int32) map[uuid.UUID]*gameView {
	out := make(map[uuid.UUID]*gameView, len(games))
	for id, g := range games {
		gv := &gameView{hidden: make(map[int32]bool, len(g.hidden)), prices: make(map[int32]map[uuid.UUID]int64, len(g.prices))}
		for j := range g.hidden {
			if i := to[j]; i >= 0 {
				gv.hidden[i] = true
			}
		}
		for j, p := range g.prices {
			if i := to[j]; i >= 0 {
				gv.prices[i] = p
			}
		}
		out[id] = gv
	}
	return out
}

// sameCatalogue is a snapshot of s's catalogue (rewards, categories, games, order counts and
// search index shared) with none of the views and counts its reads made.
func (s *Snapshot) sameCatalogue() *Snapshot {
	return &Snapshot{version: s.version, loadedAt: s.loadedAt, rewards: s.rewards, byID: s.byID, categories: s.categories,
		brands: s.brands, brandCats: s.brandCats, games: s.games, orders: s.orders, views: map[viewKey]*viewSlot{}, search: s.search}
}

func ordersByIndex(s *Snapshot, counts map[uuid.UUID]OrderCount) []OrderCount {
	out := make([]OrderCount, len(s.rewards))
	for id, c := range counts {
		if i, ok := s.byID[id]; ok {
			out[i] = c
		}
	}
	return out
}

// withOrders is the same catalogue with other order counts: s itself when they are the same,
// else a snapshot that keeps s's views of the orders that do not count orders.
func (s *Snapshot) withOrders(counts map[uuid.UUID]OrderCount) *Snapshot {
	orders := ordersByIndex(s, counts)
	if slices.Equal(orders, s.orders) {
		return s
	}
	out := s.sameCatalogue()
	out.orders = orders
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, slot := range s.views {
		if slot.ready() && k.order != OrderTrending && k.order != OrderMostOrdered {
			out.views[k] = slot
			out.viewIDs += len(slot.v.ids)
		}
	}
	return out
}

// Version is the catalogue version the snapshot holds.
func (s *Snapshot) Version() int64 { return s.version }

// Rewards is how many rewards the snapshot holds (the active rewards of active brands).
func (s *Snapshot) Rewards() int { return len(s.rewards) }

func (s *Snapshot) hidden(game *gameView, i int32) bool { return game != nil && game.hidden[i] }

func (s *Snapshot) override(game *gameView, i int32, coinID uuid.UUID) *int64 {
	if game == nil {
		return nil
	}
	if p, ok := game.prices[i][coinID]; ok && p > 0 {
		return &p
	}
	return nil
}

// visible reports whether the game's players see reward i now (Visible), in country if set.
func (s *Snapshot) visible(game *gameView, i int32, country string, now time.Time) bool {
	e := &s.rewards[i]
	return Visible(*e.reward, *e.brand, s.hidden(game, i), country, now)
}

// listed is reward i as q lists it.
func (s *Snapshot) listed(game *gameView, i int32, coinID uuid.UUID, coinsPerUnit int64) Listed {
	e := &s.rewards[i]
	return Listed{Reward: *e.reward, Brand: *e.brand, Override: s.override(game, i, coinID),
		Orders7d: s.orders[i].Last7d, Orders30d: s.orders[i].Last30d, CoinsPerUnit: coinsPerUnit}
}

// viewKey is what a sorted view depends on: everything of a ListQuery but its page and clock.
type viewKey struct {
	game, coin   uuid.UUID
	coinsPerUnit int64
	country      string
	category     string
	brand        string
	giftCard     int8 // 0 any, 1 gift cards only, 2 everything else
	dedupe       bool
	order        Order
	// rule and typ key the views of touchpoint rules (Rank); rule is "" for lists.
	rule string
	typ  Type
}

// viewSlot holds a view while it is built and once it is.
type viewSlot struct {
	once sync.Once
	done atomic.Bool
	v    *view
}

func (v *viewSlot) ready() bool { return v.done.Load() }

// view is the visible rewards of a viewKey, sorted, valid until the first end date among them.
type view struct {
	ids        []int32
	validUntil time.Time // zero: for ever
}

func (v *view) validAt(now time.Time) bool { return v.validUntil.IsZero() || now.Before(v.validUntil) }

func giftCardKey(g *bool) int8 {
	switch {
	case g == nil:
		return 0
	case *g:
		return 1
	}
	return 2
}

// List returns a page of the rewards q's game's players see (Visible; filtered by q's country,
// category, brand, gift cards and ids; one per brand when q.Dedupe), in q's order (Compare),
// and the total (Free left unset).
func (s *Snapshot) List(q ListQuery) ([]Listed, int64) {
	game := s.games[q.GameID]
	var ids []int32
	if len(q.RewardIDs) > 0 {
		ids = s.build(q, game, q.RewardIDs).ids
	} else {
		k := viewKey{game: q.GameID, coin: q.CoinID, coinsPerUnit: q.CoinsPerUnit, country: q.Country, category: q.Category,
			brand: q.Brand, giftCard: giftCardKey(q.GiftCard), dedupe: q.Dedupe, order: q.Order}
		ids = s.view(k, func() *view { return s.build(q, game, nil) }, q.Now).ids
	}
	total := int64(len(ids))
	lo := min(max(q.Offset, 0), len(ids))
	hi := min(lo+max(q.Limit, 0), len(ids))
	out := make([]Listed, 0, hi-lo)
	for _, i := range ids[lo:hi] {
		out = append(out, s.listed(game, i, q.CoinID, q.CoinsPerUnit))
	}
	return out, total
}

// sortKey is what Compare reads of a listed reward, computed once per reward of a view.
type sortKey struct {
	idx      int32
	price    int64 // coin price of the smallest face value
	orders   int64 // Orders7d (TRENDING) or Orders30d (MOST_ORDERED)
	discount money.Pct
	mode     int
	xscore   float64
	// relevance of a search's match (RELEVANCE, PRICING_MODE); zero in lists.
	relevance float64
	created   int64 // Unix microseconds: the precision the storage keeps
	id        uuid.UUID
	brand     string
	end       *time.Time
}

// compareKeys is Compare on sort keys, read once per reward rather than at each comparison
// (TestEveryListOrderIsTheOneCoreDefines holds the two to the same order).
func compareKeys(o Order, a, b *sortKey) int {
	var c int
	switch o {
	case OrderNewest:
		c = cmp.Compare(b.created, a.created)
	case OrderTrending, OrderMostOrdered:
		c = cmp.Compare(b.orders, a.orders)
	case OrderPriceLowHigh:
		c = cmp.Compare(a.price, b.price)
	case OrderPriceHighLow:
		c = cmp.Compare(b.price, a.price)
	case OrderDiscount:
		c = cmp.Compare(b.discount, a.discount)
	case OrderRelevance:
		c = compareFloats(b.relevance, a.relevance)
	case OrderPricingMode:
		c = cmp.Compare(a.mode, b.mode)
		if c == 0 {
			c = compareFloats(b.relevance, a.relevance)
		}
	}
	if c != 0 {
		return c
	}
	if c = compareFloats(b.xscore, a.xscore); c != 0 {
		return c
	}
	if c = cmp.Compare(b.created, a.created); c != 0 {
		return c
	}
	return slices.Compare(a.id[:], b.id[:])
}

// compareFloats is cmp.Compare for numbers that are never NaN (scores), without its NaN checks.
func compareFloats(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// view returns the view of k, built once by the first of the requests that ask for it (the
// others wait for it) and again once it has ended.
func (s *Snapshot) view(k viewKey, build func() *view, now time.Time) *view {
	s.mu.Lock()
	slot := s.views[k]
	if slot != nil && slot.ready() && !slot.v.validAt(now) {
		s.viewIDs -= len(slot.v.ids)
		slot = nil
	}
	if slot == nil {
		slot = &viewSlot{}
		s.views[k] = slot
	}
	s.mu.Unlock()
	slot.once.Do(func() {
		v := withSortBudget(len(s.rewards), build)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.viewIDs+len(v.ids) > maxCachedIDs && s.views[k] == slot {
			delete(s.views, k) // over the budget: used by the requests waiting for it, then dropped
		} else {
			s.viewIDs += len(v.ids)
		}
		slot.v = v
		slot.done.Store(true)
	})
	return slot.v
}

// maxSortingKeys bounds the sort keys that view builds hold at once. A view's build holds a
// key per reward of the catalogue until the view is sorted, and each order, filter, coin and
// game has a view of its own: views asked for together, as a store opens or after a reload,
// would each hold the catalogue's keys at the same time (BenchmarkViewsAskedTogether measures
// it). The bound runs one build of 100,000 rewards at a time and a dozen of 10,000; the others
// wait their turn.
const maxSortingKeys = 1 << 17

// sortBudget holds the keys of the builds under way to maxSortingKeys, across the snapshots
// of a process.
var sortBudget = semaphore.NewWeighted(maxSortingKeys)

// withSortBudget runs build, which holds a key per reward of a catalogue of n, within
// maxSortingKeys.
func withSortBudget(n int, build func() *view) *view {
	w := int64(min(n, maxSortingKeys))
	_ = sortBudget.Acquire(context.Background(), w) // without a deadline, Acquire waits until it succeeds
	defer sortBudget.Release(w)
	return build()
}

// build sorts the rewards q selects (only those of ids when given) as Compare says.
func (s *Snapshot) build(q ListQuery, game *gameView, only []uuid.UUID) *view {
	var keys []sortKey
	add := func(i int32) {
		if s.selects(q, game, i) {
			keys = append(keys, s.listKey(q, game, i))
		}
	}
	if only != nil {
		var seen []int32
		for _, id := range only {
			if i, ok := s.byID[id]; ok && !slices.Contains(seen, i) {
				seen = append(seen, i)
				add(i)
			}
		}
	} else {
		keys = make([]sortKey, 0, len(s.rewards))
		for i := range s.rewards {
			add(int32(i))
		}
	}
	if q.Dedupe {
		keys = dedupe(keys)
	}
	return sortedView(keys, q.Order)
}

// sortedView is the view of keys in order o, valid until the first of their rewards ends.
func sortedView(keys []sortKey, o Order) *view {
	slices.SortFunc(keys, func(a, b sortKey) int { return compareKeys(o, &a, &b) })
	v := &view{ids: make([]int32, len(keys))}
	for n := range keys {
		v.ids[n] = keys[n].idx
		if end := keys[n].end; end != nil && (v.validUntil.IsZero() || end.Before(v.validUntil)) {
			v.validUntil = *end
		}
	}
	return v
}

// selects reports whether q lists reward i (its game's view given).
func (s *Snapshot) selects(q ListQuery, game *gameView, i int32) bool {
	e := &s.rewards[i]
	if !s.visible(game, i, q.Country, q.Now) {
		return false
	}
	if q.Category != "" && !slices.Contains(e.brand.Categories, q.Category) {
		return false
	}
	if q.Brand != "" && e.reward.BrandCode != q.Brand {
		return false
	}
	return q.GiftCard == nil || (e.reward.Type == GiftCard) == *q.GiftCard
}

// listKey is reward i's sort key in q's list.
func (s *Snapshot) listKey(q ListQuery, game *gameView, i int32) sortKey {
	r := s.rewards[i].reward
	k := sortKey{idx: i, price: r.CoinPrice(r.MinFace(), q.CoinsPerUnit, s.override(game, i, q.CoinID)),
		discount: r.DiscountOnMRP(), mode: modeRank(*r), xscore: r.XScore, created: r.CreatedAt.UnixMicro(), id: r.ID,
		brand: r.BrandCode, end: r.EndDate}
	if q.Order == OrderMostOrdered {
		k.orders = s.orders[i].Last30d
	} else {
		k.orders = s.orders[i].Last7d
	}
	return k
}

// carryViews gives s, which took a change from last, last's list views still valid at now, made
// anew without sorting: the unchanged rewards keep their order (their keys are the same), the
// changed ones (changedIn a view's game, by s's index) s lists are placed by binary search, and
// those gone are left out. to maps last's index to s's (-1: gone or changed; nil: the same
// rewards at the same places). A view sorted anew would cost a sort of every reward and its
// keys (about 11 MB at 100,000 rewards) at each change. Views of touchpoint rules and deduped
// lists (which reward stands for its brand may change) are sorted again when asked for.
func (s *Snapshot) carryViews(last *Snapshot, to []int32, changedIn func(game uuid.UUID) []int32, now time.Time) {
	last.mu.Lock()
	defer last.mu.Unlock()
	for k, slot := range last.views {
		if !slot.ready() || k.rule != "" || k.dedupe || !slot.v.validAt(now) {
			continue
		}
		changed := changedIn(k.game)
		var again map[int32]bool // changed rewards still at their places, placed again
		if to == nil && len(changed) > 0 {
			again = make(map[int32]bool, len(changed))
			for _, i := range changed {
				again[i] = true
			}
		}
		q := ListQuery{GameID: k.game, CoinID: k.coin, CoinsPerUnit: k.coinsPerUnit, Country: k.country, Category: k.category,
			Brand: k.brand, Dedupe: k.dedupe, Order: k.order, Now: now}
		if k.giftCard != 0 {
			g := k.giftCard == 1
			q.GiftCard = &g
		}
		game := s.games[k.game]
		v := &view{ids: make([]int32, 0, len(slot.v.ids)+len(changed)), validUntil: slot.v.validUntil}
		for _, j := range slot.v.ids {
			i := j
			if to != nil {
				i = to[j]
			}
			if i >= 0 && !again[i] {
				v.ids = append(v.ids, i)
			}
		}
		for _, i := range changed {
			if !s.selects(q, game, i) {
				continue
			}
			key := s.listKey(q, game, i)
			at := sort.Search(len(v.ids), func(n int) bool {
				other := s.listKey(q, game, v.ids[n])
				return compareKeys(q.Order, &key, &other) < 0
			})
			v.ids = slices.Insert(v.ids, at, i)
			if end := key.end; end != nil && (v.validUntil.IsZero() || end.Before(v.validUntil)) {
				v.validUntil = *end
			}
		}
		if s.viewIDs+len(v.ids) > maxCachedIDs {
			continue
		}
		done := &viewSlot{v: v}
		done.once.Do(func() {})
		done.done.Store(true)
		s.views[k] = done
		s.viewIDs += len(v.ids)
	}
}

// gameChanges are the rewards (by index, ascending) whose hiding or coin prices differ between
// a game's two views (nil: nothing changed by the game).
func gameChanges(old, new *gameView) []int32 {
	hidden := func(g *gameView, i int32) bool { return g != nil && g.hidden[i] }
	prices := func(g *gameView, i int32) map[uuid.UUID]int64 {
		if g == nil {
			return nil
		}
		return g.prices[i]
	}
	changed := map[int32]bool{}
	for _, g := range []*gameView{old, new} {
		if g == nil {
			continue
		}
		for i := range g.hidden {
			if hidden(old, i) != hidden(new, i) {
				changed[i] = true
			}
		}
		for i := range g.prices {
			if !maps.Equal(prices(old, i), prices(new, i)) {
				changed[i] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(changed))
}

// dedupe keeps one reward per brand: the largest discount on mrp, then x-score, newest, id.
func dedupe(keys []sortKey) []sortKey {
	best := map[string]int{}
	for i := range keys {
		j, seen := best[keys[i].brand]
		if !seen || compareKeys(OrderDiscount, &keys[i], &keys[j]) < 0 {
			best[keys[i].brand] = i
		}
	}
	out := make([]sortKey, 0, len(best))
	for _, i := range best {
		out = append(out, keys[i])
	}
	return out
}

// Get returns one reward as q's game's players see it (Visible, in q's country if set), or
// ErrRewardNotFound.
func (s *Snapshot) Get(q ListQuery, id uuid.UUID) (Listed, error) {
	i, ok := s.byID[id]
	game := s.games[q.GameID]
	if !ok || !s.visible(game, i, q.Country, q.Now) {
		return Listed{}, ErrRewardNotFound
	}
	l := s.listed(game, i, q.CoinID, q.CoinsPerUnit)
	l.Orders7d, l.Orders30d, l.CoinsPerUnit = 0, 0, 0
	return l, nil
}

// maxGameMetas bounds the games whose brand and category counts a snapshot keeps.
const maxGameMetas = 10_000

// gameMeta is the brands and categories with rewards a game's players see, with how many,
// valid until the first end date among them.
type gameMeta struct {
	brands     []BrandMeta
	categories []CategoryMeta
	validUntil time.Time
}

// meta returns the game's brand and category counts, counted once per snapshot (and again
// once a reward among them ends).
func (s *Snapshot) meta(gameID uuid.UUID, now time.Time) *gameMeta {
	s.mu.Lock()
	m := s.metas[gameID]
	s.mu.Unlock()
	if m != nil && (m.validUntil.IsZero() || now.Before(m.validUntil)) {
		return m
	}
	m = &gameMeta{brands: s.countBrands(gameID, nil, "", now), categories: s.countCategories(gameID, now)}
	game := s.games[gameID]
	for i := range s.rewards {
		if end := s.rewards[i].reward.EndDate; end != nil && end.After(now) && (m.validUntil.IsZero() || end.Before(m.validUntil)) &&
			s.visible(game, int32(i), "", now) {
			m.validUntil = *end
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.metas == nil {
		s.metas = map[uuid.UUID]*gameMeta{}
	}
	if len(s.metas) < maxGameMetas {
		s.metas[gameID] = m
	}
	return m
}

// Brands returns the brands with rewards the game's players see (in any country), by name, with
// how many.
func (s *Snapshot) Brands(gameID uuid.UUID, giftCard *bool, category string, now time.Time) []BrandMeta {
	if giftCard == nil && category == "" {
		return append([]BrandMeta{}, s.meta(gameID, now).brands...)
	}
	return s.countBrands(gameID, giftCard, category, now)
}

func (s *Snapshot) countBrands(gameID uuid.UUID, giftCard *bool, category string, now time.Time) []BrandMeta {
	game := s.games[gameID]
	counts := map[*Brand]int64{}
	for i := range s.rewards {
		e := &s.rewards[i]
		if !s.visible(game, int32(i), "", now) {
			continue
		}
		if giftCard != nil && (e.reward.Type == GiftCard) != *giftCard {
			continue
		}
		if category != "" && !slices.Contains(e.brand.Categories, category) {
			continue
		}
		counts[e.brand]++
	}
	out := make([]BrandMeta, 0, len(counts))
	for b, n := range counts {
		out = append(out, BrandMeta{Brand: *b, RewardCount: n})
	}
	slices.SortFunc(out, func(a, b BrandMeta) int {
		return cmp.Or(cmp.Compare(a.Brand.Name, b.Brand.Name), cmp.Compare(a.Brand.Code, b.Brand.Code))
	})
	return out
}

// Categories returns the categories with rewards the game's players see, in display order, with
// how many.
func (s *Snapshot) Categories(gameID uuid.UUID, now time.Time) []CategoryMeta {
	return append([]CategoryMeta{}, s.meta(gameID, now).categories...)
}

func (s *Snapshot) countCategories(gameID uuid.UUID, now time.Time) []CategoryMeta {
	game := s.games[gameID]
	counts := make([]int64, len(s.categories))
	for i := range s.rewards {
		if !s.visible(game, int32(i), "", now) {
			continue
		}
		for _, ci := range s.brandCats[s.rewards[i].brand.Code] {
			counts[ci]++
		}
	}
	out := []CategoryMeta{}
	for ci, n := range counts {
		if n > 0 {
			out = append(out, CategoryMeta{Category: s.categories[ci], RewardCount: n})
		}
	}
	return out
}
