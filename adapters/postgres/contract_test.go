package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/audit/audittest"
	"github.com/rewardsco/rewards/core/coins/coinstest"
	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/idempotency/idemtest"
	"github.com/rewardsco/rewards/core/members/memberstest"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/players/playerstest"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/studio/studiotest"
)

// The contract suites of the core ports, on PostgreSQL: the same cases the fakes pass
// (core/<module>/<module>fake).

// contractDB is a fresh database for one case of a contract suite, with the stores that make
// the rows other modules' tables refer to.
type contractDB struct {
	db      *postgres.DB
	studios interface {
		CreateStudio(context.Context, string) (studio.Studio, error)
		CreateGame(context.Context, studio.Game) (studio.Game, error)
	}
	players players.Repo
}

func openContractDB(t *testing.T) contractDB {
	t.Helper()
	d := postgres.NewDB(pgtest.Pool(t))
	return contractDB{db: d, studios: postgres.NewStudioStore(d).Repo(), players: postgres.NewPlayersStore(d).Repo()}
}

// newGame is a game of a new studio.
func (c contractDB) newGame(t *testing.T) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	s, err := c.studios.CreateStudio(ctx, "Contract Studio")
	require.NoError(t, err)
	g, err := c.studios.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Contract Game"})
	require.NoError(t, err)
	return g.ID
}

// newPlayer is a new player of the game in env.
func (c contractDB) newPlayer(t *testing.T, gameID uuid.UUID, env studio.Environment) uuid.UUID {
	t.Helper()
	p, err := c.players.CreateWithUUID(context.Background(), players.Scope{GameID: gameID, Environment: env}, fmt.Sprintf("p-%s", uuid.New()))
	require.NoError(t, err)
	return p.ID
}

func TestCoinsContract(t *testing.T) {
	t.Parallel()
	coinstest.Run(t, func(t *testing.T) coinstest.Harness {
		c := openContractDB(t)
		return coinstest.Harness{Store: postgres.NewCoinsStore(c.db, nil), NewGame: c.newGame, NewPlayer: c.newPlayer}
	})
}

func TestPlayersContract(t *testing.T) {
	t.Parallel()
	playerstest.Run(t, func(t *testing.T) playerstest.Harness {
		c := openContractDB(t)
		return playerstest.Harness{Store: postgres.NewPlayersStore(c.db), NewGame: c.newGame}
	})
}

func TestStudioContract(t *testing.T) {
	t.Parallel()
	studiotest.Run(t, func(t *testing.T) store.Of[studio.Repo] {
		return postgres.NewStudioStore(openContractDB(t).db)
	})
}

func TestIdempotencyContract(t *testing.T) {
	t.Parallel()
	idemtest.Run(t, func(t *testing.T) store.Of[idempotency.Repo] {
		return postgres.NewIdempotencyStore(openContractDB(t).db)
	})
}

func TestAuditContract(t *testing.T) {
	t.Parallel()
	audittest.Run(t, func(t *testing.T) audittest.Harness {
		c := openContractDB(t)
		return audittest.Harness{Store: postgres.NewAuditStore(c.db), NewGame: func(t *testing.T) (uuid.UUID, uuid.UUID) {
			g, err := postgres.NewStudioStore(c.db).Repo().GetGame(context.Background(), c.newGame(t))
			require.NoError(t, err)
			return g.StudioID, g.ID
		}}
	})
}

// TestAuditEntriesAreNeverChanged: no API changes or deletes an entry, and the table refuses it
// to anyone who tries by hand.
func TestAuditEntriesAreNeverChanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openContractDB(t)
	pool, d := c.db.Pool(), c.db
	g, err := postgres.NewStudioStore(d).Repo().GetGame(ctx, c.newGame(t))
	require.NoError(t, err)
	require.NoError(t, postgres.NewAuditStore(d).Repo().Append(ctx, audit.Entry{GameID: &g.ID,
		Actor: audit.Actor{Kind: audit.Operator, Name: "operator"}, Action: "api_key.rotate"}))
	for _, stmt := range []string{"UPDATE audit_entries SET action = 'x'", "DELETE FROM audit_entries", "TRUNCATE audit_entries"} {
		_, err := pool.Exec(ctx, stmt)
		require.ErrorContains(t, err, "never changed", stmt)
	}
	list, err := postgres.NewAuditStore(d).Repo().List(ctx, audit.Filter{StudioID: g.StudioID, Limit: 10})
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, "api_key.rotate", list[0].Action)
}

func TestMembersContract(t *testing.T) {
	t.Parallel()
	memberstest.Run(t, func(t *testing.T) memberstest.Harness {
		c := openContractDB(t)
		return memberstest.Harness{Runner: c.db, Store: postgres.NewMembersStore(c.db), NewStudio: func(t *testing.T) uuid.UUID {
			s, err := c.studios.CreateStudio(context.Background(), "Contract Studio")
			require.NoError(t, err)
			return s.ID
		}}
	})
}
