// Package playersfake is an in-memory players.Repo that behaves like the PostgreSQL one
// (adapters/postgres/players.go), for core tests: one player per (game, environment, uuid) and
// per (game, environment, phone), the same errors for missing rows, OTP codes and failures
// counted the same way (a game's sends after a time, a phone's run of failed checks), default
// store settings where none were saved. Files is the in-memory FileStorage. Register it with a
// memstore.Runner (memstore.New) and a failed transaction leaves it as it was.
//
// It cannot see the other modules' tables, so it checks no foreign key to games.
//
// playerstest.Run is the contract it passes with PostgreSQL; its package comment lists where the
// two still differ.
package playersfake

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/store/memstore"
)

// Repo is the fake. The zero value is not ready; use New.
type Repo struct{ *memstore.Table[state] }

var _ players.Repo = (*Repo)(nil)

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

// runKey names a row of otp_failure_runs.
type runKey struct {
	scope players.Scope
	phone string
}

type state struct {
	players  map[uuid.UUID]players.Player
	otps     []otpCode // in insertion order
	failures []otpFailure
	runs     map[runKey]players.FailureRun
	settings map[uuid.UUID]players.StoreSettings
}

// New returns an empty fake.
func New() *Repo {
	return &Repo{Table: memstore.NewTable(state{players: map[uuid.UUID]players.Player{}, runs: map[runKey]players.FailureRun{},
		settings: map[uuid.UUID]players.StoreSettings{}}, state.clone)}
}

func (s state) clone() state {
	return state{players: memstore.CloneMap(s.players, clonePlayer),
		otps:     memstore.CloneSlice(s.otps, func(o otpCode) otpCode { o.hash = bytes.Clone(o.hash); return o }),
		failures: slices.Clone(s.failures), runs: maps.Clone(s.runs), settings: memstore.CloneMap(s.settings, cloneSettings)}
}

func clonePlayer(p players.Player) players.Player {
	p.UUID = memstore.ClonePtr(p.UUID)
	p.Phone = memstore.ClonePtr(p.Phone)
	p.CookieConsentAt = memstore.ClonePtr(p.CookieConsentAt)
	if p.Addresses != nil {
		p.Addresses = slices.Clone(p.Addresses)
	}
	return p
}

func cloneSettings(s players.StoreSettings) players.StoreSettings {
	s.Theme = bytes.Clone(s.Theme)
	return s
}

// newPlayer is a players row with its column defaults.
func (r *Repo) newPlayer(s players.Scope) players.Player {
	t := r.Now()
	return players.Player{ID: uuid.New(), GameID: s.GameID, Environment: s.Environment, Addresses: []players.Address{},
		CreatedAt: t, UpdatedAt: t}
}

// find returns the player of scope s in st that match selects.
func find(st *state, s players.Scope, match func(players.Player) bool) (players.Player, bool) {
	for _, p := range st.players {
		if p.GameID == s.GameID && p.Environment == s.Environment && match(p) {
			return p, true
		}
	}
	return players.Player{}, false
}

func byUUID(u string) func(players.Player) bool {
	return func(p players.Player) bool { return p.UUID != nil && *p.UUID == u }
}

func byPhone(phone string) func(players.Player) bool {
	return func(p players.Player) bool { return p.Phone != nil && *p.Phone == phone }
}

// update applies change to player id in st and returns it, or ErrPlayerNotFound. The table is
// locked.
func (r *Repo) update(st *state, id uuid.UUID, change func(*players.Player)) (players.Player, error) {
	p, ok := st.players[id]
	if !ok {
		return players.Player{}, players.ErrPlayerNotFound
	}
	change(&p)
	p.UpdatedAt = r.Now()
	st.players[id] = p
	return clonePlayer(p), nil
}

// CreateWithUUID implements players.Repo.
func (r *Repo) CreateWithUUID(_ context.Context, s players.Scope, u string) (players.Created, error) {
	// The column's check counts characters, as length() does, not bytes.
	if n := utf8.RuneCountInString(u); n < 1 || n > 128 {
		return players.Created{}, fmt.Errorf("create player: uuid length %d (check violation)", n)
	}
	st := r.Lock()
	defer r.Unlock()
	if p, ok := find(st, s, byUUID(u)); ok {
		return players.Created{Player: clonePlayer(p)}, nil
	}
	p := r.newPlayer(s)
	p.UUID = &u
	st.players[p.ID] = p
	return players.Created{Player: clonePlayer(p), Created: true}, nil
}

