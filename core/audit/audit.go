// Package audit is the studio's audit log: who changed what in a studio's data, from the
// console, the studio API or the operator API. An entry is written in the change's own
// transaction (Log.Change), so a change without its entry, or an entry without its change,
// cannot commit. No API changes or deletes an entry.
//
// Who acts travels in the request's context (WithActor), set where the caller is authenticated;
// the module that changes the data names the action and its target.
package audit

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/store"
)

// ActorKind says what kind of caller made a change.
type ActorKind string

// The kinds of actor.
const (
	Member   ActorKind = "member"   // a studio member, signed in (console or studio API session)
	Token    ActorKind = "token"    // a studio access token (rst_…)
	Operator ActorKind = "operator" // the operator API's token
	APIKey   ActorKind = "api_key"  // a game's API key (for example /studio-webhooks)
	System   ActorKind = "system"   // the service itself (a job such as webhook auto-disable)
)

// Actor is who made a change and from where. It never holds a secret.
type Actor struct {
	Kind ActorKind
	// ID is the member's or token's id; for a token, MemberID is its maker.
	ID       *uuid.UUID
	MemberID *uuid.UUID
	// Name is what a person reads: the member's email, the token's name, "operator".
	Name      string
	IP        string
	UserAgent string
}

type actorKey struct{}

// WithActor returns ctx carrying a.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorOf returns the actor ctx carries, or System when it carries none.
func ActorOf(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok {
		return a
	}
	return Actor{Kind: System, Name: "system"}
}

// Entry is one change.
type Entry struct {
	ID uuid.UUID
	// StudioID is the studio whose data changed. When it is zero, the storage takes the studio
	// of GameID.
	StudioID uuid.UUID
	GameID   *uuid.UUID
	At       time.Time
	Actor    Actor
	// Action names the change, noun.verb: "api_key.rotate", "placement.promote".
	Action string
	// TargetType and TargetID name what changed ("placement", its id), when it has an id.
	TargetType  string
	TargetID    string
	Environment string
	// Details are facts about the change a reader needs ("role": "VIEWER"); never a secret.
	Details map[string]string
}

// Filter selects entries of one studio, newest first.
type Filter struct {
	StudioID uuid.UUID
	From, To *time.Time
	MemberID *uuid.UUID
	Action   string
	Limit    int
	// Before continues a listing: entries older than the one with this id.
	Before *uuid.UUID
}

// Repo is the storage of the audit log.
type Repo interface {
	// Append records e; it fills ID and At. Run it with the change's transaction (WithTx).
	Append(ctx context.Context, e Entry) error
	// List returns the entries f selects, newest first, at most f.Limit.
	List(ctx context.Context, f Filter) ([]Entry, error)
}

// Log writes and reads the audit log.
type Log struct {
	runner store.Runner
	st     store.Of[Repo]
}

// New returns a Log over the audit storage; runner opens the transactions that a change and its
// entry share.
func New(runner store.Runner, st store.Of[Repo]) *Log { return &Log{runner: runner, st: st} }

// Change runs fn in one transaction and appends e, with the actor ctx carries, in the same
// transaction: both commit or neither. fn binds the repositories it changes to tx (WithTx).
func (l *Log) Change(ctx context.Context, e Entry, fn func(tx store.Tx) error) error {
	e.Actor = ActorOf(ctx)
	return l.runner.InTx(ctx, func(tx store.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return l.st.WithTx(tx).Append(ctx, e)
	})
}

// InTx runs fn in one transaction of the runner the Log was made with, for a change whose entry
// is known only inside it (the id of what it created, whether it changed anything): fn then
// calls Record with tx. It makes the Log a store.Runner.
func (l *Log) InTx(ctx context.Context, fn func(tx store.Tx) error) error {
	return l.runner.InTx(ctx, fn)
}

// Record appends e with the actor ctx carries, in the transaction tx of a change that a module
// runs itself.
func (l *Log) Record(ctx context.Context, tx store.Tx, e Entry) error {
	e.Actor = ActorOf(ctx)
	return l.st.WithTx(tx).Append(ctx, e)
}

// List returns the entries f selects, newest first (at most 200 a page).
func (l *Log) List(ctx context.Context, f Filter) ([]Entry, error) {
	if f.Limit <= 0 || f.Limit > 200 {
		f.Limit = 200
	}
	return l.st.Repo().List(ctx, f)
}
