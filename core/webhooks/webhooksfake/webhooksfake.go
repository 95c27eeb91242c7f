// Package webhooksfake is an in-memory webhooks.Repo that behaves like the PostgreSQL one
// (adapters/postgres/webhooks.go), for core tests: one configuration per (studio, environment,
// URL), deliveries deleted with their configuration, a finished delivery never changed again,
// the same ordering and paging. Register it with a memstore.Runner (memstore.New) and a failed
// transaction leaves it as it was. webhookstest.Run is the contract it passes with PostgreSQL.
//
// In PostgreSQL a coin movement records its coin event with the event's deliveries, one to each
// configuration that takes it by the module's rule (webhooks.Config.Receives); here a test
// records one with Publish, which applies the same rule, or adds one delivery with AddDelivery.
// Claim is the dispatchers' claim of the outbox (adapters/postgres.WebhookOutbox).
package webhooksfake

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
)

// Repo is the fake. The zero value is not ready; use New.
type Repo struct{ tab *memstore.Table[state] }

var (
	_ webhooks.Repo        = (*Repo)(nil)
	_ memstore.Snapshotter = (*Repo)(nil)
)

// Event is a coin event (a row of coin_events), as far as deliveries show it.
type Event struct {
	// ID, TransactionID, GameID and CoinID are made up when zero; CreatedAt is now when zero.
	ID            uuid.UUID
	TransactionID uuid.UUID
	GameID        uuid.UUID
	// StudioID (the studio of GameID) and Environment route the event (Publish).
	StudioID    uuid.UUID
	Environment studio.Environment
	Type        string
	Reason      string
	UserUUID    string
	CoinID      uuid.UUID
	Delta       int64
	NewBalance  int64
	ReferenceID string
	CreatedAt   time.Time
	// Sequence is the event's number among its player's coin's events; 1 when zero.
	Sequence int64
}

// delivery is a row of webhook_deliveries.
type delivery struct {
	webhooks.Delivery
	studioID uuid.UUID
	env      string
	// resentFrom is the delivery this one sends again; recoveredBy the one a recover sent for
	// this one (uuid.Nil: none).
	resentFrom, recoveredBy uuid.UUID
	// dueAt is when a dispatcher may claim the delivery next.
	dueAt time.Time
}

type state struct {
	configs    map[uuid.UUID]webhooks.Config
	events     map[uuid.UUID]Event
	deliveries map[uuid.UUID]delivery
}

// New returns an empty fake.
func New() *Repo {
	return &Repo{tab: memstore.NewTable(state{configs: map[uuid.UUID]webhooks.Config{}, events: map[uuid.UUID]Event{},
		deliveries: map[uuid.UUID]delivery{}}, state.clone)}
}

// Snapshot implements memstore.Snapshotter.
func (r *Repo) Snapshot() (restore func()) { return r.tab.Snapshot() }

func (s state) clone() state {
	return state{configs: memstore.CloneMap(s.configs, cloneConfig), events: memstore.CloneMap(s.events, nil),
		deliveries: memstore.CloneMap(s.deliveries, func(d delivery) delivery { d.Delivery = cloneDelivery(d.Delivery); return d })}
}

func cloneConfig(c webhooks.Config) webhooks.Config {
	c.SubscribedEvents = memstore.CloneSlice(c.SubscribedEvents, nil)
	c.ExcludedReasons = memstore.CloneSlice(c.ExcludedReasons, nil)
	c.Sealed = bytes.Clone(c.Sealed)
	c.PreviousSealed = bytes.Clone(c.PreviousSealed)
	c.PreviousExpiresAt = memstore.ClonePtr(c.PreviousExpiresAt)
	c.PartnerWalletLowThreshold = memstore.ClonePtr(c.PartnerWalletLowThreshold)
	return c
}

