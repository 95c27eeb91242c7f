// Package playersfake is an in-memory players.Repo that behaves like the PostgreSQL one
// (adapters/postgres/players.go), for core tests: one player per (game, environment, uuid) and
// per (game, environment, phone), the same errors for missing rows, OTP codes and failures
// counted the same way, default store settings where none were saved. Register it with a
// memstore.Runner (memstore.New) and a failed transaction leaves it as it was.
//
// It cannot see the other modules' tables, so it checks no foreign key to games.
package playersfake

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/store/memstore"
)

// Repo is the fake. The zero value is not ready; use New.
type Repo struct {
	mu   sync.Mutex
	st   state
	last time.Time // the last now()
}

var (
	_ players.Repo         = (*Repo)(nil)
	_ memstore.Snapshotter = (*Repo)(nil)
)

// otpCode is a row of otp_codes.
type otpCode struct {
	id        uuid.UUID
	scope     players.Scope
	phone     string
	hash      []byte
	attempts  int
	expiresAt time.Time
	used      bool
	createdAt time.Time
}

// otpFailure is a row of otp_failures.
type otpFailure struct {
	scope    players.Scope
	phone    string
	failedAt time.Time
}

type state struct {
	players  map[uuid.UUID]players.Player
	otps     []otpCode // in insertion order
	failures []otpFailure
	settings map[uuid.UUID]players.StoreSettings
}

// New returns an empty fake.
func New() *Repo {
	return &Repo{st: state{players: map[uuid.UUID]players.Player{}, settings: map[uuid.UUID]players.StoreSettings{}}}
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
	c := state{players: make(map[uuid.UUID]players.Player, len(s.players)), otps: make([]otpCode, len(s.otps)),
		failures: slices.Clone(s.failures), settings: make(map[uuid.UUID]players.StoreSettings, len(s.settings))}
	for id, p := range s.players {
		c.players[id] = clonePlayer(p)
	}
	for i, o := range s.otps {
		o.hash = bytes.Clone(o.hash)
		c.otps[i] = o
	}
	for id, v := range s.settings {
		c.settings[id] = cloneSettings(v)
	}
	return c
}

func clonePlayer(p players.Player) players.Player {
	p.UUID = clonePtr(p.UUID)
	p.Phone = clonePtr(p.Phone)
	p.CookieConsentAt = clonePtr(p.CookieConsentAt)
	if p.Addresses != nil {
		p.Addresses = slices.Clone(p.Addresses)
	}
	return p
}

