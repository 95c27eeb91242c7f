// Package studiotest is the contract of studio.Repo: one suite of cases that every
// implementation passes, run on the in-memory fake (studiofake) and on PostgreSQL
// (adapters/postgres), so that core tests on the fake hold on the database too.
//
// ListStudios and OriginAllowed read every studio and game there is, so each case runs on a
// storage of its own.
package studiotest

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/store/contract"
	"github.com/rewardsco/rewards/core/studio"
)

// Run runs every case of the contract, each on a store of its own from open.
func Run(t *testing.T, open func(t *testing.T) store.Of[studio.Repo]) {
	contract.Run(t, func(t *testing.T) bundle { return bundle{Of: open(t), ctx: context.Background()} }, cases)
}

type bundle struct {
	store.Of[studio.Repo]
	ctx context.Context
}

func (b bundle) repo() studio.Repo { return b.Repo() }

func (b bundle) studio(t *testing.T, name string) studio.Studio {
	t.Helper()
	s, err := b.repo().CreateStudio(b.ctx, name)
	require.NoError(t, err)
	return s
}

func (b bundle) game(t *testing.T, studioID uuid.UUID, name string) studio.Game {
	t.Helper()
	g, err := b.repo().CreateGame(b.ctx, studio.Game{StudioID: studioID, Name: name, StoreURL: "https://store.example.com/" + name})
	require.NoError(t, err)
	return g
}

func amount(a money.Amount) *money.Amount { return &a }