func cloneDelivery(d webhooks.Delivery) webhooks.Delivery {
	d.HTTPStatusCode = memstore.ClonePtr(d.HTTPStatusCode)
	d.ErrorMessage = memstore.ClonePtr(d.ErrorMessage)
	d.AttemptedAt = memstore.ClonePtr(d.AttemptedAt)
	d.NextRetryAt = memstore.ClonePtr(d.NextRetryAt)
	return d
}

// pgTimePtr is memstore.PGTime of *t, in a new variable, or nil.
func pgTimePtr(t *time.Time) *time.Time {
	if t = memstore.ClonePtr(t); t != nil {
		*t = memstore.PGTime(*t)
	}
	return t
}

// stored is a configuration as a read returns it: no plaintext secret.
func stored(c webhooks.Config) webhooks.Config {
	c = cloneConfig(c)
	c.Secret = ""
	return c
}

// checkColumns refuses what the columns' constraints refuse.
func checkColumns(c webhooks.Config) error {
	switch {
	case !c.Environment.Valid():
		return fmt.Errorf("environment %q (check violation)", c.Environment)
	case c.SubscribedEvents == nil || c.ExcludedReasons == nil:
		return fmt.Errorf("null subscribed_events or excluded_reasons (not-null violation)")
	}
	return nil
}

// byURL returns the configuration of scope s in st with url.
func byURL(st *state, s webhooks.Scope, url string) (webhooks.Config, bool) {
	for _, c := range st.configs {
		if c.StudioID == s.StudioID && c.Environment == s.Environment && c.URL == url {
			return c, true
		}
	}
	return webhooks.Config{}, false
}

// LockScope implements webhooks.Repo: the memstore.Runner already runs one transaction at a
// time, which is all the lock has to give.
func (r *Repo) LockScope(context.Context, webhooks.Scope) error { return nil }

// InsertConfig implements webhooks.Repo.
func (r *Repo) InsertConfig(_ context.Context, c webhooks.Config) (webhooks.Config, bool, error) {
	if err := checkColumns(c); err != nil {
		return webhooks.Config{}, false, fmt.Errorf("insert webhook config: %w", err)
	}
	st := r.tab.Lock()
	defer r.tab.Unlock()
	if existing, ok := byURL(st, webhooks.Scope{StudioID: c.StudioID, Environment: c.Environment}, c.URL); ok {
		return stored(existing), false, nil
	}
	c.ID = uuid.New()
	c.CreatedAt = r.tab.Now()
	c.UpdatedAt = c.CreatedAt
	if c.ActiveSince.IsZero() {
		c.ActiveSince = c.CreatedAt
	}
	c.ActiveSince = memstore.PGTime(c.ActiveSince)
	c = stored(c)
	st.configs[c.ID] = c
	return stored(c), true, nil
}

// GetConfigByURL implements webhooks.Repo.
func (r *Repo) GetConfigByURL(_ context.Context, s webhooks.Scope, url string) (webhooks.Config, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	c, ok := byURL(st, s, url)
	if !ok {
		return webhooks.Config{}, webhooks.ErrConfigNotFound
	}
	return stored(c), nil
}

// GetConfig implements webhooks.Repo.
func (r *Repo) GetConfig(_ context.Context, s webhooks.Scope, id uuid.UUID) (webhooks.Config, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	c, ok := st.configs[id]
	if !ok || c.StudioID != s.StudioID || c.Environment != s.Environment {
		return webhooks.Config{}, webhooks.ErrConfigNotFound
	}
	return stored(c), nil
}

// ListConfigs implements webhooks.Repo: oldest first.
func (r *Repo) ListConfigs(_ context.Context, s webhooks.Scope) ([]webhooks.Config, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	out := []webhooks.Config{}
	for _, c := range st.configs {
		if c.StudioID == s.StudioID && c.Environment == s.Environment {
			out = append(out, stored(c))
		}
	}
	slices.SortFunc(out, func(a, b webhooks.Config) int { return memstore.CompareCreated(a.CreatedAt, a.ID, b.CreatedAt, b.ID) })
	return out, nil
}

