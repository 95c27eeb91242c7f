// Package auditfake is an in-memory audit.Repo that behaves like the PostgreSQL one
// (adapters/postgres/audit.go), for core tests: entries newest first, the same filters and
// cursor, an entry without a studio taking its game's. Register it with a memstore.Runner
// (memstore.New) and a failed transaction leaves it as it was, entries included. audittest.Run
// is the contract it passes with PostgreSQL.
package auditfake

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
)

// Games finds the studio of a game, as the SQL adapter's entries do through the games table.
// studiofake.Repo is one.
type Games interface {
	GetGame(ctx context.Context, id uuid.UUID) (studio.Game, error)
}

// Repo is the fake. The zero value is not ready; use New.
type Repo struct {
	*memstore.Table[[]audit.Entry]
	games Games
}

var _ audit.Repo = (*Repo)(nil)

// New returns an empty fake. games gives an entry without a studio its game's; nil refuses such
// entries (as the NOT NULL of the table's studio_id would for an unknown game).
func New(games Games) *Repo {
	return &Repo{Table: memstore.NewTable([]audit.Entry(nil), func(s []audit.Entry) []audit.Entry {
		return memstore.CloneSlice(s, cloneEntry)
	}), games: games}
}

func cloneEntry(e audit.Entry) audit.Entry {
	e.GameID = memstore.ClonePtr(e.GameID)
	e.Actor.ID = memstore.ClonePtr(e.Actor.ID)
	e.Actor.MemberID = memstore.ClonePtr(e.Actor.MemberID)
	e.Details = maps.Clone(e.Details)
	if e.Details == nil {
		e.Details = map[string]string{}
	}
	return e
}

// Append implements audit.Repo.
func (r *Repo) Append(ctx context.Context, e audit.Entry) error {
	if e.StudioID == uuid.Nil {
		if e.GameID == nil || r.games == nil {
			return fmt.Errorf("append audit entry %s: studio_id is null (not-null violation)", e.Action)
		}
		g, err := r.games.GetGame(ctx, *e.GameID)
		if err != nil {
			return fmt.Errorf("append audit entry %s: studio_id is null (not-null violation): %w", e.Action, err)
		}
		e.StudioID = g.StudioID
	}
	if e.Action == "" {
		return fmt.Errorf("append audit entry: empty action (check violation)")
	}
	switch e.Actor.Kind {
	case audit.Member, audit.Token, audit.Operator, audit.APIKey, audit.System:
	default:
		return fmt.Errorf("append audit entry %s: actor kind %q (check violation)", e.Action, e.Actor.Kind)
	}
	e = cloneEntry(e)
	st := r.Lock()
	defer r.Unlock()
	e.ID, e.At = uuid.New(), r.Now()
	*st = append(*st, e)
	return nil
}

// List implements audit.Repo.
func (r *Repo) List(_ context.Context, f audit.Filter) ([]audit.Entry, error) {
	st := r.Lock()
	defer r.Unlock()
	var before *audit.Entry
	if f.Before != nil {
		i := slices.IndexFunc(*st, func(e audit.Entry) bool { return e.ID == *f.Before && e.StudioID == f.StudioID })
		if i < 0 {
			return []audit.Entry{}, nil
		}
		before = &(*st)[i]
	}
	out := []audit.Entry{}
	for _, e := range *st {
		switch {
		case e.StudioID != f.StudioID,
			f.From != nil && e.At.Before(*f.From),
			f.To != nil && !e.At.Before(*f.To),
			f.MemberID != nil && (e.Actor.MemberID == nil || *e.Actor.MemberID != *f.MemberID),
			f.Action != "" && e.Action != f.Action,
			before != nil && memstore.CompareCreated(e.At, e.ID, before.At, before.ID) >= 0:
			continue
		}
		out = append(out, cloneEntry(e))
	}
	slices.SortFunc(out, func(a, b audit.Entry) int { return memstore.CompareCreated(b.At, b.ID, a.At, a.ID) })
	if len(out) > f.Limit {
		out = out[:max(f.Limit, 0)]
	}
	return out, nil
}

// Entries returns every entry of every studio, oldest first, for tests to inspect.
func (r *Repo) Entries() []audit.Entry {
	st := r.Lock()
	defer r.Unlock()
	return memstore.CloneSlice(*st, cloneEntry)
}

// OneStudio is Games for tests without a studio module: every game is of studio studioID.
type OneStudio uuid.UUID

// GetGame implements Games.
func (s OneStudio) GetGame(_ context.Context, id uuid.UUID) (studio.Game, error) {
	return studio.Game{ID: id, StudioID: uuid.UUID(s)}, nil
}

// NewLog returns an audit.Log on runner over a new fake, and the fake, for tests of modules
// that audit their changes. games gives entries without a studio their game's (nil: refused).
func NewLog(runner *memstore.Runner, games Games) (*audit.Log, *Repo) {
	r := New(games)
	return audit.New(runner, memstore.New[audit.Repo](runner, r)), r
}
