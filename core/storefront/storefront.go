// Package storefront owns the player's store sessions: the one-time entry code a game asks for
// (POST /player/store-session) and the session it opens in the game's web view.
//
// An entry code is 52 random characters, good for one opening within EntryTTL; storage keeps
// only its SHA-256, in a table every instance shares, so that a code made on one instance opens
// the store on any other. Opening it gives a session: a value signed with the service's key
// (HMAC-SHA256) that names the game, the environment and the player and ends after SessionTTL.
// A session holds no state of its own; every request resumes it through Players, which answers
// from the players module (its lookups are kept authcache.TTL), so that a player blocked or
// gone is signed out at its next request.
package storefront

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

// EntryTTL is how long an entry code may be opened; SessionTTL how long a session lasts.
const (
	EntryTTL   = 60 * time.Second
	SessionTTL = 24 * time.Hour
)

// ErrEntryInvalid means an entry code is unknown, used or expired; the three are one answer,
// so that the answer tells a guesser nothing.
var ErrEntryInvalid = errors.New("the store link is used, expired or unknown")

// ErrSessionInvalid means a session value is forged, expired, or its player can no longer
// shop (blocked, or the account deleted).
var ErrSessionInvalid = errors.New("the store session is over")

// Entry is a new entry code and when it stops working.
type Entry struct {
	Code      string
	ExpiresAt time.Time
}

// Session is an open store session: whose it is and until when.
type Session struct {
	Player    players.Player
	ExpiresAt time.Time
}

// Scope is the session's game and environment.
func (s Session) Scope() players.Scope {
	return players.Scope{GameID: s.Player.GameID, Environment: s.Player.Environment}
}

// Repo is the storage of entry codes.
type Repo interface {
	// InsertEntry stores the hash of a new code of the player.
	InsertEntry(ctx context.Context, hash []byte, p players.Scope, playerID uuid.UUID, expiresAt time.Time) error
	// TakeEntry spends the code with hash if it is unused and unexpired at now, and returns whose
	// it is; ErrEntryInvalid otherwise. Of concurrent takes of one code, one succeeds.
	TakeEntry(ctx context.Context, hash []byte, now time.Time) (players.Scope, uuid.UUID, error)
}

// Players answers whether a player may shop.
type Players interface {
	// Active returns the player of scope; players.ErrPlayerNotFound, or
	// players.ErrPlayerDisabled when it is blocked or deleted its account.
	Active(ctx context.Context, s players.Scope, id uuid.UUID) (players.Player, error)
}

// Service opens and resumes store sessions.
type Service struct {
	repo    Repo
	players Players
	key     []byte
	now     func() time.Time
}

// New returns the sessions of repo, signed with key; now nil means time.Now.
func New(repo Repo, p Players, key []byte, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{repo: repo, players: p, key: key, now: now}
}

// Open makes an entry code for the player (who must be active) valid for EntryTTL.
func (s *Service) Open(ctx context.Context, p players.Player) (Entry, error) {
	if p.IsBlocked {
		return Entry{}, players.ErrPlayerDisabled
	}
	code := rand.Text() + rand.Text()
	exp := s.now().Add(EntryTTL)
	if err := s.repo.InsertEntry(ctx, hashCode(code), players.Scope{GameID: p.GameID, Environment: p.Environment}, p.ID, exp); err != nil {
		return Entry{}, fmt.Errorf("store entry code: %w", err)
	}
	return Entry{Code: code, ExpiresAt: exp.UTC().Truncate(time.Second)}, nil
}

// Enter spends an entry code and returns the session it opens and its signed value, for the
// cookie. The code is spent even when its player turns out blocked.
func (s *Service) Enter(ctx context.Context, code string) (Session, string, error) {
	if len(code) < 32 || len(code) > 128 {
		return Session{}, "", ErrEntryInvalid
	}
	sc, id, err := s.repo.TakeEntry(ctx, hashCode(code), s.now())
	if err != nil {
		return Session{}, "", err
	}
	p, err := s.active(ctx, sc, id)
	if err != nil {
		return Session{}, "", err
	}
	exp := s.now().Add(SessionTTL).Truncate(time.Second)
	return Session{Player: p, ExpiresAt: exp}, s.sign(sc, id, exp), nil
}

// Resume checks a session's signed value and that its player may still shop.
func (s *Service) Resume(ctx context.Context, value string) (Session, error) {
	sc, id, exp, ok := s.verify(value)
	if !ok || !s.now().Before(exp) {
		return Session{}, ErrSessionInvalid
	}
	p, err := s.active(ctx, sc, id)
	if err != nil {
		return Session{}, err
	}
	return Session{Player: p, ExpiresAt: exp}, nil
}

func (s *Service) active(ctx context.Context, sc players.Scope, id uuid.UUID) (players.Player, error) {
	p, err := s.players.Active(ctx, sc, id)
	if errors.Is(err, players.ErrPlayerNotFound) || errors.Is(err, players.ErrPlayerDisabled) {
		return players.Player{}, ErrSessionInvalid
	}
	return p, err
}

func hashCode(code string) []byte {
	h := sha256.Sum256([]byte(code))
	return h[:]
}

// A session value is base64url(game 16 | player 16 | env 1 | expiry 8 | HMAC 32).
const payloadLen = 16 + 16 + 1 + 8

func (s *Service) sign(sc players.Scope, id uuid.UUID, exp time.Time) string {
	b := make([]byte, 0, payloadLen+sha256.Size)
	b = append(b, sc.GameID[:]...)
	b = append(b, id[:]...)
	env := byte('t')
	if sc.Environment == studio.Live {
		env = 'l'
	}
	b = append(b, env)
	b = binary.BigEndian.AppendUint64(b, uint64(exp.Unix()))
	m := hmac.New(sha256.New, s.key)
	m.Write(b)
	return base64.RawURLEncoding.EncodeToString(m.Sum(b))
}

func (s *Service) verify(value string) (sc players.Scope, id uuid.UUID, exp time.Time, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil || len(b) != payloadLen+sha256.Size {
		return sc, id, exp, false
	}
	m := hmac.New(sha256.New, s.key)
	m.Write(b[:payloadLen])
	if !hmac.Equal(m.Sum(nil), b[payloadLen:]) {
		return sc, id, exp, false
	}
	copy(sc.GameID[:], b[0:16])
	copy(id[:], b[16:32])
	switch b[32] {
	case 'l':
		sc.Environment = studio.Live
	case 't':
		sc.Environment = studio.Test
	default:
		return sc, id, exp, false
	}
	exp = time.Unix(int64(binary.BigEndian.Uint64(b[33:41])), 0)
	return sc, id, exp, true
}
