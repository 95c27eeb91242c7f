// Package studiofake is an in-memory studio.Repo that behaves like the PostgreSQL one
// (adapters/postgres/studio.go), for core tests: the same errors for missing rows, the same
// ordering, the same uniqueness of API keys and server secrets. Register it with a memstore.Runner (memstore.New)
// and a failed transaction leaves it as it was. studiotest.Run is the contract it passes with
// PostgreSQL.
package studiofake

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
)

// Repo is the fake. The zero value is not ready; use New.
type Repo struct{ *memstore.Table[state] }

var _ studio.Repo = (*Repo)(nil)

type state struct {
	studios map[uuid.UUID]studio.Studio
	games   map[uuid.UUID]studio.Game
	keys    []apiKey // in insertion order
	secrets map[secretKey][]byte
}

// secretKey is the primary key of server_secrets; the value is the secret's hash.
type secretKey struct {
	gameID uuid.UUID
	env    studio.Environment
}

// apiKey is a row of api_keys.
type apiKey struct {
	gameID  uuid.UUID
	env     studio.Environment
	hash    []byte
	hint    string
	revoked bool
}

// New returns an empty fake.
func New() *Repo {
	return &Repo{Table: memstore.NewTable(state{studios: map[uuid.UUID]studio.Studio{}, games: map[uuid.UUID]studio.Game{},
		secrets: map[secretKey][]byte{}}, state.clone)}
}

func (s state) clone() state {
	return state{studios: memstore.CloneMap(s.studios, nil), games: memstore.CloneMap(s.games, nil),
		keys:    memstore.CloneSlice(s.keys, func(k apiKey) apiKey { k.hash = bytes.Clone(k.hash); return k }),
		secrets: memstore.CloneMap(s.secrets, bytes.Clone)}
}

// CreateStudio implements studio.Repo.
func (r *Repo) CreateStudio(_ context.Context, name string) (studio.Studio, error) {
	st := r.Lock()
	defer r.Unlock()
	s := studio.Studio{ID: uuid.New(), Name: name, CreatedAt: r.Now()}
	st.studios[s.ID] = s
	return s, nil
}

// ListStudios implements studio.Repo: oldest first.
func (r *Repo) ListStudios(context.Context) ([]studio.Studio, error) {
	st := r.Lock()
	defer r.Unlock()
	out := make([]studio.Studio, 0, len(st.studios))
	for _, s := range st.studios {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b studio.Studio) int { return memstore.CompareCreated(a.CreatedAt, a.ID, b.CreatedAt, b.ID) })
	return out, nil
}

// GetStudio implements studio.Repo.
func (r *Repo) GetStudio(_ context.Context, id uuid.UUID) (studio.Studio, error) {
	st := r.Lock()
	defer r.Unlock()
	return memstore.Get(st.studios, id, studio.ErrStudioNotFound)
}

// CreateGame implements studio.Repo. Like the foreign key of games, it fails (with an internal
// error, not ErrStudioNotFound) when the studio does not exist.
func (r *Repo) CreateGame(_ context.Context, g studio.Game) (studio.Game, error) {
	st := r.Lock()
	defer r.Unlock()
	if _, ok := st.studios[g.StudioID]; !ok {
		return studio.Game{}, fmt.Errorf("insert game: studio %s does not exist (foreign key violation)", g.StudioID)
	}
	// As StudioCreateGame, it takes the studio, name and store address; the rest are the
	// schema's defaults.
	live := studio.DefaultLiveBudget
	g = studio.Game{ID: uuid.New(), StudioID: g.StudioID, Name: g.Name, StoreURL: g.StoreURL, CreatedAt: r.Now(),
		PurchaseBudget: studio.Budgets{Live: &live}, AllowedOrigins: studio.Origins{Live: []string{}, Test: []string{}}}
	st.games[g.ID] = g
	return g, nil
}

// GetGame implements studio.Repo.
func (r *Repo) GetGame(_ context.Context, id uuid.UUID) (studio.Game, error) {
	st := r.Lock()
	defer r.Unlock()
	return memstore.Get(st.games, id, studio.ErrGameNotFound)
}

// LockGame implements studio.Repo. memstore runs transactions one at a time, so reading the
// game is all there is to it.
func (r *Repo) LockGame(ctx context.Context, id uuid.UUID) (studio.Game, error) {
	return r.GetGame(ctx, id)
}

// ListGames implements studio.Repo: oldest first.
func (r *Repo) ListGames(_ context.Context, studioID uuid.UUID) ([]studio.Game, error) {
	st := r.Lock()
	defer r.Unlock()
	out := []studio.Game{}
	for _, g := range st.games {
		if g.StudioID == studioID {
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b studio.Game) int { return memstore.CompareCreated(a.CreatedAt, a.ID, b.CreatedAt, b.ID) })
	return out, nil
}

// InsertAPIKey implements studio.Repo. Like the table's constraints, it fails when the game
// does not exist, when the hash is already stored, or when the game already has an active key
// in env.
func (r *Repo) InsertAPIKey(_ context.Context, gameID uuid.UUID, env studio.Environment, hash []byte, hint string) error {
	st := r.Lock()
	defer r.Unlock()
	if _, ok := st.games[gameID]; !ok {
		return fmt.Errorf("insert api key: game %s does not exist (foreign key violation)", gameID)
	}
	if !env.Valid() {
		return fmt.Errorf("insert api key: environment %q (check violation)", env)
	}
	for _, k := range st.keys {
		if bytes.Equal(k.hash, hash) {
			return fmt.Errorf("insert api key: hash already stored (unique violation)")
		}
		if k.gameID == gameID && k.env == env && !k.revoked {
			return fmt.Errorf("insert api key: game %s already has an active %s key (unique violation)", gameID, env)
		}
	}
	st.keys = append(st.keys, apiKey{gameID: gameID, env: env, hash: bytes.Clone(hash), hint: hint})
	return nil
}

