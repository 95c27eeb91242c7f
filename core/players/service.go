package players

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/authcache"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// Config holds the players module's secrets and collaborators.
type Config struct {
	// TokenKey signs player tokens (HMAC-SHA256).
	TokenKey []byte
	// OTPKey keys the hash under which codes are stored.
	OTPKey []byte
	// TokenTTL is a token's lifetime.
	TokenTTL time.Duration
	Sender   OTPSender
	Files    FileStorage
	// OTPSendsPerHour caps the codes sent in one game and environment in any hour, across all
	// its phones; zero means DefaultOTPSendsPerHour.
	OTPSendsPerHour int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Audit records each change of a game's store settings and theme (audit.Log), in the
	// change's transaction; it must be on the runner's storage. Required for those changes.
	Audit *audit.Log
}

// Service holds the player use cases.
type Service struct {
	runner store.Runner
	store  store.Of[Repo]
	games  store.Of[studio.Repo]
	cfg    Config
	now    func() time.Time
	// seen keeps the players that tokens authenticated, for authcache.TTL: a request with a
	// token costs no database round trip while its player's lookup is fresh. A change of the
	// player made on this instance (blocking, profile, picture) drops it at once; other
	// instances see it within authcache.TTL.
	seen *authcache.Cache[seenKey, Player]
	// tokens keeps the tokens parseToken verified, by their text, for authcache.TTL (and never
	// past their expiry).
	tokens *authcache.Cache[string, verifiedToken]
}

// maxSeenPlayers bounds Service.seen (least recently used first out).
const maxSeenPlayers = 100_000

// maxVerifiedTokens bounds Service.tokens (least recently used first out): a few hundred bytes
// each.
const maxVerifiedTokens = 20_000

type seenKey struct {
	scope Scope
	id    uuid.UUID
}

// NewService returns a Service over the players storage; games is the studio module's storage,
// for the game whose settings an operator changes; runner opens the transactions both take
// part in.
func NewService(runner store.Runner, st store.Of[Repo], games store.Of[studio.Repo], cfg Config) *Service {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Service{runner: runner, store: st, games: games, cfg: cfg, now: now,
		seen: authcache.New[seenKey, Player](maxSeenPlayers), tokens: authcache.New[string, verifiedToken](maxVerifiedTokens)}
}

// player returns a player by id, from Service.seen while fresh.
func (s *Service) player(ctx context.Context, sc Scope, id uuid.UUID) (Player, error) {
	k := seenKey{sc, id}
	if p, ok := s.seen.Get(k); ok {
		p.Addresses = slices.Clone(p.Addresses)
		return p, nil
	}
	gen := s.seen.Generation()
	p, err := s.store.Repo().Get(ctx, sc, id)
	if err == nil {
		s.seen.Put(k, p, gen)
		p.Addresses = slices.Clone(p.Addresses)
	}
	return p, err
}

// changed forgets a player's cached lookup after a change, made or attempted, and passes the
// change's result through.
func (s *Service) changed(p Player, err error) (Player, error) {
	s.seen.Drop(func(k seenKey, _ Player) bool { return k.id == p.ID })
	return p, err
}

func scopeOf(c studio.Caller) Scope { return Scope{GameID: c.GameID, Environment: c.Environment} }

func validUUID(u string) bool { return len(u) >= 1 && len(u) <= 128 && strings.TrimSpace(u) == u }

// CreateWithUUID creates a player with the studio's uuid, or returns the existing one.
func (s *Service) CreateWithUUID(ctx context.Context, c studio.Caller, uuid string) (Created, error) {
	if !validUUID(uuid) {
		return Created{}, invalid("uuid must be 1 to 128 characters without surrounding spaces")
	}
	return s.store.Repo().CreateWithUUID(ctx, scopeOf(c), uuid)
}