// UpdateConfig implements webhooks.Repo: URL, events, excluded reasons and the active switch of
// the configuration with c's id in c's scope, or ErrConfigNotFound; ErrURLConflict when another
// configuration of the scope has the URL. The secret is not changed.
func (r *Repo) UpdateConfig(_ context.Context, c webhooks.Config, at time.Time) (webhooks.Config, error) {
	if err := checkColumns(c); err != nil {
		return webhooks.Config{}, fmt.Errorf("update webhook config: %w", err)
	}
	st := r.tab.Lock()
	defer r.tab.Unlock()
	cur, ok := st.configs[c.ID]
	if !ok || cur.StudioID != c.StudioID || cur.Environment != c.Environment {
		return webhooks.Config{}, webhooks.ErrConfigNotFound
	}
	if other, taken := byURL(st, webhooks.Scope{StudioID: c.StudioID, Environment: c.Environment}, c.URL); taken && other.ID != c.ID {
		return webhooks.Config{}, webhooks.ErrURLConflict
	}
	if c.IsActive {
		cur.DisabledReason = ""
		if !cur.IsActive {
			cur.ActiveSince = memstore.PGTime(at)
		}
	}
	cur.URL, cur.IsActive = c.URL, c.IsActive
	cur.PartnerWalletLowThreshold = memstore.ClonePtr(c.PartnerWalletLowThreshold)
	cur.SubscribedEvents = memstore.CloneSlice(c.SubscribedEvents, nil)
	cur.ExcludedReasons = memstore.CloneSlice(c.ExcludedReasons, nil)
	cur.UpdatedAt = r.tab.Now()
	st.configs[c.ID] = cur
	return stored(cur), nil
}

// DeleteConfig implements webhooks.Repo: the configuration and, as ON DELETE CASCADE does, its
// deliveries; ErrConfigNotFound when the scope has no such configuration.
func (r *Repo) DeleteConfig(_ context.Context, s webhooks.Scope, id uuid.UUID) error {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	c, ok := st.configs[id]
	if !ok || c.StudioID != s.StudioID || c.Environment != s.Environment {
		return webhooks.ErrConfigNotFound
	}
	delete(st.configs, id)
	for did, d := range st.deliveries {
		if d.ConfigID == id {
			delete(st.deliveries, did)
		}
	}
	return nil
}

// AddDelivery records coin event e (the first time its id is seen) and a PENDING delivery of
// it to configuration configID, whatever the configuration subscribes to, and returns the
// delivery's id. Like the table's constraints, it fails for an unknown configuration and for a
// second delivery of one event to one configuration.
func (r *Repo) AddDelivery(configID uuid.UUID, e Event) (uuid.UUID, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	c, ok := st.configs[configID]
	if !ok {
		return uuid.Nil, fmt.Errorf("add delivery: configuration %s does not exist (foreign key violation)", configID)
	}
	return r.deliver(st, c, r.event(st, e))
}

