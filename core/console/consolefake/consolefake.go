// Package consolefake is an in-memory world for tests of the console and of what calls it: one
// value that is the console's own storage (console.Repo) and stands in for the services the
// console calls that have no fake of their own (players, coins, orders, touchpoints, partner).
// Register it with a memstore.Runner (memstore.New) and a failed transaction leaves it as it
// was. The studio and webhooks modules have fakes of their storage (studiofake, webhooksfake):
// run their real services over them beside this.
package consolefake

import (
	"bytes"
	"context"

	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// Keys finds an API key by its hash, as the studio module's storage does; studiofake.Repo is one.
type Keys interface {
	KeyHints(gameID uuid.UUID) map[studio.Environment]string
}

// World is the fake. The zero value is not ready; use New.
type World struct {
	*memstore.Table[state]
	keys Keys
}

var (
	_ console.Repo        = (*World)(nil)
	_ console.Players     = (*World)(nil)
	_ console.Coins       = (*World)(nil)
	_ console.Orders      = (*World)(nil)
	_ console.Touchpoints = (*World)(nil)
	_ console.Partner     = (*World)(nil)
)

type gameEnv struct {
	game uuid.UUID
	env  studio.Environment
}

type state struct {
	players        map[uuid.UUID]players.Player
	forgotten      []uuid.UUID
	settings       map[uuid.UUID]players.StoreSettings
	coins          map[uuid.UUID][]coins.Coin
	txs            []coins.Transaction
	orders         []orders.Order
	transitions    map[uuid.UUID][]orders.Transition
	placements     map[gameEnv][]touchpoints.Placement
	touchCoin      map[uuid.UUID]uuid.UUID
	partnerSecrets map[gameEnv]time.Time
	partner        map[uuid.UUID]partner.Settings
	wallets        map[gameEnv]money.Amount
	entries        []partner.Entry
}

func (s state) clone() state {
	c := s
	c.players = memstore.CloneMap(s.players, func(p players.Player) players.Player {
		p.Addresses = slices.Clone(p.Addresses)
		return p
	})
	c.forgotten = slices.Clone(s.forgotten)
	c.settings = memstore.CloneMap(s.settings, func(v players.StoreSettings) players.StoreSettings {
		v.Theme = bytes.Clone(v.Theme)
		return v
	})
	c.coins = memstore.CloneMap(s.coins, slices.Clone)
	c.txs = slices.Clone(s.txs)
	c.orders = slices.Clone(s.orders)
	c.transitions = memstore.CloneMap(s.transitions, slices.Clone)
	c.placements = memstore.CloneMap(s.placements, slices.Clone)
	c.touchCoin = maps.Clone(s.touchCoin)
	c.partnerSecrets = maps.Clone(s.partnerSecrets)
	c.partner = maps.Clone(s.partner)
	c.wallets = maps.Clone(s.wallets)
	c.entries = slices.Clone(s.entries)
	return c
}

// New returns an empty world; keys gives the hints of the games' keys.
func New(keys Keys) *World {
	return &World{keys: keys, Table: memstore.NewTable(state{
		players: map[uuid.UUID]players.Player{}, settings: map[uuid.UUID]players.StoreSettings{},
		coins: map[uuid.UUID][]coins.Coin{}, transitions: map[uuid.UUID][]orders.Transition{},
		placements: map[gameEnv][]touchpoints.Placement{}, touchCoin: map[uuid.UUID]uuid.UUID{},
		partnerSecrets: map[gameEnv]time.Time{}, partner: map[uuid.UUID]partner.Settings{},
		wallets: map[gameEnv]money.Amount{},
	}, state.clone)}
}

// Fingerprint is the whole world as a comparable value, for tests that check a refused call
// changed nothing.
func (w *World) Fingerprint() any {
	st := w.Lock()
	defer w.Unlock()
	c := st.clone()
	c.forgotten = nil // forgetting a cache is not a change of data
	return c
}

// AddPlayer stores p (an id is made when it has none) and returns it.
func (w *World) AddPlayer(p players.Player) players.Player {
	st := w.Lock()
	defer w.Unlock()
	if p.ID == uuid.Nil {
		p.ID = uuid.New()
	}
	p.CreatedAt, p.UpdatedAt = w.Now(), w.Now()
	st.players[p.ID] = p
	return p
}

// Player returns a player as stored.
func (w *World) Player(id uuid.UUID) (players.Player, bool) {
	st := w.Lock()
	defer w.Unlock()
	p, ok := st.players[id]
	return p, ok
}

// Forgotten returns the players Forget was called with, in order.
func (w *World) Forgotten() []uuid.UUID {
	st := w.Lock()
	defer w.Unlock()
	return slices.Clone(st.forgotten)
}

// AddCoin adds a coin to a game and returns it.
func (w *World) AddCoin(gameID uuid.UUID, name string) coins.Coin {
	st := w.Lock()
	defer w.Unlock()
	c := coins.Coin{ID: uuid.New(), GameID: gameID, Name: name, CreatedAt: w.Now()}
	st.coins[gameID] = append(st.coins[gameID], c)
	return c
}

// AddTransaction records a movement of a player's coin.
func (w *World) AddTransaction(t coins.Transaction) coins.Transaction {
	st := w.Lock()
	defer w.Unlock()
	if t.ID == uuid.Nil {
		t.ID = uuid.New()
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = w.Now()
	}
	st.txs = append(st.txs, t)
	return t
}

// AddOrder stores o (an id and creation time are made when it has none) with its history.
func (w *World) AddOrder(o orders.Order, history ...orders.Transition) orders.Order {
	st := w.Lock()
	defer w.Unlock()
	if o.ID == uuid.Nil {
		o.ID = uuid.New()
	}
	if o.CreatedAt.IsZero() {
		o.CreatedAt = w.Now()
	}
	o.CreatedAt = memstore.PGTime(o.CreatedAt)
	st.orders = append(st.orders, o)
	st.transitions[o.ID] = history
	return o
}

// Credentials implements console.Repo: both environments of every game, with the hints kept of
// its current keys.
func (w *World) Credentials(ctx context.Context, gameID uuid.UUID) ([]console.Credentials, error) {
	st := w.Lock()
	defer w.Unlock()
	out := []console.Credentials{{Environment: studio.Live}, {Environment: studio.Test}}
	hints := w.keys.KeyHints(gameID)
	for i := range out {
		out[i].KeyHint = hints[out[i].Environment]
	}
	for i := range out {
		if at, ok := st.partnerSecrets[gameEnv{gameID, out[i].Environment}]; ok {
			out[i].PartnerSecretIssuedAt = &at
		}
	}
	return out, nil
}

// TouchpointCoin implements console.Repo.
func (w *World) TouchpointCoin(_ context.Context, gameID uuid.UUID) (*uuid.UUID, error) {
	st := w.Lock()
	defer w.Unlock()
	if id, ok := st.touchCoin[gameID]; ok {
		return &id, nil
	}
	return nil, nil
}

// SetPlayerBlocked implements console.Repo.
func (w *World) SetPlayerBlocked(_ context.Context, sc players.Scope, id uuid.UUID, blocked bool) (players.Player, error) {
	st := w.Lock()
	defer w.Unlock()
	p, ok := st.players[id]
	if !ok || p.GameID != sc.GameID || p.Environment != sc.Environment {
		return players.Player{}, players.ErrPlayerNotFound
	}
	p.IsBlocked, p.UpdatedAt = blocked, w.Now()
	st.players[id] = p
	return p, nil
}

// Orders implements console.Repo.
func (w *World) Orders(_ context.Context, q console.OrderQuery) ([]orders.Order, error) {
	st := w.Lock()
	defer w.Unlock()
	var out []orders.Order
	for _, o := range st.orders {
		switch {
		case o.GameID != q.GameID || o.Environment != q.Environment,
			q.Status != "" && o.Status != q.Status,
			q.PlayerID != nil && o.PlayerID != *q.PlayerID,
			q.From != nil && o.CreatedAt.Before(*q.From),
			q.To != nil && !o.CreatedAt.Before(*q.To),
			q.After != nil && memstore.CompareCreated(o.CreatedAt, o.ID, q.After.CreatedAt, q.After.ID) >= 0:
			continue
		}
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b orders.Order) int { return memstore.CompareCreated(b.CreatedAt, b.ID, a.CreatedAt, a.ID) })
	if len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// DeletePlacement implements console.Repo.
func (w *World) DeletePlacement(_ context.Context, gameID uuid.UUID, env studio.Environment, id uuid.UUID) error {
	st := w.Lock()
	defer w.Unlock()
	k := gameEnv{gameID, env}
	i := slices.IndexFunc(st.placements[k], func(p touchpoints.Placement) bool { return p.ID == id })
	if i < 0 {
		return touchpoints.ErrPlacementNotFound
	}
	st.placements[k] = slices.Delete(st.placements[k], i, i+1)
	return nil
}

// Lookup implements console.Players as players.Service.Lookup does: a phone (for a ref starting
// with +), then the studio's uuid, then the player's id.
func (w *World) Lookup(_ context.Context, sc players.Scope, ref string) (players.Player, error) {
	st := w.Lock()
	defer w.Unlock()
	ref = strings.TrimSpace(ref)
	matches := []func(players.Player) bool{
		func(p players.Player) bool { return strings.HasPrefix(ref, "+") && p.Phone != nil && *p.Phone == ref },
		func(p players.Player) bool { return p.UUID != nil && *p.UUID == ref },
		func(p players.Player) bool { return p.ID.String() == ref },
	}
	for _, match := range matches {
		for _, p := range st.players {
			if ref != "" && p.GameID == sc.GameID && p.Environment == sc.Environment && match(p) {
				return p, nil
			}
		}
	}
	return players.Player{}, players.ErrPlayerNotFound
}

// Forget implements console.Players.
func (w *World) Forget(id uuid.UUID) {
	st := w.Lock()
	defer w.Unlock()
	st.forgotten = append(st.forgotten, id)
}

// StoreSettings implements console.Players.
func (w *World) StoreSettings(_ context.Context, gameID uuid.UUID) (players.StoreSettings, error) {
	st := w.Lock()
	defer w.Unlock()
	if s, ok := st.settings[gameID]; ok {
		return s, nil
	}
	return players.DefaultStoreSettings, nil
}

// ChangeStoreSettings implements console.Players (the theme must be a JSON object).
func (w *World) ChangeStoreSettings(_ context.Context, gameID uuid.UUID, ch players.SettingsChange) (players.StoreSettings, error) {
	st := w.Lock()
	defer w.Unlock()
	cur, ok := st.settings[gameID]
	if !ok {
		cur = players.DefaultStoreSettings
	}
	if ch.Theme != nil && !bytes.HasPrefix(bytes.TrimSpace(ch.Theme), []byte("{")) {
		return players.StoreSettings{}, errs.Invalidf("theme must be a JSON object")
	}
	cur = ch.Apply(cur)
	cur.Theme = bytes.Clone(cur.Theme)
	st.settings[gameID] = cur
	return cur, nil
}

// ListCoins implements console.Coins.
func (w *World) ListCoins(_ context.Context, gameID uuid.UUID) ([]coins.Coin, error) {
	st := w.Lock()
	defer w.Unlock()
	return slices.Clone(st.coins[gameID]), nil
}

// Funds implements console.Coins: every coin of the game with the player's balance, the sum of
// its movements.
func (w *World) Funds(_ context.Context, gameID, playerID uuid.UUID) ([]coins.Fund, error) {
	st := w.Lock()
	defer w.Unlock()
	out := make([]coins.Fund, 0, len(st.coins[gameID]))
	for _, c := range st.coins[gameID] {
		f := coins.Fund{Coin: c}
		for _, t := range st.txs {
			if t.PlayerID == playerID && t.CoinID == c.ID {
				f.Balance += t.Amount
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// Transactions implements console.Coins: newest first.
func (w *World) Transactions(_ context.Context, playerID uuid.UUID, limit, offset int) ([]coins.Transaction, int64, error) {
	st := w.Lock()
	defer w.Unlock()
	var all []coins.Transaction
	for _, t := range st.txs {
		if t.PlayerID == playerID {
			all = append(all, t)
		}
	}
	slices.SortFunc(all, func(a, b coins.Transaction) int { return memstore.CompareCreated(b.CreatedAt, b.ID, a.CreatedAt, a.ID) })
	total := int64(len(all))
	all = all[min(offset, len(all)):]
	return all[:min(limit, len(all))], total, nil
}

// History implements console.Orders.
func (w *World) History(_ context.Context, id uuid.UUID) (orders.Order, []orders.Transition, error) {
	st := w.Lock()
	defer w.Unlock()
	for _, o := range st.orders {
		if o.ID == id {
			return o, slices.Clone(st.transitions[id]), nil
		}
	}
	return orders.Order{}, nil, orders.ErrOrderNotFound
}

// Placements implements console.Touchpoints.
func (w *World) Placements(_ context.Context, gameID uuid.UUID, env studio.Environment) ([]touchpoints.Placement, error) {
	if !env.Valid() {
		return nil, errs.Invalidf("environment must be live or test")
	}
	st := w.Lock()
	defer w.Unlock()
	return slices.Clone(st.placements[gameEnv{gameID, env}]), nil
}

// PutPlacement implements console.Touchpoints: creates or replaces by id, one placement per
// screen and type.
func (w *World) PutPlacement(_ context.Context, p touchpoints.Placement) (touchpoints.Placement, bool, error) {
	st := w.Lock()
	defer w.Unlock()
	k := gameEnv{p.GameID, p.Environment}
	list := st.placements[k]
	for _, o := range list {
		if o.ID != p.ID && o.Screen == p.Screen && o.Type == p.Type {
			return touchpoints.Placement{}, false, touchpoints.ErrPlacementConflict
		}
	}
	p.UpdatedAt = w.Now()
	if i := slices.IndexFunc(list, func(o touchpoints.Placement) bool { return o.ID == p.ID }); i >= 0 {
		list[i] = p
		return p, false, nil
	}
	st.placements[k] = append(list, p)
	return p, true, nil
}

// PromoteChecked implements console.Touchpoints: unless the difference changed since version,
// live becomes a copy of test, ids kept.
func (w *World) PromoteChecked(_ context.Context, gameID uuid.UUID, version string) (touchpoints.Diff, error) {
	st := w.Lock()
	defer w.Unlock()
	d := touchpoints.DiffPlacements(st.placements[gameEnv{gameID, studio.Test}], st.placements[gameEnv{gameID, studio.Live}])
	if version != "" && version != d.Version {
		return touchpoints.Diff{}, touchpoints.ErrPromoteChanged
	}
	live := make([]touchpoints.Placement, 0, len(st.placements[gameEnv{gameID, studio.Test}]))
	for _, p := range st.placements[gameEnv{gameID, studio.Test}] {
		p.Environment, p.UpdatedAt = studio.Live, w.Now()
		live = append(live, p)
	}
	st.placements[gameEnv{gameID, studio.Live}] = live
	return d, nil
}

// SetCoin implements console.Touchpoints.
func (w *World) SetCoin(_ context.Context, gameID, coinID uuid.UUID) error {
	st := w.Lock()
	defer w.Unlock()
	if !slices.ContainsFunc(st.coins[gameID], func(c coins.Coin) bool { return c.ID == coinID }) {
		return errs.Invalidf("coinId: %s is not a coin of this game", coinID)
	}
	st.touchCoin[gameID] = coinID
	return nil
}

// GetSettings implements console.Partner.
func (w *World) GetSettings(_ context.Context, gameID uuid.UUID) (partner.Settings, error) {
	st := w.Lock()
	defer w.Unlock()
	if s, ok := st.partner[gameID]; ok {
		return s, nil
	}
	return partner.Settings{GameID: gameID, Settlement: orders.Wallet}, nil
}

// IssueSecret implements console.Partner.
func (w *World) IssueSecret(_ context.Context, gameID uuid.UUID, env studio.Environment) (string, error) {
	if !env.Valid() {
		return "", errs.Invalidf("environment must be live or test")
	}
	st := w.Lock()
	defer w.Unlock()
	st.partnerSecrets[gameEnv{gameID, env}] = w.Now()
	return partner.NewClientSecret(), nil
}

// Credit adds to a game's partner wallet of env, as the operator's funding does.
func (w *World) Credit(gameID uuid.UUID, env studio.Environment, amount money.Amount) {
	st := w.Lock()
	defer w.Unlock()
	k := gameEnv{gameID, env}
	st.wallets[k] += amount
	st.entries = append(st.entries, partner.Entry{ID: int64(len(st.entries) + 1), GameID: gameID, Environment: env,
		Kind: partner.Credit, Amount: amount, BalanceAfter: st.wallets[k], CreatedAt: w.Now()})
}

// Ledger implements console.Partner.
func (w *World) Ledger(_ context.Context, gameID uuid.UUID, env studio.Environment, limit, offset int) (money.Amount, []partner.Entry, int64, error) {
	st := w.Lock()
	defer w.Unlock()
	var all []partner.Entry
	for _, e := range st.entries {
		if e.GameID == gameID && e.Environment == env {
			all = append(all, e)
		}
	}
	total := int64(len(all))
	all = all[min(offset, len(all)):]
	return st.wallets[gameEnv{gameID, env}], all[:min(limit, len(all))], total, nil
}