// CreateBulk creates players for every uuid (at most MaxBulkUUIDs, duplicates counted once),
// returning each with whether it was created.
func (s *Service) CreateBulk(ctx context.Context, c studio.Caller, uuids []string) ([]Created, error) {
	if len(uuids) == 0 || len(uuids) > MaxBulkUUIDs {
		return nil, invalid("uuids must hold 1 to %d items", MaxBulkUUIDs)
	}
	seen := make(map[string]bool, len(uuids))
	var unique []string
	for i, u := range uuids {
		if !validUUID(u) {
			return nil, invalid("uuids[%d] must be 1 to 128 characters without surrounding spaces", i)
		}
		if !seen[u] {
			seen[u] = true
			unique = append(unique, u)
		}
	}
	// Rows are written in sorted order so that two overlapping bulk calls lock them in the same
	// order and cannot deadlock; the answer keeps the caller's order.
	sorted := slices.Sorted(slices.Values(unique))
	byUUID := make(map[string]Created, len(sorted))
	err := s.store.InTx(ctx, func(r Repo) error {
		for _, u := range sorted {
			p, err := r.CreateWithUUID(ctx, scopeOf(c), u)
			if err != nil {
				return err
			}
			byUUID[u] = p
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]Created, len(unique))
	for i, u := range unique {
		out[i] = byUUID[u]
	}
	return out, nil
}

// FederatedLogin issues a token for the player the studio knows by uuid.
func (s *Service) FederatedLogin(ctx context.Context, c studio.Caller, uuid string) (Token, error) {
	if !validUUID(uuid) {
		return Token{}, invalid("uuid must be 1 to 128 characters without surrounding spaces")
	}
	p, err := s.store.Repo().GetByUUID(ctx, scopeOf(c), uuid)
	if err != nil {
		return Token{}, err
	}
	if p.IsBlocked {
		return Token{}, ErrPlayerDisabled
	}
	return s.issueToken(p)
}

func (s *Service) otpHash(sc Scope, phone, code string) []byte {
	m := hmac.New(sha256.New, s.cfg.OTPKey)
	fmt.Fprintf(m, "%s|%s|%s|%s", sc.GameID, sc.Environment, phone, code)
	return m.Sum(nil)
}

// otpSendsPerHour is the game-wide hourly cap on sends.
func (s *Service) otpSendsPerHour() int {
	if s.cfg.OTPSendsPerHour > 0 {
		return s.cfg.OTPSendsPerHour
	}
	return DefaultOTPSendsPerHour
}

// RequestOTP sends a fresh code to phone, within the limits: none to a phone locked by a run of
// failed checks, one send per 30 s and five per hour per phone, and OTPSendsPerHour per game and
// environment across all phones (against SMS pumping). The code is stored only as a keyed hash.
func (s *Service) RequestOTP(ctx context.Context, c studio.Caller, phone string) (OTPSent, error) {
	if !ValidPhone(phone) {
		return OTPSent{}, invalid("phone must be E.164, e.g. +919876543210")
	}
	sc := scopeOf(c)
	if p, err := s.store.Repo().GetByPhone(ctx, sc, phone); err == nil && p.IsBlocked {
		return OTPSent{}, ErrPlayerDisabled
	} else if err != nil && !errors.Is(err, ErrPlayerNotFound) {
		return OTPSent{}, err
	}
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return OTPSent{}, err
	}
	code := fmt.Sprintf("%06d", n.Int64())
	now := s.now()
	err = s.store.InTx(ctx, func(r Repo) error {
		run, err := lockPhone(ctx, r, sc, phone)
		if err != nil {
			return err
		}
		if err := run.locked(now); err != nil {
			return err
		}
		stats, err := r.OTPSendStats(ctx, sc, phone, now.Add(-time.Hour))
		if err != nil {
			return err
		}
		if stats.Sent > 0 && now.Sub(stats.LastSentAt) < OTPResendGap {
			return resendTooSoon(OTPResendGap - now.Sub(stats.LastSentAt))
		}
		if stats.Sent >= OTPMaxSendsHour {
			return rateLimited(stats.FirstSentAt.Add(time.Hour).Sub(now), "OTP sends")
		}
		// The game-wide cap is counted under a lock of the whole game and environment (the phone's
		// lock does not cover other phones), taken last so that refusals for one phone never wait
		// on it. It is held until the code is recorded and the transaction commits.
		if err := r.LockOTPScope(ctx, sc); err != nil {
			return err
		}
		game, err := r.OTPScopeSendStats(ctx, sc, now.Add(-time.Hour))
		if err != nil {
			return err
		}
		if limit := s.otpSendsPerHour(); game.Sent >= int64(limit) {
			return gameRateLimited(limit, game.FirstSentAt.Add(time.Hour).Sub(now))
		}
		return r.InsertOTP(ctx, sc, phone, s.otpHash(sc, phone, code), now.Add(OTPLifetime), now)
	})
	if err != nil {
		return OTPSent{}, err
	}
	msg := fmt.Sprintf("%s is your login code. It expires in 5 minutes. Do not share it.", code)
	if err := s.cfg.Sender.SendOTP(ctx, phone, msg); err != nil {
		return OTPSent{}, fmt.Errorf("%w: %v", ErrSMSFailed, err)
	}
	return OTPSent{ExpiresIn: OTPLifetime, ResendAfter: OTPResendGap}, nil
}

