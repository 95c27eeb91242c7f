// Package audittest is the contract of audit.Repo: one suite of cases that every implementation
// passes, run on the in-memory fake (auditfake) and on PostgreSQL (adapters/postgres), so that
// core tests on the fake hold on the database too.
//
// What the contract fixes beyond audit.Repo's comments: Append gives each entry a new ID and
// an At that is later than the entry appended before it; details come back as written (none is
// an empty map, never nil); From is inclusive and To exclusive; Before names an entry of the
// listed studio, and an unknown entry or another studio's selects nothing; an entry with no
// studio and no game, or a game that does not exist, is refused.
package audittest

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/store/contract"
)

// Harness is one audit.Repo under test and the rows of other modules its entries refer to.
type Harness struct {
	Store store.Of[audit.Repo]
	// NewGame returns a new studio's id and the id of a new game of it.
	NewGame func(t *testing.T) (studioID, gameID uuid.UUID)
}

// Run runs every case of the contract, each on a Harness of its own from open.
func Run(t *testing.T, open func(t *testing.T) Harness) {
	contract.Run(t, func(t *testing.T) bundle {
		h := open(t)
		b := bundle{Harness: h, ctx: context.Background()}
		b.studioID, b.gameID = h.NewGame(t)
		return b
	}, cases)
}

type bundle struct {
	Harness
	ctx              context.Context
	studioID, gameID uuid.UUID
}

func (b bundle) repo() audit.Repo { return b.Store.Repo() }

// append appends an entry of the bundle's studio with the action and returns it as listed.
func (b bundle) append(t *testing.T, e audit.Entry) audit.Entry {
	t.Helper()
	if e.StudioID == uuid.Nil && e.GameID == nil {
		e.StudioID = b.studioID
	}
	if e.Actor.Kind == "" {
		e.Actor = audit.Actor{Kind: audit.Operator, Name: "operator"}
	}
	require.NoError(t, b.repo().Append(b.ctx, e))
	list, err := b.repo().List(b.ctx, audit.Filter{StudioID: b.studioIDOf(t, e), Limit: 1})
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, e.Action, list[0].Action)
	return list[0]
}

func (b bundle) studioIDOf(t *testing.T, e audit.Entry) uuid.UUID {
	t.Helper()
	if e.StudioID != uuid.Nil {
		return e.StudioID
	}
	require.Equal(t, b.gameID, *e.GameID, "the case appends entries of the bundle's game")
	return b.studioID
}

func (b bundle) list(t *testing.T, f audit.Filter) []string {
	t.Helper()
	if f.StudioID == uuid.Nil {
		f.StudioID = b.studioID
	}
	if f.Limit == 0 {
		f.Limit = 100
	}
	list, err := b.repo().List(b.ctx, f)
	require.NoError(t, err)
	require.NotNil(t, list)
	actions := []string{}
	for _, e := range list {
		actions = append(actions, e.Action)
	}
	return actions
}

func ptr[T any](v T) *T { return &v }