var cases = []contract.Case[bundle]{
	{Name: "StudiosOldestFirst", Run: func(t *testing.T, b bundle) {
		list, err := b.repo().ListStudios(b.ctx)
		require.NoError(t, err)
		require.Empty(t, list)
		first, second := b.studio(t, "Pixel Forge"), b.studio(t, "Lantern")
		require.NotEqual(t, uuid.Nil, first.ID)
		require.Equal(t, "Pixel Forge", first.Name)
		require.False(t, first.CreatedAt.IsZero())
		list, err = b.repo().ListStudios(b.ctx)
		require.NoError(t, err)
		require.Equal(t, []studio.Studio{first, second}, list)
		got, err := b.repo().GetStudio(b.ctx, second.ID)
		require.NoError(t, err)
		require.Equal(t, second, got)
		_, err = b.repo().GetStudio(b.ctx, uuid.New())
		require.ErrorIs(t, err, studio.ErrStudioNotFound)
	}},
	{Name: "NewGameHasTheDefaults", Run: func(t *testing.T, b bundle) {
		s := b.studio(t, "Pixel Forge")
		g := b.game(t, s.ID, "Tower")
		require.NotEqual(t, uuid.Nil, g.ID)
		require.Equal(t, s.ID, g.StudioID)
		require.Equal(t, "Tower", g.Name)
		require.Equal(t, "https://store.example.com/Tower", g.StoreURL)
		require.False(t, g.CreatedAt.IsZero())
		require.False(t, g.ServerOnlyCoinMovements)
		require.Equal(t, studio.Budgets{Live: amount(studio.DefaultLiveBudget)}, g.PurchaseBudget, "live capped, test unlimited")
		require.Equal(t, studio.Origins{Live: []string{}, Test: []string{}}, g.AllowedOrigins)
		for _, read := range []func(context.Context, uuid.UUID) (studio.Game, error){b.repo().GetGame, b.repo().LockGame} {
			got, err := read(b.ctx, g.ID)
			require.NoError(t, err)
			require.Equal(t, g, got)
		}
	}},
	{Name: "CreateGameTakesStudioNameAndStoreURLAlone", Run: func(t *testing.T, b bundle) {
		s := b.studio(t, "Pixel Forge")
		g, err := b.repo().CreateGame(b.ctx, studio.Game{ID: uuid.New(), StudioID: s.ID, Name: "Tower", StoreURL: "https://store.example.com",
			ServerOnlyCoinMovements: true, PurchaseBudget: studio.Budgets{Test: amount(1_00)},
			AllowedOrigins: studio.Origins{Live: []string{"https://play.example.com"}}})
		require.NoError(t, err)
		require.Equal(t, studio.Game{ID: g.ID, StudioID: s.ID, Name: "Tower", StoreURL: "https://store.example.com", CreatedAt: g.CreatedAt,
			PurchaseBudget: studio.Budgets{Live: amount(studio.DefaultLiveBudget)}, AllowedOrigins: studio.Origins{Live: []string{}, Test: []string{}}}, g,
			"the rest are the defaults of a new game")
	}},
	{Name: "GamesOfAStudioOldestFirst", Run: func(t *testing.T, b bundle) {
		s, other := b.studio(t, "Pixel Forge"), b.studio(t, "Lantern")
		first, second := b.game(t, s.ID, "Tower"), b.game(t, s.ID, "Moat")
		b.game(t, other.ID, "Elsewhere")
		list, err := b.repo().ListGames(b.ctx, s.ID)
		require.NoError(t, err)
		require.Equal(t, []studio.Game{first, second}, list)
		list, err = b.repo().ListGames(b.ctx, uuid.New())
		require.NoError(t, err)
		require.Empty(t, list)
	}},
	{Name: "GameOfAnUnknownStudioIsRefused", Run: func(t *testing.T, b bundle) {
		_, err := b.repo().CreateGame(b.ctx, studio.Game{StudioID: uuid.New(), Name: "Orphan"})
		require.Error(t, err)
		require.NotErrorIs(t, err, studio.ErrStudioNotFound, "a foreign key, not a lookup")
	}},
	{Name: "UnknownGameIsNotFoundByEveryChange", Run: func(t *testing.T, b bundle) {
		id := uuid.New()
		all := map[studio.Environment]bool{studio.Live: true, studio.Test: true}
		calls := map[string]func() error{
			"GetGame":  func() error { _, err := b.repo().GetGame(b.ctx, id); return err },
			"LockGame": func() error { _, err := b.repo().LockGame(b.ctx, id); return err },
			"SetPurchaseBudget": func() error {
				_, err := b.repo().SetPurchaseBudget(b.ctx, id, studio.Budgets{}, all)
				return err
			},
			"SetAllowedOrigins": func() error {
				_, err := b.repo().SetAllowedOrigins(b.ctx, id, studio.Origins{}, all)
				return err
			},
			"SetStoreURL": func() error { _, err := b.repo().SetStoreURL(b.ctx, id, "https://x.example.com"); return err },
			"SetServerOnlyCoinMovements": func() error {
				_, err := b.repo().SetServerOnlyCoinMovements(b.ctx, id, true)
				return err
			},
		}
		for name, call := range calls {
			require.ErrorIs(t, call(), studio.ErrGameNotFound, name)
		}
	}},
	{Name: "SetPurchaseBudgetOfTheEnvironmentsAsked", Run: func(t *testing.T, b bundle) {
		g := b.game(t, b.studio(t, "Pixel Forge").ID, "Tower")
		got, err := b.repo().SetPurchaseBudget(b.ctx, g.ID, studio.Budgets{Live: amount(5_00), Test: amount(7_00)},
			map[studio.Environment]bool{studio.Test: true})
		require.NoError(t, err)
		require.Equal(t, studio.Budgets{Live: amount(studio.DefaultLiveBudget), Test: amount(7_00)}, got.PurchaseBudget)
		got, err = b.repo().SetPurchaseBudget(b.ctx, g.ID, studio.Budgets{}, map[studio.Environment]bool{studio.Live: true})
		require.NoError(t, err)
		require.Equal(t, studio.Budgets{Test: amount(7_00)}, got.PurchaseBudget, "nil is unlimited")
		read, err := b.repo().GetGame(b.ctx, g.ID)
		require.NoError(t, err)
		require.Equal(t, got, read)
	}},
	{Name: "AllowedOriginsOfTheEnvironmentsAsked", Run: func(t *testing.T, b bundle) {
		s := b.studio(t, "Pixel Forge")
		g, other := b.game(t, s.ID, "Tower"), b.game(t, s.ID, "Moat")
		got, err := b.repo().SetAllowedOrigins(b.ctx, g.ID, studio.Origins{Live: []string{"https://play.example.com"}, Test: []string{"https://dev.example.com"}},
			map[studio.Environment]bool{studio.Live: true, studio.Test: true})
		require.NoError(t, err)
		require.Equal(t, studio.Origins{Live: []string{"https://play.example.com"}, Test: []string{"https://dev.example.com"}}, got.AllowedOrigins)
		got, err = b.repo().SetAllowedOrigins(b.ctx, g.ID, studio.Origins{}, map[studio.Environment]bool{studio.Test: true})
		require.NoError(t, err)
		require.Equal(t, studio.Origins{Live: []string{"https://play.example.com"}, Test: []string{}}, got.AllowedOrigins,
			"none is an empty list; the live origins stay")
		read, err := b.repo().GetGame(b.ctx, g.ID)
		require.NoError(t, err)
		require.Equal(t, got, read)
		_, err = b.repo().SetAllowedOrigins(b.ctx, other.ID, studio.Origins{Test: []string{"https://other.example.com"}},
			map[studio.Environment]bool{studio.Test: true})
		require.NoError(t, err)

		for _, c := range []struct {
			env    studio.Environment
			origin string
			want   bool
		}{
			{studio.Live, "https://play.example.com", true},
			{studio.Test, "https://play.example.com", false},
			{studio.Test, "https://dev.example.com", false},
			{studio.Test, "https://other.example.com", true},
			{studio.Live, "https://play.example.com/", false},
		} {
			ok, err := b.repo().OriginAllowed(b.ctx, c.env, c.origin)
			require.NoError(t, err)
			require.Equal(t, c.want, ok, "%s %s", c.env, c.origin)
		}
	}},
	{Name: "StoreURLAndServerOnlyCoinMovements", Run: func(t *testing.T, b bundle) {
		g := b.game(t, b.studio(t, "Pixel Forge").ID, "Tower")
		got, err := b.repo().SetStoreURL(b.ctx, g.ID, "https://shop.example.com")
		require.NoError(t, err)
		require.Equal(t, "https://shop.example.com", got.StoreURL)
		got, err = b.repo().SetServerOnlyCoinMovements(b.ctx, g.ID, true)
		require.NoError(t, err)
		require.True(t, got.ServerOnlyCoinMovements)
		require.Equal(t, "https://shop.example.com", got.StoreURL)
		read, err := b.repo().GetGame(b.ctx, g.ID)
		require.NoError(t, err)
		require.Equal(t, got, read)
	}},
	{Name: "APIKeys", Run: func(t *testing.T, b bundle) {
		s := b.studio(t, "Pixel Forge")
		g := b.game(t, s.ID, "Tower")
		_, err := b.repo().FindAPIKey(b.ctx, []byte("live-1"))
		require.ErrorIs(t, err, studio.ErrKeyUnknown)
		require.NoError(t, b.repo().InsertAPIKey(b.ctx, g.ID, studio.Live, []byte("live-1"), ""))
		require.NoError(t, b.repo().InsertAPIKey(b.ctx, g.ID, studio.Test, []byte("test-1"), ""))
		_, err = b.repo().SetAllowedOrigins(b.ctx, g.ID, studio.Origins{Live: []string{"https://play.example.com"}}, map[studio.Environment]bool{studio.Live: true})
		require.NoError(t, err)
		_, err = b.repo().SetServerOnlyCoinMovements(b.ctx, g.ID, true)
		require.NoError(t, err)

		rec, err := b.repo().FindAPIKey(b.ctx, []byte("live-1"))
		require.NoError(t, err)
		require.Equal(t, studio.KeyRecord{GameID: g.ID, StudioID: s.ID, GameName: "Tower", Environment: studio.Live,
			ServerOnlyCoinMovements: true, AllowedOrigins: []string{"https://play.example.com"}}, rec)
		rec, err = b.repo().FindAPIKey(b.ctx, []byte("test-1"))
		require.NoError(t, err)
		require.Equal(t, studio.Test, rec.Environment)
		require.Equal(t, []string{}, rec.AllowedOrigins)

		require.Error(t, b.repo().InsertAPIKey(b.ctx, g.ID, studio.Live, []byte("live-2"), ""), "one active key per environment")
		require.Error(t, b.repo().InsertAPIKey(b.ctx, b.game(t, s.ID, "Moat").ID, studio.Live, []byte("live-1"), ""), "a hash is stored once")
		require.Error(t, b.repo().InsertAPIKey(b.ctx, uuid.New(), studio.Live, []byte("orphan"), ""), "the game must exist")

		require.NoError(t, b.repo().RevokeAPIKeys(b.ctx, g.ID, studio.Live))
		require.NoError(t, b.repo().InsertAPIKey(b.ctx, g.ID, studio.Live, []byte("live-2"), ""), "a rotation")
		rec, err = b.repo().FindAPIKey(b.ctx, []byte("live-1"))
		require.NoError(t, err)
		require.True(t, rec.Revoked, "a revoked key is still found, as revoked")
		rec, err = b.repo().FindAPIKey(b.ctx, []byte("live-2"))
		require.NoError(t, err)
		require.False(t, rec.Revoked)
		rec, err = b.repo().FindAPIKey(b.ctx, []byte("test-1"))
		require.NoError(t, err)
		require.False(t, rec.Revoked, "the other environment's key stays")
	}},
	{Name: "ServerSecrets", Run: func(t *testing.T, b bundle) {
		s := b.studio(t, "Pixel Forge")
		g, other := b.game(t, s.ID, "Tower"), b.game(t, s.ID, "Moat")
		_, found, err := b.repo().FindServerSecret(b.ctx, []byte("s1"))
		require.NoError(t, err)
		require.False(t, found)
		require.NoError(t, b.repo().PutServerSecret(b.ctx, g.ID, studio.Live, []byte("s1")))
		rec, found, err := b.repo().FindServerSecret(b.ctx, []byte("s1"))
		require.NoError(t, err)
		require.True(t, found)
		require.Equal(t, studio.SecretRecord{GameID: g.ID, Environment: studio.Live}, rec)

		require.NoError(t, b.repo().PutServerSecret(b.ctx, g.ID, studio.Live, []byte("s2")), "replaces")
		_, found, err = b.repo().FindServerSecret(b.ctx, []byte("s1"))
		require.NoError(t, err)
		require.False(t, found, "the replaced secret is gone")
		require.NoError(t, b.repo().PutServerSecret(b.ctx, g.ID, studio.Live, []byte("s2")), "the same again")
		require.Error(t, b.repo().PutServerSecret(b.ctx, other.ID, studio.Live, []byte("s2")), "a hash is stored once")
		require.Error(t, b.repo().PutServerSecret(b.ctx, uuid.New(), studio.Live, []byte("s3")), "the game must exist")
	}},
	{Name: "RollbackLeavesNothing", Run: func(t *testing.T, b bundle) {
		s := b.studio(t, "Pixel Forge")
		g := b.game(t, s.ID, "Tower")
		err := b.InTx(b.ctx, func(r studio.Repo) error {
			ns, err := r.CreateStudio(b.ctx, "Ghost")
			if err != nil {
				return err
			}
			ng, err := r.CreateGame(b.ctx, studio.Game{StudioID: ns.ID, Name: "Ghost Game"})
			if err != nil {
				return err
			}
			got, err := r.GetGame(b.ctx, ng.ID)
			if err != nil {
				return err
			}
			require.Equal(t, ng, got, "the transaction sees its own game")
			if _, err := r.SetStoreURL(b.ctx, g.ID, "https://ghost.example.com"); err != nil {
				return err
			}
			if err := r.InsertAPIKey(b.ctx, g.ID, studio.Live, []byte("ghost"), ""); err != nil {
				return err
			}
			return contract.ErrRollback
		})
		require.ErrorIs(t, err, contract.ErrRollback)
		list, err := b.repo().ListStudios(b.ctx)
		require.NoError(t, err)
		require.Equal(t, []studio.Studio{s}, list)
		read, err := b.repo().GetGame(b.ctx, g.ID)
		require.NoError(t, err)
		require.Equal(t, g, read)
		_, err = b.repo().FindAPIKey(b.ctx, []byte("ghost"))
		require.ErrorIs(t, err, studio.ErrKeyUnknown)
	}},
	{Name: "LockGameSerialisesRotations", Run: func(t *testing.T, b bundle) {
		// Each transaction rotates the live key: under LockGame every one of them revokes the
		// key before it and none breaks the one-active-key rule.
		g := b.game(t, b.studio(t, "Pixel Forge").ID, "Tower")
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Go(func() {
				err := b.InTx(b.ctx, func(r studio.Repo) error {
					if _, err := r.LockGame(b.ctx, g.ID); err != nil {
						return err
					}
					if err := r.RevokeAPIKeys(b.ctx, g.ID, studio.Live); err != nil {
						return err
					}
					return r.InsertAPIKey(b.ctx, g.ID, studio.Live, []byte{byte(i)}, "")
				})
				if err != nil {
					t.Errorf("rotate: %v", err)
				}
			})
		}
		wg.Wait()
		active := 0
		for i := range 6 {
			rec, err := b.repo().FindAPIKey(b.ctx, []byte{byte(i)})
			require.NoError(t, err)
			if !rec.Revoked {
				active++
			}
		}
		require.Equal(t, 1, active)
	}},
}