// GetOrCreateByPhone implements players.Repo.
func (r *Repo) GetOrCreateByPhone(_ context.Context, s players.Scope, phone string) (players.Player, error) {
	st := r.Lock()
	defer r.Unlock()
	if p, ok := find(st, s, byPhone(phone)); ok {
		return clonePlayer(p), nil
	}
	p := r.newPlayer(s)
	p.Phone = &phone
	st.players[p.ID] = p
	return clonePlayer(p), nil
}

// Get implements players.Repo.
func (r *Repo) Get(_ context.Context, s players.Scope, id uuid.UUID) (players.Player, error) {
	st := r.Lock()
	defer r.Unlock()
	p, ok := st.players[id]
	if !ok || p.GameID != s.GameID || p.Environment != s.Environment {
		return players.Player{}, players.ErrPlayerNotFound
	}
	return clonePlayer(p), nil
}

// get returns a copy of the player of s that match selects, or ErrPlayerNotFound.
func (r *Repo) get(s players.Scope, match func(players.Player) bool) (players.Player, error) {
	st := r.Lock()
	defer r.Unlock()
	p, ok := find(st, s, match)
	if !ok {
		return players.Player{}, players.ErrPlayerNotFound
	}
	return clonePlayer(p), nil
}

// GetByUUID implements players.Repo.
func (r *Repo) GetByUUID(_ context.Context, s players.Scope, u string) (players.Player, error) {
	return r.get(s, byUUID(u))
}

// GetByPhone implements players.Repo.
func (r *Repo) GetByPhone(_ context.Context, s players.Scope, phone string) (players.Player, error) {
	return r.get(s, byPhone(phone))
}

// UpdateProfile implements players.Repo: name, email, contact phone and addresses (nil stored
// as none), by id alone.
func (r *Repo) UpdateProfile(_ context.Context, in players.Player) (players.Player, error) {
	st := r.Lock()
	defer r.Unlock()
	return r.update(st, in.ID, func(p *players.Player) {
		p.Name, p.Email, p.ContactPhone = in.Name, in.Email, in.ContactPhone
		p.Addresses = slices.Clone(in.Addresses)
		if p.Addresses == nil {
			p.Addresses = []players.Address{}
		}
	})
}

// SetPicture implements players.Repo.
func (r *Repo) SetPicture(_ context.Context, id uuid.UUID, key string) (players.Player, string, error) {
	st := r.Lock()
	defer r.Unlock()
	var previous string
	p, err := r.update(st, id, func(p *players.Player) { previous, p.PictureKey = p.PictureKey, key })
	if err != nil {
		return players.Player{}, "", err
	}
	return p, previous, nil
}

// SetCookieConsent implements players.Repo: the first consent's time is kept.
func (r *Repo) SetCookieConsent(_ context.Context, id uuid.UUID) (players.Player, error) {
	st := r.Lock()
	defer r.Unlock()
	return r.update(st, id, func(p *players.Player) {
		if p.CookieConsentAt == nil {
			t := r.Now()
			p.CookieConsentAt = &t
		}
	})
}

// Block implements players.Repo.
func (r *Repo) Block(_ context.Context, id uuid.UUID) (players.Player, error) {
	st := r.Lock()
	defer r.Unlock()
	return r.update(st, id, func(p *players.Player) { p.IsBlocked = true })
}

// LockPhone implements players.Repo. memstore runs transactions one at a time, so there is
// nothing to lock.
func (r *Repo) LockPhone(context.Context, players.Scope, string) error { return nil }

// OTPSendStats implements players.Repo: the codes sent to the phone at or after since; both
// times are since when there is none.
func (r *Repo) OTPSendStats(_ context.Context, s players.Scope, phone string, since time.Time) (players.SendStats, error) {
	since = memstore.PGTime(since)
	return r.sendStats(since, func(o otpCode) bool { return o.scope == s && o.phone == phone && !o.createdAt.Before(since) }), nil
}

// LockOTPScope implements players.Repo. memstore runs transactions one at a time, so there is
// nothing to lock.
func (r *Repo) LockOTPScope(context.Context, players.Scope) error { return nil }