var cases = []contract.Case[bundle]{
	{Name: "AnEntryComesBackAsWritten", Run: func(t *testing.T, b bundle) {
		before := time.Now().Add(-time.Second)
		memberID, tokenID := uuid.New(), uuid.New()
		in := audit.Entry{StudioID: b.studioID, GameID: &b.gameID,
			Actor: audit.Actor{Kind: audit.Token, ID: &tokenID, MemberID: &memberID, Name: "deploy bot", IP: "203.0.113.7",
				UserAgent: "curl/8.5"},
			Action: "placement.put", TargetType: "placement", TargetID: "home_banner", Environment: "test",
			Details: map[string]string{"slot": "home", "size": "2"}}
		got := b.append(t, in)
		require.NotEqual(t, uuid.Nil, got.ID)
		require.True(t, got.At.After(before) && got.At.Before(time.Now().Add(time.Second)), "At is the time of the append: %s", got.At)
		in.ID, in.At = got.ID, got.At
		require.Equal(t, in, got)
	}},
	{Name: "NoDetailsIsAnEmptyMap", Run: func(t *testing.T, b bundle) {
		got := b.append(t, audit.Entry{Action: "api_key.rotate", Environment: "live"})
		require.Equal(t, map[string]string{}, got.Details)
		require.Nil(t, got.GameID)
		require.Nil(t, got.Actor.ID)
		require.Nil(t, got.Actor.MemberID)
		require.Equal(t, audit.Actor{Kind: audit.Operator, Name: "operator"}, got.Actor)
	}},
	{Name: "AnEntryWithoutAStudioTakesItsGames", Run: func(t *testing.T, b bundle) {
		got := b.append(t, audit.Entry{GameID: &b.gameID, Action: "store_url.set"})
		require.Equal(t, b.studioID, got.StudioID)
		require.Equal(t, b.gameID, *got.GameID)
	}},
	{Name: "AnEntryWithoutAStudioOrAKnownGameIsRefused", Run: func(t *testing.T, b bundle) {
		op := audit.Actor{Kind: audit.Operator, Name: "operator"}
		require.Error(t, b.repo().Append(b.ctx, audit.Entry{Actor: op, Action: "store_url.set"}))
		require.Error(t, b.repo().Append(b.ctx, audit.Entry{GameID: ptr(uuid.New()), Actor: op, Action: "store_url.set"}))
		require.Empty(t, b.list(t, audit.Filter{}))
	}},
	{Name: "NewestFirstAndOnlyTheStudios", Run: func(t *testing.T, b bundle) {
		otherStudio, _ := b.NewGame(t)
		for _, a := range []string{"a.one", "a.two", "a.three"} {
			b.append(t, audit.Entry{Action: a})
		}
		b.append(t, audit.Entry{StudioID: otherStudio, Action: "b.one"})
		require.Equal(t, []string{"a.three", "a.two", "a.one"}, b.list(t, audit.Filter{}))
		require.Equal(t, []string{"a.three", "a.two"}, b.list(t, audit.Filter{Limit: 2}))
		require.Equal(t, []string{"b.one"}, b.list(t, audit.Filter{StudioID: otherStudio}))
		require.Empty(t, b.list(t, audit.Filter{StudioID: uuid.New()}))
	}},
	{Name: "BeforeContinuesTheListing", Run: func(t *testing.T, b bundle) {
		otherStudio, _ := b.NewGame(t)
		var last audit.Entry
		for _, a := range []string{"e.1", "e.2", "e.3", "e.4", "e.5"} {
			last = b.append(t, audit.Entry{Action: a})
		}
		other := b.append(t, audit.Entry{StudioID: otherStudio, Action: "other"})
		page, err := b.repo().List(b.ctx, audit.Filter{StudioID: b.studioID, Limit: 2})
		require.NoError(t, err)
		require.Equal(t, last.ID, page[0].ID)
		require.Equal(t, []string{"e.3", "e.2"}, b.list(t, audit.Filter{Before: &page[1].ID, Limit: 2}))
		require.Equal(t, []string{"e.4", "e.3", "e.2", "e.1"}, b.list(t, audit.Filter{Before: &last.ID}))
		require.Empty(t, b.list(t, audit.Filter{Before: ptr(uuid.New())}), "an unknown entry selects nothing")
		require.Empty(t, b.list(t, audit.Filter{Before: &other.ID}), "another studio's entry selects nothing")
	}},
	{Name: "FiltersByMemberActionAndTime", Run: func(t *testing.T, b bundle) {
		alice, bob := uuid.New(), uuid.New()
		first := b.append(t, audit.Entry{Action: "member.invite", Actor: audit.Actor{Kind: audit.Member, ID: &alice, MemberID: &alice, Name: "alice@example.com"}})
		b.append(t, audit.Entry{Action: "api_key.rotate", Actor: audit.Actor{Kind: audit.Token, ID: ptr(uuid.New()), MemberID: &alice, Name: "ci"}})
		third := b.append(t, audit.Entry{Action: "api_key.rotate", Actor: audit.Actor{Kind: audit.Member, ID: &bob, MemberID: &bob, Name: "bob@example.com"}})
		b.append(t, audit.Entry{Action: "api_key.rotate"})

		require.Equal(t, []string{"api_key.rotate", "member.invite"}, b.list(t, audit.Filter{MemberID: &alice}),
			"a member's own changes and their tokens'")
		require.Equal(t, []string{"api_key.rotate"}, b.list(t, audit.Filter{MemberID: &bob}))
		require.Equal(t, []string{"api_key.rotate", "api_key.rotate", "api_key.rotate"}, b.list(t, audit.Filter{Action: "api_key.rotate"}))
		require.Equal(t, []string{"api_key.rotate"}, b.list(t, audit.Filter{Action: "api_key.rotate", MemberID: &alice}))
		require.Empty(t, b.list(t, audit.Filter{Action: "placement.promote"}))

		require.Len(t, b.list(t, audit.Filter{From: &first.At}), 4, "From is inclusive")
		require.Equal(t, []string{"api_key.rotate", "member.invite"}, b.list(t, audit.Filter{To: &third.At}), "To is exclusive")
		require.Equal(t, []string{"api_key.rotate"}, b.list(t, audit.Filter{From: ptr(first.At.Add(time.Microsecond)), To: &third.At}))
	}},
	{Name: "AFailedTransactionKeepsNoEntry", Run: func(t *testing.T, b bundle) {
		err := b.Store.InTx(b.ctx, func(r audit.Repo) error {
			require.NoError(t, r.Append(b.ctx, audit.Entry{StudioID: b.studioID, Actor: audit.Actor{Kind: audit.System, Name: "system"}, Action: "rolled.back"}))
			return contract.ErrRollback
		})
		require.ErrorIs(t, err, contract.ErrRollback)
		require.Empty(t, b.list(t, audit.Filter{}))
		require.NoError(t, b.Store.InTx(b.ctx, func(r audit.Repo) error {
			return r.Append(b.ctx, audit.Entry{StudioID: b.studioID, Actor: audit.Actor{Kind: audit.System, Name: "system"}, Action: "committed"})
		}))
		require.Equal(t, []string{"committed"}, b.list(t, audit.Filter{}))
	}},
}
