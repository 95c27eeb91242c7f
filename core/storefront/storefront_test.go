package storefront_test

import (
	"context"
	"encoding/base64"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/storefront"
	"github.com/rewardsco/rewards/core/studio"
)

// codes is an in-memory Repo with the storage's rules: one take per code, before its expiry.
type codes struct {
	mu   sync.Mutex
	rows map[string]*row
}

type row struct {
	scope   players.Scope
	player  uuid.UUID
	expires time.Time
	used    bool
}

func (c *codes) InsertEntry(_ context.Context, hash []byte, sc players.Scope, id uuid.UUID, exp time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rows[string(hash)] = &row{scope: sc, player: id, expires: exp}
	return nil
}

func (c *codes) TakeEntry(_ context.Context, hash []byte, now time.Time) (players.Scope, uuid.UUID, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.rows[string(hash)]
	if !ok || r.used || !now.Before(r.expires) {
		return players.Scope{}, uuid.Nil, storefront.ErrEntryInvalid
	}
	r.used = true
	return r.scope, r.player, nil
}

// roster answers Active from a set of players.
type roster map[uuid.UUID]*players.Player

func (r roster) Active(_ context.Context, sc players.Scope, id uuid.UUID) (players.Player, error) {
	p, ok := r[id]
	if !ok || p.GameID != sc.GameID || p.Environment != sc.Environment {
		return players.Player{}, players.ErrPlayerNotFound
	}
	if p.IsBlocked {
		return players.Player{}, players.ErrPlayerDisabled
	}
	return *p, nil
}

type bundle struct {
	svc    *storefront.Service
	now    time.Time
	player *players.Player
}

func setup(t *testing.T) *bundle {
	t.Helper()
	p := &players.Player{ID: uuid.New(), GameID: uuid.New(), Environment: studio.Test}
	b := &bundle{now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), player: p}
	b.svc = storefront.New(&codes{rows: map[string]*row{}}, roster{p.ID: p}, []byte("0123456789abcdef0123456789abcdef"), func() time.Time { return b.now })
	return b
}

func TestEntryCodeOpensOneSessionWithinAMinute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		after time.Duration
		block bool
		again bool
		want  error
	}{
		{name: "fresh", after: 59 * time.Second},
		{name: "expired", after: 60 * time.Second, want: storefront.ErrEntryInvalid},
		{name: "used", again: true, want: storefront.ErrEntryInvalid},
		{name: "blocked after the link was made", block: true, want: storefront.ErrSessionInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := setup(t)
			e, err := b.svc.Open(ctx, *b.player)
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(e.Code), 32)
			require.Equal(t, b.now.Add(storefront.EntryTTL), e.ExpiresAt)
			b.now = b.now.Add(c.after)
			b.player.IsBlocked = c.block
			if c.again {
				_, _, err := b.svc.Enter(ctx, e.Code)
				require.NoError(t, err)
			}
			s, value, err := b.svc.Enter(ctx, e.Code)
			if c.want != nil {
				require.ErrorIs(t, err, c.want)
				require.Empty(t, value)
				return
			}
			require.NoError(t, err)
			require.Equal(t, b.player.ID, s.Player.ID)
			require.NotContains(t, value, e.Code)
		})
	}
}

func TestBlockedPlayerGetsNoLink(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.player.IsBlocked = true
	_, err := b.svc.Open(context.Background(), *b.player)
	require.ErrorIs(t, err, players.ErrPlayerDisabled)
}

// A session lasts 24 h, ends when its player is blocked, and a value changed in any byte, or
// signed with another key, opens nothing.
func TestSessionResumes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	e, err := b.svc.Open(ctx, *b.player)
	require.NoError(t, err)
	_, value, err := b.svc.Enter(ctx, e.Code)
	require.NoError(t, err)

	s, err := b.svc.Resume(ctx, value)
	require.NoError(t, err)
	require.Equal(t, b.player.ID, s.Player.ID)

	raw, err := base64.RawURLEncoding.DecodeString(value)
	require.NoError(t, err)
	for i := range raw {
		forged := append([]byte(nil), raw...)
		forged[i] ^= 1
		_, err := b.svc.Resume(ctx, base64.RawURLEncoding.EncodeToString(forged))
		require.ErrorIs(t, err, storefront.ErrSessionInvalid, "byte %d", i)
	}
	other := storefront.New(&codes{rows: map[string]*row{}}, roster{b.player.ID: b.player}, []byte("another key of thirty-two bytes!"), func() time.Time { return b.now })
	_, err = other.Resume(ctx, value)
	require.ErrorIs(t, err, storefront.ErrSessionInvalid)
	_, err = b.svc.Resume(ctx, "not a session")
	require.ErrorIs(t, err, storefront.ErrSessionInvalid)

	b.now = b.now.Add(storefront.SessionTTL - time.Second)
	_, err = b.svc.Resume(ctx, value)
	require.NoError(t, err)
	b.player.IsBlocked = true
	_, err = b.svc.Resume(ctx, value)
	require.ErrorIs(t, err, storefront.ErrSessionInvalid, "blocked: signed out at the next request")
	b.player.IsBlocked = false
	b.now = b.now.Add(time.Second)
	_, err = b.svc.Resume(ctx, value)
	require.ErrorIs(t, err, storefront.ErrSessionInvalid, "24 h")
}
