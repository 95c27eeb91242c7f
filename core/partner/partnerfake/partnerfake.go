// Package partnerfake is an in-memory partner.Repo and partner.WalletOrders that behave like the
// PostgreSQL ones (adapters/postgres/partner.go, partner_turns.go), for core tests: a wallet is
// never overdrawn, its journal is append-only with one credit per reference and one entry of
// each kind per order, a quote and a provider event are used once, lists have the same order
// and paging. Register it, and the orders fake its WALLET orders are stored in, with one
// memstore.Runner (memstore.New): a failed transaction leaves both as they were.
//
// What it holds of other modules' tables, since no fake of theirs does: the games and API keys
// a token is found with (AddGame, SetKey, RevokeKeys) and the gift cards partners buy
// (AddBrand). It places each WALLET order in a transaction of its own, where PostgreSQL may
// place several of one wallet together; each order's outcome is the same.
//
// partnertest.Run is the contract it passes with PostgreSQL.
package partnerfake

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/payments"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
)

// Repo is the fake. The zero value is not ready; use New.
type Repo struct {
	*memstore.Table[state]
	orders orders.Repo
}

var _ partner.Repo = (*Repo)(nil)

// wallet is one game's environment: a wallet, a client secret, the tokens.
type wallet struct {
	game uuid.UUID
	env  studio.Environment
}

type token struct {
	partner.TokenGrant
	createdAt time.Time
}

type apiKey struct {
	wallet
	revoked bool
}

type event struct{ provider, id string }

type state struct {
	games    map[uuid.UUID]studio.Game
	keys     map[string]apiKey // by hash
	settings map[uuid.UUID]partner.Settings
	secrets  map[wallet][]byte
	tokens   map[string]token // by hash
	balances map[wallet]money.Amount
	entries  []partner.Entry // append-only, ids ascending
	brands   []partner.Brand
	checked  map[uuid.UUID]time.Time // an order's last payment check
	quotes   map[string]uuid.UUID    // a quote's order
	events   map[event]bool
}

// New returns an empty fake whose WALLET orders are stored in orderRepo (register both with one
// runner); ClaimPaymentCheck finds orders there too.
func New(orderRepo orders.Repo) *Repo {
	return &Repo{orders: orderRepo, Table: memstore.NewTable(state{
		games: map[uuid.UUID]studio.Game{}, keys: map[string]apiKey{}, settings: map[uuid.UUID]partner.Settings{},
		secrets: map[wallet][]byte{}, tokens: map[string]token{}, balances: map[wallet]money.Amount{},
		checked: map[uuid.UUID]time.Time{}, quotes: map[string]uuid.UUID{}, events: map[event]bool{},
	}, state.clone)}
}

func (s state) clone() state {
	return state{
		games: memstore.CloneMap(s.games, nil), keys: memstore.CloneMap(s.keys, nil),
		settings: memstore.CloneMap(s.settings, nil), secrets: memstore.CloneMap(s.secrets, bytes.Clone),
		tokens: memstore.CloneMap(s.tokens, nil), balances: memstore.CloneMap(s.balances, nil),
		entries: memstore.CloneSlice(s.entries, cloneEntry), brands: slices.Clone(s.brands),
		checked: memstore.CloneMap(s.checked, nil), quotes: memstore.CloneMap(s.quotes, nil), events: memstore.CloneMap(s.events, nil),
	}
}

func cloneEntry(e partner.Entry) partner.Entry {
	e.OrderID = memstore.ClonePtr(e.OrderID)
	return e
}

// AddGame adds a game, which tokens are found with.
func (r *Repo) AddGame(g studio.Game) {
	st := r.Lock()
	defer r.Unlock()
	st.games[g.ID] = g
}

// SetKey adds an API key of a game's environment by its hash, as the studio module issues one.
func (r *Repo) SetKey(gameID uuid.UUID, env studio.Environment, hash []byte) {
	st := r.Lock()
	defer r.Unlock()
	st.keys[string(hash)] = apiKey{wallet: wallet{gameID, env}}
}

// RevokeKeys revokes every API key of a game's environment, as a rotation does.
func (r *Repo) RevokeKeys(gameID uuid.UUID, env studio.Environment) {
	st := r.Lock()
	defer r.Unlock()
	for h, k := range st.keys {
		if k.wallet == (wallet{gameID, env}) {
			k.revoked = true
			st.keys[h] = k
		}
	}
}

// AddBrand adds a gift card partners can buy.
func (r *Repo) AddBrand(b partner.Brand) {
	st := r.Lock()
	defer r.Unlock()
	st.brands = append(st.brands, b)
}

