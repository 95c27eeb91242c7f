package studio_test

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/studio"
)

// memStore is an in-memory studio.Store that behaves like the PostgreSQL one, for domain tests.
// Transactions are serialised and not rolled back, which the tests here do not rely on.
type memStore struct {
	mu      sync.Mutex
	studios map[uuid.UUID]studio.Studio
	games   map[uuid.UUID]studio.Game
	keys    map[string]*memKey
}

type memKey struct {
	gameID  uuid.UUID
	env     studio.Environment
	revoked bool
}

func newMemStore() *memStore {
	return &memStore{studios: map[uuid.UUID]studio.Studio{}, games: map[uuid.UUID]studio.Game{}, keys: map[string]*memKey{}}
}

func (m *memStore) InTx(ctx context.Context, fn func(studio.Repo) error) error { return fn(m) }
func (m *memStore) Repo() studio.Repo                                          { return m }

func (m *memStore) CreateStudio(_ context.Context, name string) (studio.Studio, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := studio.Studio{ID: uuid.New(), Name: name, CreatedAt: time.Now()}
	m.studios[s.ID] = s
	return s, nil
}

func (m *memStore) ListStudios(context.Context) ([]studio.Studio, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []studio.Studio
	for _, s := range m.studios {
		out = append(out, s)
	}
	return out, nil
}

func (m *memStore) GetStudio(_ context.Context, id uuid.UUID) (studio.Studio, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.studios[id]
	if !ok {
		return studio.Studio{}, studio.ErrStudioNotFound
	}
	return s, nil
}

func (m *memStore) CreateGame(_ context.Context, g studio.Game) (studio.Game, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g.ID, g.CreatedAt = uuid.New(), time.Now()
	m.games[g.ID] = g
	return g, nil
}

func (m *memStore) GetGame(_ context.Context, id uuid.UUID) (studio.Game, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.games[id]
	if !ok {
		return studio.Game{}, studio.ErrGameNotFound
	}
	return g, nil
}

func (m *memStore) LockGame(ctx context.Context, id uuid.UUID) (studio.Game, error) {
	return m.GetGame(ctx, id)
}

func (m *memStore) ListGames(_ context.Context, studioID uuid.UUID) ([]studio.Game, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []studio.Game
	for _, g := range m.games {
		if g.StudioID == studioID {
			out = append(out, g)
		}
	}
	return out, nil
}

func (m *memStore) InsertAPIKey(_ context.Context, gameID uuid.UUID, env studio.Environment, hash []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keys[string(hash)] = &memKey{gameID: gameID, env: env}
	return nil
}

func (m *memStore) RevokeAPIKeys(_ context.Context, gameID uuid.UUID, env studio.Environment) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range m.keys {
		if k.gameID == gameID && k.env == env {
			k.revoked = true
		}
	}
	return nil
}

func (m *memStore) FindAPIKey(_ context.Context, hash []byte) (studio.KeyRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.keys[string(hash)]
	if !ok {
		return studio.KeyRecord{}, studio.ErrKeyUnknown
	}
	g := m.games[k.gameID]
	return studio.KeyRecord{GameID: g.ID, StudioID: g.StudioID, GameName: g.Name, Environment: k.env, Revoked: k.revoked}, nil
}
