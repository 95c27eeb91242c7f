// Package studiofake is an in-memory studio.Repo that behaves like the PostgreSQL one
// (adapters/postgres/studio.go), for core tests: the same errors for missing rows, the same
// ordering, the same uniqueness of API keys. Register it with a memstore.Runner (memstore.New)
// and a failed transaction leaves it as it was.
package studiofake

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
)

// Repo is the fake. The zero value is not ready; use New.
type Repo struct {
	mu   sync.Mutex
	st   state
	last time.Time // the last now()
}

var (
	_ studio.Repo          = (*Repo)(nil)
	_ memstore.Snapshotter = (*Repo)(nil)
)

type state struct {
	studios map[uuid.UUID]studio.Studio
	games   map[uuid.UUID]studio.Game
	keys    []apiKey // in insertion order
}

// apiKey is a row of api_keys.
type apiKey struct {
	gameID  uuid.UUID
	env     studio.Environment
	hash    []byte
	revoked bool
}

// New returns an empty fake.
func New() *Repo {
	return &Repo{st: state{studios: map[uuid.UUID]studio.Studio{}, games: map[uuid.UUID]studio.Game{}}}
}

// Snapshot implements memstore.Snapshotter.
func (r *Repo) Snapshot() (restore func()) {
	r.mu.Lock()
	saved := r.st.clone()
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		r.st = saved.clone()
		r.mu.Unlock()
	}
}

func (s state) clone() state {
	c := state{studios: make(map[uuid.UUID]studio.Studio, len(s.studios)), games: make(map[uuid.UUID]studio.Game, len(s.games)),
		keys: make([]apiKey, len(s.keys))}
	for id, v := range s.studios {
		c.studios[id] = v
	}
	for id, v := range s.games {
		c.games[id] = v
	}
	for i, k := range s.keys {
		k.hash = bytes.Clone(k.hash)
		c.keys[i] = k
	}
	return c
}

// now is PostgreSQL's now() as a timestamptz keeps it: microseconds, no monotonic reading. It
// never repeats, so that rows written one after the other sort in that order, as rows written
// by separate transactions do. r.mu is held.
func (r *Repo) now() time.Time {
	t := time.Now().Truncate(time.Microsecond)
	if !t.After(r.last) {
		t = r.last.Add(time.Microsecond)
	}
	r.last = t
	return t
}

// byCreated orders rows by created_at, then id, as the queries' ORDER BY created_at, id does.
func byCreated(at1 time.Time, id1 uuid.UUID, at2 time.Time, id2 uuid.UUID) int {
	if c := at1.Compare(at2); c != 0 {
		return c
	}
	return bytes.Compare(id1[:], id2[:])
}

// CreateStudio implements studio.Repo.
func (r *Repo) CreateStudio(_ context.Context, name string) (studio.Studio, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := studio.Studio{ID: uuid.New(), Name: name, CreatedAt: r.now()}
	r.st.studios[s.ID] = s
	return s, nil
}

// ListStudios implements studio.Repo: oldest first.
func (r *Repo) ListStudios(context.Context) ([]studio.Studio, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]studio.Studio, 0, len(r.st.studios))
	for _, s := range r.st.studios {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b studio.Studio) int { return byCreated(a.CreatedAt, a.ID, b.CreatedAt, b.ID) })
	return out, nil
}

// GetStudio implements studio.Repo.
func (r *Repo) GetStudio(_ context.Context, id uuid.UUID) (studio.Studio, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.st.studios[id]
	if !ok {
		return studio.Studio{}, studio.ErrStudioNotFound
	}
	return s, nil
}

// CreateGame implements studio.Repo. Like the foreign key of games, it fails (with an internal
// error, not ErrStudioNotFound) when the studio does not exist.
func (r *Repo) CreateGame(_ context.Context, g studio.Game) (studio.Game, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.st.studios[g.StudioID]; !ok {
		return studio.Game{}, fmt.Errorf("insert game: studio %s does not exist (foreign key violation)", g.StudioID)
	}
	g.ID, g.CreatedAt = uuid.New(), r.now()
	r.st.games[g.ID] = g
	return g, nil
}

// GetGame implements studio.Repo.
func (r *Repo) GetGame(_ context.Context, id uuid.UUID) (studio.Game, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	g, ok := r.st.games[id]
	if !ok {
		return studio.Game{}, studio.ErrGameNotFound
	}
	return g, nil
}

// LockGame implements studio.Repo. memstore runs transactions one at a time, so reading the
// game is all there is to it.
func (r *Repo) LockGame(ctx context.Context, id uuid.UUID) (studio.Game, error) {
	return r.GetGame(ctx, id)
}

// ListGames implements studio.Repo: oldest first.
func (r *Repo) ListGames(_ context.Context, studioID uuid.UUID) ([]studio.Game, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []studio.Game{}
	for _, g := range r.st.games {
		if g.StudioID == studioID {
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b studio.Game) int { return byCreated(a.CreatedAt, a.ID, b.CreatedAt, b.ID) })
	return out, nil
}

// InsertAPIKey implements studio.Repo. Like the table's constraints, it fails when the game
// does not exist, when the hash is already stored, or when the game already has an active key
// in env.
func (r *Repo) InsertAPIKey(_ context.Context, gameID uuid.UUID, env studio.Environment, hash []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.st.games[gameID]; !ok {
		return fmt.Errorf("insert api key: game %s does not exist (foreign key violation)", gameID)
	}
	if !env.Valid() {
		return fmt.Errorf("insert api key: environment %q (check violation)", env)
	}
	for _, k := range r.st.keys {
		if bytes.Equal(k.hash, hash) {
			return fmt.Errorf("insert api key: hash already stored (unique violation)")
		}
		if k.gameID == gameID && k.env == env && !k.revoked {
			return fmt.Errorf("insert api key: game %s already has an active %s key (unique violation)", gameID, env)
		}
	}
	r.st.keys = append(r.st.keys, apiKey{gameID: gameID, env: env, hash: bytes.Clone(hash)})
	return nil
}

// RevokeAPIKeys implements studio.Repo.
func (r *Repo) RevokeAPIKeys(_ context.Context, gameID uuid.UUID, env studio.Environment) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.st.keys {
		if k := &r.st.keys[i]; k.gameID == gameID && k.env == env {
			k.revoked = true
		}
	}
	return nil
}

// FindAPIKey implements studio.Repo.
func (r *Repo) FindAPIKey(_ context.Context, hash []byte) (studio.KeyRecord, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range r.st.keys {
		if bytes.Equal(k.hash, hash) {
			g := r.st.games[k.gameID]
			return studio.KeyRecord{GameID: g.ID, StudioID: g.StudioID, GameName: g.Name, Environment: k.env, Revoked: k.revoked}, nil
		}
	}
	return studio.KeyRecord{}, studio.ErrKeyUnknown
}