// lockPhone takes the phone's lock for the transaction of r and returns its run of failed
// checks.
func lockPhone(ctx context.Context, r Repo, sc Scope, phone string) (FailureRun, error) {
	if err := r.LockPhone(ctx, sc, phone); err != nil {
		return FailureRun{}, err
	}
	return r.OTPFailureRun(ctx, sc, phone)
}

// locked is the refusal of a phone that the run has locked at now, or nil.
func (run FailureRun) locked(now time.Time) error {
	if now.Before(run.LockedUntil) {
		return phoneLocked(run.LockedUntil.Sub(now))
	}
	return nil
}

// spent says why the stored code otp can no longer log in at now, or nil when it can.
func spent(otp OTPCode, now time.Time) error {
	switch {
	case otp.Used:
		return ErrOTPUsed
	case otp.Attempts >= OTPMaxAttempts:
		return ErrOTPExhausted
	case !now.Before(otp.ExpiresAt):
		return ErrOTPExpired
	}
	return nil
}

// Login checks a code and issues a token; the first successful login of a phone creates its
// player. A code dies after 5 wrong tries, on expiry and once used; a phone gets at most 10
// failed checks an hour, and OTPMaxFailureRun failed checks in a row (a successful login ends
// the run) lock it for OTPLockout.
func (s *Service) Login(ctx context.Context, c studio.Caller, phone, code string) (Token, error) {
	if !ValidPhone(phone) {
		return Token{}, invalid("phone must be E.164, e.g. +919876543210")
	}
	if !otpPattern.MatchString(code) {
		return Token{}, invalid("otp must be 6 digits")
	}
	sc := scopeOf(c)
	now := s.now()
	var player Player
	var outcome error // the login's refusal, committed with the failure it records
	err := s.store.InTx(ctx, func(r Repo) error {
		run, err := lockPhone(ctx, r, sc, phone)
		if err != nil {
			return err
		}
		if outcome = run.locked(now); outcome != nil {
			return nil
		}
		failures, err := r.CountOTPFailures(ctx, sc, phone, now.Add(-time.Hour))
		if err != nil {
			return err
		}
		if failures >= OTPMaxFailureHour {
			outcome = rateLimited(time.Hour, "failed OTP checks")
			return nil
		}
		otp, err := r.LatestOTP(ctx, sc, phone)
		if err != nil {
			return err
		}
		if outcome = spent(otp, now); outcome != nil {
			return nil
		}
		if !hmac.Equal(otp.Hash, s.otpHash(sc, phone, code)) {
			outcome = ErrOTPInvalid
			if err := r.OTPFailed(ctx, sc, phone, otp.ID, now); err != nil {
				return err
			}
			run.Failures++
			if run.Failures >= OTPMaxFailureRun {
				// The lock ends the run: the phone starts afresh when it lifts.
				run = FailureRun{LockedUntil: now.Add(OTPLockout)}
			}
			return r.SaveOTPFailureRun(ctx, sc, phone, run)
		}
		if err := r.OTPUsed(ctx, otp.ID); err != nil {
			return err
		}
		if run.Failures > 0 {
			run.Failures = 0
			if err := r.SaveOTPFailureRun(ctx, sc, phone, run); err != nil {
				return err
			}
		}
		player, err = r.GetOrCreateByPhone(ctx, sc, phone)
		return err
	})
	if err != nil {
		return Token{}, err
	}
	if outcome != nil {
		return Token{}, outcome
	}
	if player.IsBlocked {
		return Token{}, ErrPlayerDisabled
	}
	return s.issueToken(player)
}