func cloneSettings(s players.StoreSettings) players.StoreSettings {
	s.Theme = bytes.Clone(s.Theme)
	return s
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// pgTime is t as it comes back from a timestamptz: microseconds, no monotonic reading.
func pgTime(t time.Time) time.Time { return t.Truncate(time.Microsecond) }

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

// newPlayer is a players row with its column defaults. r.mu is held.
func (r *Repo) newPlayer(s players.Scope) players.Player {
	t := r.now()
	return players.Player{ID: uuid.New(), GameID: s.GameID, Environment: s.Environment, Addresses: []players.Address{},
		CreatedAt: t, UpdatedAt: t}
}

// find returns the player of scope s that match selects. r.mu is held.
func (r *Repo) find(s players.Scope, match func(players.Player) bool) (players.Player, bool) {
	for _, p := range r.st.players {
		if p.GameID == s.GameID && p.Environment == s.Environment && match(p) {
			return p, true
		}
	}
	return players.Player{}, false
}

// update applies change to player id and returns it, or ErrPlayerNotFound. r.mu is held.
func (r *Repo) update(id uuid.UUID, change func(*players.Player)) (players.Player, error) {
	p, ok := r.st.players[id]
	if !ok {
		return players.Player{}, players.ErrPlayerNotFound
	}
	change(&p)
	p.UpdatedAt = r.now()
	r.st.players[id] = p
	return clonePlayer(p), nil
}

// CreateWithUUID implements players.Repo.
func (r *Repo) CreateWithUUID(_ context.Context, s players.Scope, u string) (players.Created, error) {
	if len(u) < 1 || len(u) > 128 {
		return players.Created{}, fmt.Errorf("create player: uuid length %d (check violation)", len(u))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.find(s, func(p players.Player) bool { return p.UUID != nil && *p.UUID == u }); ok {
		return players.Created{Player: clonePlayer(p)}, nil
	}
	p := r.newPlayer(s)
	p.UUID = &u
	r.st.players[p.ID] = p
	return players.Created{Player: clonePlayer(p), Created: true}, nil
}

// GetOrCreateByPhone implements players.Repo.
func (r *Repo) GetOrCreateByPhone(_ context.Context, s players.Scope, phone string) (players.Player, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.find(s, func(p players.Player) bool { return p.Phone != nil && *p.Phone == phone }); ok {
		return clonePlayer(p), nil
	}
	p := r.newPlayer(s)
	p.Phone = &phone
	r.st.players[p.ID] = p
	return clonePlayer(p), nil
}

// Get implements players.Repo.
func (r *Repo) Get(_ context.Context, s players.Scope, id uuid.UUID) (players.Player, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.st.players[id]
	if !ok || p.GameID != s.GameID || p.Environment != s.Environment {
		return players.Player{}, players.ErrPlayerNotFound
	}
	return clonePlayer(p), nil
}

// GetByUUID implements players.Repo.
func (r *Repo) GetByUUID(_ context.Context, s players.Scope, u string) (players.Player, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.find(s, func(p players.Player) bool { return p.UUID != nil && *p.UUID == u })
	if !ok {
		return players.Player{}, players.ErrPlayerNotFound
	}
	return clonePlayer(p), nil
}

// GetByPhone implements players.Repo.
func (r *Repo) GetByPhone(_ context.Context, s players.Scope, phone string) (players.Player, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.find(s, func(p players.Player) bool { return p.Phone != nil && *p.Phone == phone })
	if !ok {
		return players.Player{}, players.ErrPlayerNotFound
	}
	return clonePlayer(p), nil
}

// UpdateProfile implements players.Repo: name, email, contact phone and addresses (nil stored
// as none), by id alone.
func (r *Repo) UpdateProfile(_ context.Context, in players.Player) (players.Player, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.update(in.ID, func(p *players.Player) {
		p.Name, p.Email, p.ContactPhone = in.Name, in.Email, in.ContactPhone
		p.Addresses = slices.Clone(in.Addresses)
		if p.Addresses == nil {
			p.Addresses = []players.Address{}
		}
	})
}

// SetPicture implements players.Repo.
func (r *Repo) SetPicture(_ context.Context, id uuid.UUID, key string) (players.Player, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.update(id, func(p *players.Player) { p.PictureKey = key })
}

// SetCookieConsent implements players.Repo: the first consent's time is kept.
func (r *Repo) SetCookieConsent(_ context.Context, id uuid.UUID) (players.Player, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.update(id, func(p *players.Player) {
		if p.CookieConsentAt == nil {
			t := r.now()
			p.CookieConsentAt = &t
		}
	})
}

// Block implements players.Repo.
func (r *Repo) Block(_ context.Context, id uuid.UUID) (players.Player, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.update(id, func(p *players.Player) { p.IsBlocked = true })
}

// LockPhone implements players.Repo. memstore runs transactions one at a time, so there is
// nothing to lock.
func (r *Repo) LockPhone(context.Context, players.Scope, string) error { return nil }

// OTPSendStats implements players.Repo: the codes sent to the phone at or after since; both
// times are since when there is none.
func (r *Repo) OTPSendStats(_ context.Context, s players.Scope, phone string, since time.Time) (players.SendStats, error) {
	since = pgTime(since)
	r.mu.Lock()
	defer r.mu.Unlock()
	st := players.SendStats{FirstSentAt: since, LastSentAt: since}
	for _, o := range r.st.otps {
		if o.scope != s || o.phone != phone || o.createdAt.Before(since) {
			continue
		}
		if st.Sent == 0 || o.createdAt.Before(st.FirstSentAt) {
			st.FirstSentAt = o.createdAt
		}
		if st.Sent == 0 || o.createdAt.After(st.LastSentAt) {
			st.LastSentAt = o.createdAt
		}
		st.Sent++
	}
	return st, nil
}

// InsertOTP implements players.Repo.
func (r *Repo) InsertOTP(_ context.Context, s players.Scope, phone string, hash []byte, expiresAt, at time.Time) error {
	if hash == nil {
		return fmt.Errorf("insert otp: null code_hash (not-null violation)")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.st.otps = append(r.st.otps, otpCode{id: uuid.New(), scope: s, phone: phone, hash: bytes.Clone(hash),
		expiresAt: pgTime(expiresAt), createdAt: pgTime(at)})
	return nil
}

// LatestOTP implements players.Repo: the code created last (of codes created at the same
// time, the one inserted last), or ErrOTPInvalid.
func (r *Repo) LatestOTP(_ context.Context, s players.Scope, phone string) (players.OTPCode, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var latest *otpCode
	for i := range r.st.otps {
		o := &r.st.otps[i]
		if o.scope == s && o.phone == phone && (latest == nil || !o.createdAt.Before(latest.createdAt)) {
			latest = o
		}
	}
	if latest == nil {
		return players.OTPCode{}, players.ErrOTPInvalid
	}
	return players.OTPCode{ID: latest.id, Hash: bytes.Clone(latest.hash), Attempts: latest.attempts, ExpiresAt: latest.expiresAt,
		Used: latest.used}, nil
}

// OTPFailed implements players.Repo: one more wrong try of code id, and one failed check of the
// phone, made at at.
func (r *Repo) OTPFailed(_ context.Context, s players.Scope, phone string, id uuid.UUID, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.st.otps {
		if r.st.otps[i].id == id {
			r.st.otps[i].attempts++
		}
	}
	r.st.failures = append(r.st.failures, otpFailure{scope: s, phone: phone, failedAt: pgTime(at)})
	return nil
}

// OTPUsed implements players.Repo.
func (r *Repo) OTPUsed(_ context.Context, id uuid.UUID) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.st.otps {
		if r.st.otps[i].id == id {
			r.st.otps[i].used = true
		}
	}
	return nil
}

// CountOTPFailures implements players.Repo: the failed checks of the phone at or after since.
func (r *Repo) CountOTPFailures(_ context.Context, s players.Scope, phone string, since time.Time) (int64, error) {
	since = pgTime(since)
	r.mu.Lock()
	defer r.mu.Unlock()
	var n int64
	for _, f := range r.st.failures {
		if f.scope == s && f.phone == phone && !f.failedAt.Before(since) {
			n++
		}
	}
	return n, nil
}

// StoreSettings implements players.Repo.
func (r *Repo) StoreSettings(_ context.Context, gameID uuid.UUID) (players.StoreSettings, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.st.settings[gameID]; ok {
		return cloneSettings(s), nil
	}
	return cloneSettings(players.DefaultStoreSettings), nil
}

// SaveStoreSettings implements players.Repo. The theme is kept as given (PostgreSQL's jsonb
// would normalise its spacing and key order).
func (r *Repo) SaveStoreSettings(_ context.Context, gameID uuid.UUID, s players.StoreSettings) (players.StoreSettings, error) {
	if s.Theme == nil {
		return players.StoreSettings{}, fmt.Errorf("save store settings: null theme (not-null violation)")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.st.settings[gameID] = cloneSettings(s)
	return cloneSettings(s), nil
}