// PutSettings implements partner.Repo.
func (r *Repo) PutSettings(_ context.Context, s partner.Settings) (partner.Settings, error) {
	st := r.Lock()
	defer r.Unlock()
	s.UpdatedAt = r.Now()
	st.settings[s.GameID] = s
	return s, nil
}

// GetSettings implements partner.Repo.
func (r *Repo) GetSettings(_ context.Context, gameID uuid.UUID) (partner.Settings, bool, error) {
	st := r.Lock()
	defer r.Unlock()
	s, ok := st.settings[gameID]
	return s, ok, nil
}

// PutSecret implements partner.Repo.
func (r *Repo) PutSecret(_ context.Context, gameID uuid.UUID, env studio.Environment, hash []byte) error {
	st := r.Lock()
	defer r.Unlock()
	st.secrets[wallet{gameID, env}] = bytes.Clone(hash)
	return nil
}

// SecretHash implements partner.Repo.
func (r *Repo) SecretHash(_ context.Context, gameID uuid.UUID, env studio.Environment) ([]byte, bool, error) {
	st := r.Lock()
	defer r.Unlock()
	h, ok := st.secrets[wallet{gameID, env}]
	return bytes.Clone(h), ok, nil
}

// DeleteTokens implements partner.Repo.
func (r *Repo) DeleteTokens(_ context.Context, gameID uuid.UUID, env studio.Environment) error {
	st := r.Lock()
	defer r.Unlock()
	maps.DeleteFunc(st.tokens, func(_ string, t token) bool { return t.GameID == gameID && t.Environment == env })
	return nil
}

// LockTokens implements partner.Repo: the runner runs one transaction at a time.
func (r *Repo) LockTokens(context.Context, uuid.UUID, studio.Environment) error { return nil }

// TrimTokens implements partner.Repo: newest first by creation, then by hash.
func (r *Repo) TrimTokens(_ context.Context, gameID uuid.UUID, env studio.Environment, keep int) error {
	st := r.Lock()
	defer r.Unlock()
	var list []token
	for _, t := range st.tokens {
		if t.GameID == gameID && t.Environment == env {
			list = append(list, t)
		}
	}
	slices.SortFunc(list, func(a, b token) int {
		return cmp.Or(b.createdAt.Compare(a.createdAt), bytes.Compare(a.Hash, b.Hash))
	})
	for _, t := range list[min(keep, len(list)):] {
		delete(st.tokens, string(t.Hash))
	}
	return nil
}

// InsertToken implements partner.Repo.
func (r *Repo) InsertToken(_ context.Context, g partner.TokenGrant) error {
	st := r.Lock()
	defer r.Unlock()
	if _, dup := st.tokens[string(g.Hash)]; dup {
		return errors.New("insert partner token: duplicate key")
	}
	g.Hash, g.KeyHash, g.SecretHash = bytes.Clone(g.Hash), bytes.Clone(g.KeyHash), bytes.Clone(g.SecretHash)
	g.ExpiresAt = memstore.PGTime(g.ExpiresAt)
	st.tokens[string(g.Hash)] = token{TokenGrant: g, createdAt: r.Now()}
	return nil
}

// FindToken implements partner.Repo: the token's API key must be its game's and
// environment's, unrevoked; its client secret must be the current one (none when none is set),
// and a live token must have one. Its expiry is the caller's to check.
func (r *Repo) FindToken(_ context.Context, hash []byte) (partner.TokenRecord, error) {
	st := r.Lock()
	defer r.Unlock()
	t, err := memstore.Get(st.tokens, string(hash), partner.ErrTokenInvalid)
	if err != nil {
		return partner.TokenRecord{}, err
	}
	w := wallet{t.GameID, t.Environment}
	g, game := st.games[t.GameID]
	k, key := st.keys[string(t.KeyHash)]
	secret, hasSecret := st.secrets[w]
	switch {
	case !game, !key, k.wallet != w, k.revoked,
		hasSecret != (t.SecretHash != nil), !bytes.Equal(secret, t.SecretHash),
		t.Environment == studio.Live && t.SecretHash == nil:
		return partner.TokenRecord{}, partner.ErrTokenInvalid
	}
	rec := partner.TokenRecord{GameID: g.ID, StudioID: g.StudioID, GameName: g.Name, Environment: t.Environment, ExpiresAt: t.ExpiresAt}
	if s, ok := st.settings[g.ID]; ok {
		s.UpdatedAt = time.Time{}
		rec.Settings = &s
	}
	return rec, nil
}

// PurgeTokens implements partner.Repo.
func (r *Repo) PurgeTokens(_ context.Context, batch int) (int64, error) {
	st := r.Lock()
	defer r.Unlock()
	now := r.Now()
	var n int64
	for h, t := range st.tokens {
		if n < int64(batch) && t.ExpiresAt.Before(now) {
			delete(st.tokens, h)
			n++
		}
	}
	return n, nil
}