// KeyHints returns the hint of the game's active key per environment, as the console's reads
// of api_keys see them (for fakes of those reads).
func (r *Repo) KeyHints(gameID uuid.UUID) map[studio.Environment]string {
	st := r.Lock()
	defer r.Unlock()
	out := map[studio.Environment]string{}
	for _, k := range st.keys {
		if k.gameID == gameID && !k.revoked {
			out[k.env] = k.hint
		}
	}
	return out
}

// RevokeAPIKeys implements studio.Repo.
func (r *Repo) RevokeAPIKeys(_ context.Context, gameID uuid.UUID, env studio.Environment) error {
	st := r.Lock()
	defer r.Unlock()
	for i := range st.keys {
		if k := &st.keys[i]; k.gameID == gameID && k.env == env {
			k.revoked = true
		}
	}
	return nil
}

// FindAPIKey implements studio.Repo.
func (r *Repo) FindAPIKey(_ context.Context, hash []byte) (studio.KeyRecord, error) {
	st := r.Lock()
	defer r.Unlock()
	for _, k := range st.keys {
		if bytes.Equal(k.hash, hash) {
			g := st.games[k.gameID]
			return studio.KeyRecord{GameID: g.ID, StudioID: g.StudioID, GameName: g.Name, Environment: k.env, Revoked: k.revoked,
				ServerOnlyCoinMovements: g.ServerOnlyCoinMovements, AllowedOrigins: slices.Clone(g.AllowedOrigins.Of(k.env))}, nil
		}
	}
	return studio.KeyRecord{}, studio.ErrKeyUnknown
}

// changeGame applies change to the stored game, as the SQL adapter's one-row UPDATE … RETURNING does.
func (r *Repo) changeGame(gameID uuid.UUID, change func(*studio.Game)) (studio.Game, error) {
	st := r.Lock()
	defer r.Unlock()
	g, ok := st.games[gameID]
	if !ok {
		return studio.Game{}, studio.ErrGameNotFound
	}
	change(&g)
	st.games[gameID] = g
	return g, nil
}

// SetPurchaseBudget implements studio.Repo.
func (r *Repo) SetPurchaseBudget(_ context.Context, gameID uuid.UUID, b studio.Budgets, set map[studio.Environment]bool) (studio.Game, error) {
	return r.changeGame(gameID, func(g *studio.Game) {
		if set[studio.Live] {
			g.PurchaseBudget.Live = b.Live
		}
		if set[studio.Test] {
			g.PurchaseBudget.Test = b.Test
		}
	})
}

// SetStoreURL implements studio.Repo.
func (r *Repo) SetStoreURL(_ context.Context, gameID uuid.UUID, storeURL string) (studio.Game, error) {
	return r.changeGame(gameID, func(g *studio.Game) { g.StoreURL = storeURL })
}

// SetServerOnlyCoinMovements implements studio.Repo.
func (r *Repo) SetServerOnlyCoinMovements(_ context.Context, gameID uuid.UUID, on bool) (studio.Game, error) {
	return r.changeGame(gameID, func(g *studio.Game) { g.ServerOnlyCoinMovements = on })
}

// SetAllowedOrigins implements studio.Repo.
func (r *Repo) SetAllowedOrigins(_ context.Context, gameID uuid.UUID, o studio.Origins, set map[studio.Environment]bool) (studio.Game, error) {
	return r.changeGame(gameID, func(g *studio.Game) {
		if set[studio.Live] {
			g.AllowedOrigins.Live = origins(o.Live)
		}
		if set[studio.Test] {
			g.AllowedOrigins.Test = origins(o.Test)
		}
	})
}

// origins is a copy of list as the text[] column keeps it: none is an empty list, not nil.
func origins(list []string) []string {
	if list == nil {
		return []string{}
	}
	return slices.Clone(list)
}

// OriginAllowed implements studio.Repo.
func (r *Repo) OriginAllowed(_ context.Context, env studio.Environment, origin string) (bool, error) {
	st := r.Lock()
	defer r.Unlock()
	for _, g := range st.games {
		if slices.Contains(g.AllowedOrigins.Of(env), origin) {
			return true, nil
		}
	}
	return false, nil
}

// PutServerSecret implements studio.Repo. Like the table's constraints, it fails when the game
// does not exist or when another secret already has the hash.
func (r *Repo) PutServerSecret(_ context.Context, gameID uuid.UUID, env studio.Environment, hash []byte) error {
	st := r.Lock()
	defer r.Unlock()
	if _, ok := st.games[gameID]; !ok {
		return fmt.Errorf("put server secret: game %s does not exist (foreign key violation)", gameID)
	}
	if !env.Valid() {
		return fmt.Errorf("put server secret: environment %q (check violation)", env)
	}
	k := secretKey{gameID: gameID, env: env}
	for other, h := range st.secrets {
		if other != k && bytes.Equal(h, hash) {
			return fmt.Errorf("put server secret: hash already stored (unique violation)")
		}
	}
	st.secrets[k] = bytes.Clone(hash)
	return nil
}

// FindServerSecret implements studio.Repo.
func (r *Repo) FindServerSecret(_ context.Context, hash []byte) (studio.SecretRecord, bool, error) {
	st := r.Lock()
	defer r.Unlock()
	for k, h := range st.secrets {
		if bytes.Equal(h, hash) {
			return studio.SecretRecord{GameID: k.gameID, Environment: k.env}, true, nil
		}
	}
	return studio.SecretRecord{}, false, nil
}