// Authenticate verifies a bearer token for a request authenticated as caller, and returns its
// player. gameUUID, when not empty, must be the player's uuid.
func (s *Service) Authenticate(ctx context.Context, c studio.Caller, token, gameUUID string) (Player, error) {
	if token == "" {
		return Player{}, ErrTokenMissing
	}
	claims, err := s.parseToken(token)
	if err != nil {
		return Player{}, err
	}
	if claims.GameID != c.GameID || claims.Environment != c.Environment {
		return Player{}, ErrTokenOtherGame
	}
	p, err := s.player(ctx, scopeOf(c), claims.PlayerID)
	if errors.Is(err, ErrPlayerNotFound) {
		return Player{}, ErrTokenInvalid
	}
	if err != nil {
		return Player{}, err
	}
	if p.IsBlocked {
		return Player{}, ErrPlayerDisabled
	}
	if gameUUID != "" && (p.UUID == nil || *p.UUID != gameUUID) {
		return Player{}, ErrPlayerMismatch
	}
	return p, nil
}

// UpdateProfile applies a change to the player's profile.
func (s *Service) UpdateProfile(ctx context.Context, p Player, u ProfileUpdate) (Player, error) {
	if u.Name != nil {
		name := strings.TrimSpace(*u.Name)
		if len(name) > 100 {
			return Player{}, invalid("name must be at most 100 characters")
		}
		p.Name = name
	}
	if u.Email != nil {
		if !validEmail(*u.Email) {
			return Player{}, invalid("email must be an email address")
		}
		p.Email = *u.Email
	}
	if u.ContactPhone != nil {
		if *u.ContactPhone != "" && !ValidPhone(*u.ContactPhone) {
			return Player{}, invalid("phone must be E.164, e.g. +919876543210")
		}
		p.ContactPhone = *u.ContactPhone
	}
	if u.Addresses != nil {
		list := append([]Address(nil), (*u.Addresses)...)
		if err := validateAddresses(list); err != nil {
			return Player{}, err
		}
		p.Addresses = list
	}
	return s.changed(s.store.Repo().UpdateProfile(ctx, p))
}

// SetCookieConsent records the player's cookie consent (the first time only).
func (s *Service) SetCookieConsent(ctx context.Context, p Player) (Player, error) {
	defer s.changed(p, nil)
	return s.store.Repo().SetCookieConsent(ctx, p.ID)
}

// Disable soft-deletes the player: its tokens and logins stop working.
func (s *Service) Disable(ctx context.Context, p Player) (Player, error) {
	defer s.changed(p, nil)
	return s.store.Repo().Block(ctx, p.ID)
}

// Picture formats accepted for profile pictures, by content.
var pictureFormats = []struct {
	contentType, ext string
	match            func([]byte) bool
}{
	{"image/png", "png", func(b []byte) bool { return bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) }},
	{"image/jpeg", "jpg", func(b []byte) bool { return bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}) }},
	{"image/webp", "webp", func(b []byte) bool {
		return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP"
	}},
}