// LockWallet implements partner.Repo.
func (r *Repo) LockWallet(_ context.Context, gameID uuid.UUID, env studio.Environment) (money.Amount, error) {
	st := r.Lock()
	defer r.Unlock()
	w := wallet{gameID, env}
	if _, ok := st.balances[w]; !ok {
		st.balances[w] = 0
	}
	return st.balances[w], nil
}

// Wallet implements partner.Repo.
func (r *Repo) Wallet(_ context.Context, gameID uuid.UUID, env studio.Environment) (money.Amount, error) {
	st := r.Lock()
	defer r.Unlock()
	return st.balances[wallet{gameID, env}], nil
}

// Apply implements partner.Repo. As PostgreSQL's, the entry it returns has its id but not its
// time.
func (r *Repo) Apply(_ context.Context, e partner.Entry) (partner.Entry, error) {
	st := r.Lock()
	defer r.Unlock()
	if err := st.add(r.Now(), &e); err != nil {
		return partner.Entry{}, fmt.Errorf("record a wallet %s: %w", e.Kind, err)
	}
	e.CreatedAt = time.Time{}
	return e, nil
}

// add appends e to the journal, with its id and time, and sets its wallet's balance to
// e.BalanceAfter, checking what the tables check.
func (st *state) add(now time.Time, e *partner.Entry) error {
	w := wallet{e.GameID, e.Environment}
	if _, ok := st.balances[w]; !ok {
		return errors.New("no such wallet (foreign key)")
	}
	switch {
	case (e.Kind == partner.Debit) != (e.Amount < 0), e.Amount == 0, e.BalanceAfter < 0,
		(e.Kind == partner.Credit) != (e.OrderID == nil), (e.Kind == partner.Credit) != (e.Reference != ""):
		return errors.New("check violation")
	}
	for _, o := range st.entries {
		if o.GameID == e.GameID && o.Environment == e.Environment && e.Kind == partner.Credit && o.Kind == partner.Credit && o.Reference == e.Reference ||
			e.OrderID != nil && o.OrderID != nil && *o.OrderID == *e.OrderID && o.Kind == e.Kind {
			return errors.New("duplicate key")
		}
	}
	e.ID, e.CreatedAt = int64(len(st.entries))+1, now
	e.OrderID = memstore.ClonePtr(e.OrderID)
	st.entries = append(st.entries, *e)
	st.balances[w] = e.BalanceAfter
	return nil
}

// debit debits a wallet by amount for an order, as the PostgreSQL adapter's debitWallet does.
func (r *Repo) debit(gameID uuid.UUID, env studio.Environment, orderID uuid.UUID, amount money.Amount) error {
	st := r.Lock()
	defer r.Unlock()
	bal, ok := st.balances[wallet{gameID, env}]
	if !ok || bal < amount {
		return partner.ErrInsufficientBalance
	}
	e := partner.Entry{GameID: gameID, Environment: env, Kind: partner.Debit, Amount: -amount, BalanceAfter: bal - amount, OrderID: &orderID}
	if err := st.add(r.Now(), &e); err != nil {
		return fmt.Errorf("debit the wallet: %w", err)
	}
	return nil
}

// CreditExists implements partner.Repo.
func (r *Repo) CreditExists(_ context.Context, gameID uuid.UUID, env studio.Environment, reference string) (bool, error) {
	st := r.Lock()
	defer r.Unlock()
	return slices.ContainsFunc(st.entries, func(e partner.Entry) bool {
		return e.GameID == gameID && e.Environment == env && e.Kind == partner.Credit && e.Reference == reference
	}), nil
}

// OrderEntryExists implements partner.Repo.
func (r *Repo) OrderEntryExists(_ context.Context, orderID uuid.UUID, kind partner.EntryKind) (bool, error) {
	st := r.Lock()
	defer r.Unlock()
	return slices.ContainsFunc(st.entries, func(e partner.Entry) bool {
		return e.OrderID != nil && *e.OrderID == orderID && e.Kind == kind
	}), nil
}

// walletEntries returns a wallet's entries, oldest first.
func (st *state) walletEntries(gameID uuid.UUID, env studio.Environment) []partner.Entry {
	var out []partner.Entry
	for _, e := range st.entries {
		if e.GameID == gameID && e.Environment == env {
			out = append(out, cloneEntry(e))
		}
	}
	return out
}

// Entries implements partner.Repo.
func (r *Repo) Entries(_ context.Context, gameID uuid.UUID, env studio.Environment) ([]partner.Entry, error) {
	st := r.Lock()
	defer r.Unlock()
	return orEmpty(st.walletEntries(gameID, env)), nil
}