// OTPScopeSendStats implements players.Repo: the codes sent to any phone of scope s after since;
// both times are since when there is none.
func (r *Repo) OTPScopeSendStats(_ context.Context, s players.Scope, since time.Time) (players.SendStats, error) {
	since = memstore.PGTime(since)
	return r.sendStats(since, func(o otpCode) bool { return o.scope == s && o.createdAt.After(since) }), nil
}

// sendStats sums up the codes that counted selects; both times are since when there is none.
func (r *Repo) sendStats(since time.Time, counted func(otpCode) bool) players.SendStats {
	st := r.Lock()
	defer r.Unlock()
	stats := players.SendStats{FirstSentAt: since, LastSentAt: since}
	for _, o := range st.otps {
		if !counted(o) {
			continue
		}
		if stats.Sent == 0 || o.createdAt.Before(stats.FirstSentAt) {
			stats.FirstSentAt = o.createdAt
		}
		if stats.Sent == 0 || o.createdAt.After(stats.LastSentAt) {
			stats.LastSentAt = o.createdAt
		}
		stats.Sent++
	}
	return stats
}

// OTPFailureRun implements players.Repo.
func (r *Repo) OTPFailureRun(_ context.Context, s players.Scope, phone string) (players.FailureRun, error) {
	st := r.Lock()
	defer r.Unlock()
	return st.runs[runKey{s, phone}], nil
}

// SaveOTPFailureRun implements players.Repo.
func (r *Repo) SaveOTPFailureRun(_ context.Context, s players.Scope, phone string, run players.FailureRun) error {
	if run.Failures < 0 {
		return fmt.Errorf("save otp failure run: failures %d (check violation)", run.Failures)
	}
	if !run.LockedUntil.IsZero() {
		run.LockedUntil = memstore.PGTime(run.LockedUntil)
	}
	st := r.Lock()
	defer r.Unlock()
	st.runs[runKey{s, phone}] = run
	return nil
}

// InsertOTP implements players.Repo.
func (r *Repo) InsertOTP(_ context.Context, s players.Scope, phone string, hash []byte, expiresAt, at time.Time) error {
	if hash == nil {
		return fmt.Errorf("insert otp: null code_hash (not-null violation)")
	}
	st := r.Lock()
	defer r.Unlock()
	st.otps = append(st.otps, otpCode{id: uuid.New(), scope: s, phone: phone, hash: bytes.Clone(hash),
		expiresAt: memstore.PGTime(expiresAt), createdAt: memstore.PGTime(at)})
	return nil
}

// LatestOTP implements players.Repo: the code created last (of codes created at the same
// time, the one inserted last), or ErrOTPInvalid.
func (r *Repo) LatestOTP(_ context.Context, s players.Scope, phone string) (players.OTPCode, error) {
	st := r.Lock()
	defer r.Unlock()
	var latest *otpCode
	for i := range st.otps {
		o := &st.otps[i]
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
	st := r.Lock()
	defer r.Unlock()
	for i := range st.otps {
		if st.otps[i].id == id {
			st.otps[i].attempts++
		}
	}
	st.failures = append(st.failures, otpFailure{scope: s, phone: phone, failedAt: memstore.PGTime(at)})
	return nil
}

// OTPUsed implements players.Repo.
func (r *Repo) OTPUsed(_ context.Context, id uuid.UUID) error {
	st := r.Lock()
	defer r.Unlock()
	for i := range st.otps {
		if st.otps[i].id == id {
			st.otps[i].used = true
		}
	}
	return nil
}

// CountOTPFailures implements players.Repo: the failed checks of the phone at or after since.
func (r *Repo) CountOTPFailures(_ context.Context, s players.Scope, phone string, since time.Time) (int64, error) {
	since = memstore.PGTime(since)
	st := r.Lock()
	defer r.Unlock()
	var n int64
	for _, f := range st.failures {
		if f.scope == s && f.phone == phone && !f.failedAt.Before(since) {
			n++
		}
	}
	return n, nil
}

// StoreSettings implements players.Repo.
func (r *Repo) StoreSettings(_ context.Context, gameID uuid.UUID) (players.StoreSettings, error) {
	st := r.Lock()
	defer r.Unlock()
	if s, ok := st.settings[gameID]; ok {
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
	st := r.Lock()
	defer r.Unlock()
	st.settings[gameID] = cloneSettings(s)
	return cloneSettings(s), nil
}