// UploadPicture stores a PNG, JPEG or WebP picture (checked by content, at most 5 MB), makes it
// the player's profile picture, then deletes the picture it replaced, so that a player keeps
// one file however often it uploads. Failing to delete the old file does not fail the upload:
// that error is returned as cleanupErr, for the caller to log.
func (s *Service) UploadPicture(ctx context.Context, p Player, data []byte) (updated Player, cleanupErr, err error) {
	if len(data) == 0 {
		return Player{}, nil, invalid("file is empty")
	}
	if len(data) > MaxPictureBytes {
		return Player{}, nil, invalid("file must be at most 5 MB")
	}
	for _, f := range pictureFormats {
		if !f.match(data) {
			continue
		}
		key := fmt.Sprintf("profile-%s-%s.%s", p.ID, strings.ToLower(rand.Text()[:16]), f.ext)
		if err := s.cfg.Files.Put(ctx, key, f.contentType, data); err != nil {
			return Player{}, nil, fmt.Errorf("store picture: %w", err)
		}
		var previous string
		updated, previous, err = s.store.Repo().SetPicture(ctx, p.ID, key)
		s.changed(p, nil)
		if errors.Is(err, ErrPlayerNotFound) {
			// The new file is nobody's picture. (After another error the update may still have
			// committed, so the file stays.)
			_ = s.cfg.Files.Delete(context.WithoutCancel(ctx), key)
		}
		if err != nil {
			return Player{}, nil, err
		}
		if previous != "" && previous != key {
			if err := s.cfg.Files.Delete(context.WithoutCancel(ctx), previous); err != nil {
				cleanupErr = fmt.Errorf("delete previous picture %q: %w", previous, err)
			}
		}
		return updated, cleanupErr, nil
	}
	return Player{}, nil, invalid("file must be a PNG, JPEG or WebP image")
}

// OpenFile returns a stored file, for serving pictures.
func (s *Service) OpenFile(ctx context.Context, key string) (io.ReadCloser, string, error) {
	return s.cfg.Files.Open(ctx, key)
}

// StoreSettings returns the game's store settings.
func (s *Service) StoreSettings(ctx context.Context, gameID uuid.UUID) (StoreSettings, error) {
	return s.store.Repo().StoreSettings(ctx, gameID)
}

// SettingsChange is an operator's change to store settings; nil fields stay as they are.
type SettingsChange struct {
	RewardsEnabled     *bool
	GcommerceEnabled   *bool
	DefaultLandingPage *string
	Theme              []byte
}

// Apply returns cur with the fields ch sets changed.
func (ch SettingsChange) Apply(cur StoreSettings) StoreSettings {
	if ch.RewardsEnabled != nil {
		cur.RewardsEnabled = *ch.RewardsEnabled
	}
	if ch.GcommerceEnabled != nil {
		cur.GcommerceEnabled = *ch.GcommerceEnabled
	}
	if ch.DefaultLandingPage != nil {
		cur.DefaultLandingPage = *ch.DefaultLandingPage
	}
	if ch.Theme != nil {
		cur.Theme = ch.Theme
	}
	return cur
}

// ChangeStoreSettings applies an operator's change: studio.ErrGameNotFound when there is no
// such game. The game stays locked until the change commits, so concurrent changes apply one
// after the other and none is lost.
func (s *Service) ChangeStoreSettings(ctx context.Context, gameID uuid.UUID, ch SettingsChange) (StoreSettings, error) {
	if ch.Theme != nil {
		var obj map[string]any
		if err := json.Unmarshal(ch.Theme, &obj); err != nil || obj == nil {
			return StoreSettings{}, invalid("theme must be a JSON object")
		}
		if err := checkTheme(obj); err != nil {
			return StoreSettings{}, err
		}
	}
	var out StoreSettings
	details := map[string]string{}
	if ch.RewardsEnabled != nil {
		details["rewardsEnabled"] = fmt.Sprint(*ch.RewardsEnabled)
	}
	if ch.GcommerceEnabled != nil {
		details["gcommerceEnabled"] = fmt.Sprint(*ch.GcommerceEnabled)
	}
	if ch.DefaultLandingPage != nil {
		details["defaultLandingPage"] = *ch.DefaultLandingPage
	}
	if ch.Theme != nil {
		details["theme"] = "changed"
	}
	e := audit.Entry{GameID: &gameID, Action: "store_settings.change", TargetType: "game", TargetID: gameID.String(), Details: details}
	err := s.cfg.Audit.Change(ctx, e, func(t store.Tx) error {
		if _, err := s.games.WithTx(t).LockGame(ctx, gameID); err != nil {
			return err
		}
		r := s.store.WithTx(t)
		cur, err := r.StoreSettings(ctx, gameID)
		if err != nil {
			return err
		}
		out, err = r.SaveStoreSettings(ctx, gameID, ch.Apply(cur))
		return err
	})
	return out, err
}