// EntriesPage implements partner.Repo.
func (r *Repo) EntriesPage(_ context.Context, gameID uuid.UUID, env studio.Environment, limit, offset int) ([]partner.Entry, int64, error) {
	st := r.Lock()
	defer r.Unlock()
	all := st.walletEntries(gameID, env)
	return orEmpty(page(all, limit, offset)), int64(len(all)), nil
}

// page is LIMIT limit OFFSET offset of list.
func page[T any](list []T, limit, offset int) []T {
	offset = min(offset, len(list))
	return list[offset:min(offset+limit, len(list))]
}

// orEmpty is list, never nil, as sqlc's lists are.
func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// Brands implements partner.Repo: by name, then code; the search matches a name or a code
// that contains it, whatever the case. As with PostgreSQL's count(*) OVER (), a page past the
// last brand has no total.
func (r *Repo) Brands(_ context.Context, q partner.BrandQuery) ([]partner.Brand, int64, error) {
	st := r.Lock()
	defer r.Unlock()
	search := strings.ToLower(q.Search)
	var list []partner.Brand
	for _, b := range st.brands {
		if strings.Contains(strings.ToLower(b.Name), search) || strings.Contains(strings.ToLower(b.Code), search) {
			list = append(list, b)
		}
	}
	slices.SortFunc(list, func(a, b partner.Brand) int { return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Code, b.Code)) })
	out := orEmpty(page(list, q.Limit, q.Offset))
	if len(out) == 0 {
		return out, 0, nil
	}
	return out, int64(len(list)), nil
}

// Brand implements partner.Repo.
func (r *Repo) Brand(_ context.Context, code string) (partner.Brand, bool, error) {
	st := r.Lock()
	defer r.Unlock()
	i := slices.IndexFunc(st.brands, func(b partner.Brand) bool { return b.Code == code })
	if i < 0 {
		return partner.Brand{}, false, nil
	}
	return st.brands[i], true, nil
}

// ClaimPaymentCheck implements partner.Repo: only an order the orders fake holds is claimed.
func (r *Repo) ClaimPaymentCheck(ctx context.Context, orderID uuid.UUID, every time.Duration) (bool, error) {
	if _, err := r.orders.Get(ctx, orderID); errors.Is(err, orders.ErrOrderNotFound) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	st := r.Lock()
	defer r.Unlock()
	now := r.Now()
	if last, ok := st.checked[orderID]; ok && last.After(now.Add(-every)) {
		return false, nil
	}
	st.checked[orderID] = now
	return true, nil
}

// UseQuote implements partner.Repo.
func (r *Repo) UseQuote(_ context.Context, quoteID string, orderID uuid.UUID) (bool, error) {
	st := r.Lock()
	defer r.Unlock()
	if _, used := st.quotes[quoteID]; used {
		return false, nil
	}
	st.quotes[quoteID] = orderID
	return true, nil
}

// RecordEvent implements partner.Repo: once per provider and event id.
func (r *Repo) RecordEvent(_ context.Context, provider string, _ studio.Environment, e payments.Event, _ *uuid.UUID) (bool, error) {
	st := r.Lock()
	defer r.Unlock()
	k := event{provider, e.ID}
	if st.events[k] {
		return false, nil
	}
	st.events[k] = true
	return true, nil
}

// WalletOrders is the fake's partner.WalletOrders: each order in a transaction of its own.
type WalletOrders struct {
	runner  store.Runner
	partner *Repo
}

var _ partner.WalletOrders = WalletOrders{}

// NewWalletOrders returns the WALLET orders of r, placed in transactions of runner, the runner
// r and its orders fake are registered with.
func NewWalletOrders(runner store.Runner, r *Repo) WalletOrders {
	return WalletOrders{runner: runner, partner: r}
}

// PlaceWalletOrder implements partner.WalletOrders.
func (w WalletOrders) PlaceWalletOrder(ctx context.Context, o orders.Order, quoteID string) (placed orders.Order, err error) {
	err = w.runner.InTx(ctx, func(store.Tx) error {
		if placed, err = w.partner.orders.Insert(ctx, o, partner.WalletDebited, orders.SentStep); err != nil {
			return err
		}
		if quoteID != "" {
			fresh, err := w.partner.UseQuote(ctx, quoteID, placed.ID)
			if err != nil {
				return err
			}
			if !fresh {
				return partner.ErrQuoteUsed
			}
		}
		return w.partner.debit(placed.GameID, placed.Environment, placed.ID, placed.Partner.Amount)
	})
	if err != nil {
		return orders.Order{}, err
	}
	return placed, nil
}