// Publish records coin event e with a PENDING delivery to each configuration that takes it
// (webhooks.Config.Receives), as a coin movement does, and returns the deliveries' ids.
func (r *Repo) Publish(e Event) ([]uuid.UUID, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	e = r.event(st, e)
	route := webhooks.Event{StudioID: e.StudioID, Environment: e.Environment, Type: e.Type, Reason: e.Reason}
	ids := []uuid.UUID{}
	for _, c := range st.configs {
		if !c.Receives(route) {
			continue
		}
		id, err := r.deliver(st, c, e)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// event is e as stored: the one recorded with its id, or e with its made-up fields.
func (r *Repo) event(st *state, e Event) Event {
	if prev, seen := st.events[e.ID]; seen && e.ID != uuid.Nil {
		return prev
	}
	for _, id := range []*uuid.UUID{&e.ID, &e.TransactionID, &e.GameID, &e.CoinID} {
		if *id == uuid.Nil {
			*id = uuid.New()
		}
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = r.tab.Now()
	}
	if e.Sequence == 0 {
		e.Sequence = 1
	}
	e.CreatedAt = memstore.PGTime(e.CreatedAt)
	return e
}

// deliver records e and adds a PENDING delivery of it to c, due at once; like the table's
// unique index, it refuses a second delivery of one event to one configuration.
func (r *Repo) deliver(st *state, c webhooks.Config, e Event) (uuid.UUID, error) {
	for _, d := range st.deliveries {
		if d.EventID == e.ID && d.ConfigID == c.ID && d.resentFrom == uuid.Nil {
			return uuid.Nil, fmt.Errorf("add delivery: event %s already goes to configuration %s (unique violation)", e.ID, c.ID)
		}
	}
	st.events[e.ID] = e
	now := r.tab.Now()
	d := delivery{studioID: c.StudioID, env: string(c.Environment), dueAt: now, Delivery: webhooks.Delivery{
		ID: uuid.New(), EventID: e.ID, ConfigID: c.ID, EventType: e.Type, TransactionID: e.TransactionID,
		EventCreatedAt: e.CreatedAt, Status: webhooks.StatusPending, CreatedAt: now,
	}}
	st.deliveries[d.ID] = d
	return d.ID, nil
}

// Claim takes at most n due deliveries (PENDING or RETRYING, due now or earlier), the longest
// due first, for lease: until it ends no other claim returns them.
func (r *Repo) Claim(_ context.Context, n int, lease time.Duration) ([]webhooks.Pending, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	now := r.tab.Now()
	var due []delivery
	for _, d := range st.deliveries {
		if (d.Status == webhooks.StatusPending || d.Status == webhooks.StatusRetrying) && !d.dueAt.After(now) {
			due = append(due, d)
		}
	}
	slices.SortFunc(due, func(a, b delivery) int { return a.dueAt.Compare(b.dueAt) })
	out := []webhooks.Pending{}
	for _, d := range due[:min(n, len(due))] {
		d.dueAt = memstore.PGTime(now.Add(lease))
		st.deliveries[d.ID] = d
		out = append(out, pending(st, d))
	}
	return out, nil
}

// Delivery returns the delivery with id as ListDeliveries would show it, and whether it exists.
func (r *Repo) Delivery(id uuid.UUID) (webhooks.Delivery, bool) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	d, ok := st.deliveries[id]
	return cloneDelivery(d.Delivery), ok
}

// PendingDelivery implements webhooks.Repo.
func (r *Repo) PendingDelivery(_ context.Context, id uuid.UUID) (webhooks.Pending, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	d, ok := st.deliveries[id]
	if !ok {
		return webhooks.Pending{}, webhooks.ErrDeliveryGone
	}
	return pending(st, d), nil
}

// pending is what an attempt of d needs.
func pending(st *state, d delivery) webhooks.Pending {
	c, e := st.configs[d.ConfigID], st.events[d.EventID]
	return webhooks.Pending{
		DeliveryID: d.ID, ConfigID: d.ConfigID, Status: d.Status, AttemptNumber: d.AttemptNumber, URL: c.URL, ConfigActive: c.IsActive,
		Sealed: bytes.Clone(c.Sealed), PreviousSealed: bytes.Clone(c.PreviousSealed), PreviousExpiresAt: memstore.ClonePtr(c.PreviousExpiresAt),
		Payload: webhooks.Payload{
			EventID: e.ID.String(), EventType: e.Type, Timestamp: e.CreatedAt.UTC().Format(time.RFC3339Nano),
			AppID: e.GameID.String(), UserUUID: e.UserUUID, CoinID: e.CoinID.String(), Delta: e.Delta,
			NewBalance: e.NewBalance, ReferenceID: e.ReferenceID, Reason: e.Reason, Sequence: e.Sequence,
		},
	}
}

// RecordAttempt implements webhooks.Repo: a delivery that is gone, SUCCESS or FAILED is left as
// it is, without error.
func (r *Repo) RecordAttempt(_ context.Context, id uuid.UUID, status string, attemptNo int, httpStatus *int, errMsg *string, at time.Time, next *time.Time) error {
	switch status {
	case webhooks.StatusPending, webhooks.StatusRetrying, webhooks.StatusSuccess, webhooks.StatusFailed:
	default:
		return fmt.Errorf("record attempt of %s: status %q (check violation)", id, status)
	}
	st := r.tab.Lock()
	defer r.tab.Unlock()
	d, ok := st.deliveries[id]
	if !ok || d.Status == webhooks.StatusSuccess || d.Status == webhooks.StatusFailed {
		return nil
	}
	at = memstore.PGTime(at)
	d.Status, d.AttemptNumber = status, attemptNo
	d.HTTPStatusCode, d.ErrorMessage = memstore.ClonePtr(httpStatus), memstore.ClonePtr(errMsg)
	d.AttemptedAt, d.NextRetryAt = &at, pgTimePtr(next)
	if next != nil {
		// Due as long after now as the retry is after its attempt: the delay is the service's,
		// the clock the database's.
		d.dueAt = memstore.PGTime(r.tab.Now().Add(next.Sub(at)))
	}
	st.deliveries[id] = d
	return nil
}

// ListDeliveries implements webhooks.Repo: newest first (created_at, then id, descending),
// filtered by status and event type when set, a page of f.Limit after f.Skip, and the total.
// Like LIMIT and OFFSET, a negative limit or skip is an error and a zero limit returns nothing.
func (r *Repo) ListDeliveries(_ context.Context, s webhooks.Scope, f webhooks.DeliveryFilter) ([]webhooks.Delivery, int64, error) {
	if f.Limit < 0 || f.Skip < 0 {
		return nil, 0, fmt.Errorf("list deliveries: negative LIMIT or OFFSET")
	}
	st := r.tab.Lock()
	defer r.tab.Unlock()
	var match []webhooks.Delivery
	for _, d := range st.deliveries {
		if d.studioID == s.StudioID && d.env == string(s.Environment) &&
			(f.Status == "" || d.Status == f.Status) && (f.EventType == "" || d.EventType == f.EventType) {
			match = append(match, d.Delivery)
		}
	}
	slices.SortFunc(match, func(a, b webhooks.Delivery) int { return memstore.CompareCreated(b.CreatedAt, b.ID, a.CreatedAt, a.ID) })
	page := []webhooks.Delivery{}
	for i := f.Skip; i < len(match) && len(page) < f.Limit; i++ {
		page = append(page, cloneDelivery(match[i]))
	}
	return page, int64(len(match)), nil
}

// Stats implements webhooks.Repo.
func (r *Repo) Stats(_ context.Context, s webhooks.Scope) (webhooks.Stats, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	var stats webhooks.Stats
	for _, d := range st.deliveries {
		if d.studioID != s.StudioID || d.env != string(s.Environment) {
			continue
		}
		stats.Total++
		switch d.Status {
		case webhooks.StatusSuccess:
			stats.Delivered++
		case webhooks.StatusFailed:
			stats.Failed++
		}
	}
	return stats, nil
}

// RotateSecret implements webhooks.Repo.
func (r *Repo) RotateSecret(_ context.Context, s webhooks.Scope, id uuid.UUID, sealed []byte, last4 string, previousExpiresAt time.Time) (webhooks.Config, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	c, ok := st.configs[id]
	if !ok || c.StudioID != s.StudioID || c.Environment != s.Environment {
		return webhooks.Config{}, webhooks.ErrConfigNotFound
	}
	exp := memstore.PGTime(previousExpiresAt)
	c.PreviousSealed, c.PreviousExpiresAt = c.Sealed, &exp
	c.Sealed, c.SecretLast4 = bytes.Clone(sealed), last4
	c.UpdatedAt = r.tab.Now()
	st.configs[id] = c
	return stored(c), nil
}

// DisableFailing implements webhooks.Repo.
func (r *Repo) DisableFailing(_ context.Context, configID *uuid.UUID, windowStart time.Time, minFailed int, reason string) ([]webhooks.Config, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	out := []webhooks.Config{}
	for id, c := range st.configs {
		if !c.IsActive || (configID != nil && *configID != id) || c.ActiveSince.After(windowStart) {
			continue
		}
		failed, succeeded := 0, false
		for _, d := range st.deliveries {
			if d.ConfigID != id || d.AttemptedAt == nil || d.AttemptedAt.Before(windowStart) {
				continue
			}
			switch d.Status {
			case webhooks.StatusSuccess:
				succeeded = true
			case webhooks.StatusFailed:
				failed++
			}
		}
		if succeeded || failed < minFailed {
			continue
		}
		c.IsActive, c.DisabledReason, c.UpdatedAt = false, reason, r.tab.Now()
		st.configs[id] = c
		out = append(out, stored(c))
	}
	return out, nil
}

// FindDelivery implements webhooks.Repo.
func (r *Repo) FindDelivery(_ context.Context, s webhooks.Scope, id uuid.UUID) (webhooks.Found, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	d, ok := st.deliveries[id]
	if !ok || d.studioID != s.StudioID || d.env != string(s.Environment) {
		return webhooks.Found{}, webhooks.ErrDeliveryNotFound
	}
	return webhooks.Found{ID: d.ID, EventID: d.EventID, ConfigID: d.ConfigID, ConfigActive: st.configs[d.ConfigID].IsActive}, nil
}

// again adds to st a PENDING delivery, newID, that sends d's event again.
func (r *Repo) again(st *state, d delivery, newID uuid.UUID) {
	now := r.tab.Now()
	n := delivery{studioID: d.studioID, env: d.env, resentFrom: d.ID, dueAt: now, Delivery: webhooks.Delivery{
		ID: newID, EventID: d.EventID, ConfigID: d.ConfigID, EventType: d.EventType, TransactionID: d.TransactionID,
		EventCreatedAt: d.EventCreatedAt, Status: webhooks.StatusPending, CreatedAt: now,
	}}
	st.deliveries[n.ID] = n
}

// Resend implements webhooks.Repo; the fake queues nothing.
func (r *Repo) Resend(_ context.Context, id uuid.UUID) (uuid.UUID, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	d, ok := st.deliveries[id]
	if !ok {
		return uuid.Nil, webhooks.ErrDeliveryNotFound
	}
	newID := uuid.New()
	r.again(st, d, newID)
	return newID, nil
}

// Recover implements webhooks.Repo; the fake queues nothing.
func (r *Repo) Recover(_ context.Context, configID uuid.UUID, since, at time.Time, limit int) (int, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	byEvent := map[uuid.UUID][]delivery{}
	for _, d := range st.deliveries {
		if d.ConfigID == configID && d.Status == webhooks.StatusFailed && d.recoveredBy == uuid.Nil && !d.EventCreatedAt.Before(since) {
			byEvent[d.EventID] = append(byEvent[d.EventID], d)
		}
	}
	events := slices.Collect(maps.Keys(byEvent))
	slices.SortFunc(events, func(a, b uuid.UUID) int {
		return memstore.CompareCreated(byEvent[a][0].EventCreatedAt, a, byEvent[b][0].EventCreatedAt, b)
	})
	if len(events) > limit {
		events = events[:limit]
	}
	for _, e := range events {
		newID := uuid.New()
		for _, d := range byEvent[e] {
			d.recoveredBy = newID
			st.deliveries[d.ID] = d
		}
		r.again(st, byEvent[e][0], newID)
	}
	return len(events), nil
}
