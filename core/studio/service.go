package studio

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/authcache"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/weburl"
)

// Service holds the studio use cases.
type Service struct {
	store store.Of[Repo]
	// log records each change in the change's transaction.
	log *audit.Log
	// keys and secrets keep found API keys and server secrets, by hash, for authcache.TTL.
	keys    *authcache.Cache[string, KeyRecord]
	secrets *authcache.Cache[string, SecretRecord]
	// origins keeps the answers to OriginAllowed, by environment and origin, for authcache.TTL.
	origins *authcache.Cache[string, bool]
	// rotated are told of each key rotation, after it commits (WhenKeysRotate).
	rotated []func(gameID uuid.UUID)
}

// WhenKeysRotate has f called with the game's id after each rotation of one of its API keys
// (for caches of what the old key authorised, such as partner tokens). Call it while wiring the
// modules, before serving.
func (s *Service) WhenKeysRotate(f func(gameID uuid.UUID)) { s.rotated = append(s.rotated, f) }

// maxCachedLookups bounds each of the service's caches.
const maxCachedLookups = 50_000

// NewService returns a Service over the studio module's storage. log, on the same storage,
// records every change (audit.Log), in the change's transaction.
func NewService(st store.Of[Repo], log *audit.Log) *Service {
	return &Service{store: st, log: log,
		keys:    authcache.New[string, KeyRecord](maxCachedLookups),
		secrets: authcache.New[string, SecretRecord](maxCachedLookups),
		origins: authcache.New[string, bool](maxCachedLookups)}
}

// dropGame forgets the game's cached keys and secrets (and any lookup in flight).
func (s *Service) dropGame(gameID uuid.UUID) {
	s.keys.Drop(func(_ string, k KeyRecord) bool { return k.GameID == gameID })
	s.secrets.Drop(func(_ string, r SecretRecord) bool { return r.GameID == gameID })
}

// CreateStudio onboards a studio.
func (s *Service) CreateStudio(ctx context.Context, name string) (Studio, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Studio{}, errs.Invalidf("name must not be blank")
	}
	var out Studio
	err := s.log.InTx(ctx, func(tx store.Tx) error {
		var err error
		if out, err = s.store.WithTx(tx).CreateStudio(ctx, name); err != nil {
			return err
		}
		return s.log.Record(ctx, tx, audit.Entry{StudioID: out.ID, Action: "studio.create", TargetType: "studio",
			TargetID: out.ID.String(), Details: map[string]string{"name": name}})
	})
	return out, err
}

// ListStudios returns every studio, oldest first.
func (s *Service) ListStudios(ctx context.Context) ([]Studio, error) {
	return s.store.Repo().ListStudios(ctx)
}

// GetStudio returns one studio.
func (s *Service) GetStudio(ctx context.Context, id uuid.UUID) (Studio, error) {
	return s.store.Repo().GetStudio(ctx, id)
}

// ListGames returns the games of a studio, oldest first.
func (s *Service) ListGames(ctx context.Context, studioID uuid.UUID) ([]Game, error) {
	if _, err := s.store.Repo().GetStudio(ctx, studioID); err != nil {
		return nil, err
	}
	return s.store.Repo().ListGames(ctx, studioID)
}

// CreateGame adds a game to a studio and issues its live and test keys, returned in plaintext
// only here. Its store address follows the rule of SetStoreURL.
func (s *Service) CreateGame(ctx context.Context, g Game) (NewGame, error) {
	g.Name = strings.TrimSpace(g.Name)
	if g.Name == "" {
		return NewGame{}, errs.Invalidf("name must not be blank")
	}
	if err := validStoreURL(g.StoreURL); err != nil {
		return NewGame{}, err
	}
	var out NewGame
	err := s.log.InTx(ctx, func(tx store.Tx) error {
		r := s.store.WithTx(tx)
		if _, err := r.GetStudio(ctx, g.StudioID); err != nil {
			return err
		}
		created, err := r.CreateGame(ctx, g)
		if err != nil {
			return fmt.Errorf("create game: %w", err)
		}
		out = NewGame{Game: created}
		for _, env := range []Environment{Live, Test} {
			plain, hash := NewAPIKey(env)
			if err := r.InsertAPIKey(ctx, created.ID, env, hash, KeyHint(plain)); err != nil {
				return fmt.Errorf("insert %s key: %w", env, err)
			}
			if env == Live {
				out.LiveKey = plain
			} else {
				out.TestKey = plain
			}
		}
		return s.log.Record(ctx, tx, audit.Entry{StudioID: created.StudioID, GameID: &created.ID, Action: "game.create",
			TargetType: "game", TargetID: created.ID.String(), Details: map[string]string{"name": created.Name, "storeUrl": created.StoreURL}})
	})
	return out, err
}

// RotateKey revokes the game's current key of env and issues a new one, returned in plaintext
// only here. The old key stops working as soon as the rotation commits.
func (s *Service) RotateKey(ctx context.Context, gameID uuid.UUID, env Environment) (string, error) {
	if !env.Valid() {
		return "", errInvalidEnv
	}
	plain, err := s.issue(ctx, gameID, env, "api_key.rotate", func(r Repo) (string, error) {
		if err := r.RevokeAPIKeys(ctx, gameID, env); err != nil {
			return "", fmt.Errorf("revoke %s keys: %w", env, err)
		}
		plain, hash := NewAPIKey(env)
		return plain, r.InsertAPIKey(ctx, gameID, env, hash, KeyHint(plain))
	})
	// The old key stops working on this instance at once (others: within authcache.TTL).
	for _, f := range s.rotated {
		f(gameID)
	}
	return plain, err
}

// Authenticate resolves the x-api-key of a request that arrived on a host of hostEnv.
// Each failure has its own error so the caller can tell a missing key, an unknown key, a
// rotated-away key and a key of the other environment apart.
func (s *Service) Authenticate(ctx context.Context, key string, hostEnv Environment) (Caller, error) {
	if key == "" {
		return Caller{}, ErrKeyMissing
	}
	if !wellFormedKey(key) {
		return Caller{}, ErrKeyUnknown
	}
	// The lookup is by SHA-256 of the key, never by the key itself: whatever timing the index
	// comparison shows depends on a hash the caller cannot steer, so it reveals nothing about
	// any stored key.
	hash := string(HashKey(key))
	rec, cached := s.keys.Get(hash)
	if !cached {
		gen := s.keys.Generation()
		var err error
		if rec, err = s.store.Repo().FindAPIKey(ctx, []byte(hash)); err != nil {
			return Caller{}, err
		}
		s.keys.Put(hash, rec, gen)
	}
	if rec.Revoked {
		return Caller{}, ErrKeyRevoked
	}
	if rec.Environment != hostEnv {
		return Caller{}, WrongEnvironment(rec.Environment)
	}
	return Caller{GameID: rec.GameID, StudioID: rec.StudioID, GameName: rec.GameName, Environment: rec.Environment,
		AllowedOrigins:          rec.AllowedOrigins,
		ServerOnlyCoinMovements: rec.ServerOnlyCoinMovements}, nil
}

// IssueServerSecret issues the game's server secret of env, returned in plaintext only here,
// and replaces the one it had: the old secret stops working as soon as this commits on this
// instance, and within authcache.TTL on others. The secret
// is for the studio's servers; with ServerOnlyCoinMovements on, coin movements need it.
func (s *Service) IssueServerSecret(ctx context.Context, gameID uuid.UUID, env Environment) (string, error) {
	if !env.Valid() {
		return "", errInvalidEnv
	}
	return s.issue(ctx, gameID, env, "server_secret.issue", func(r Repo) (string, error) {
		plain, hash := NewServerSecret(env)
		return plain, r.PutServerSecret(ctx, gameID, env, hash)
	})
}

// issue makes a new credential of the game's env with put, under the game's lock and with the
// audit entry of action, and returns it in plaintext. The game's cached reads are dropped, so
// that a replaced credential stops working on this instance at once.
func (s *Service) issue(ctx context.Context, gameID uuid.UUID, env Environment, action string, put func(r Repo) (string, error)) (string, error) {
	var plain string
	err := s.log.Change(ctx, gameEntry(gameID, action, env, nil), func(tx store.Tx) error {
		r := s.store.WithTx(tx)
		if _, err := r.LockGame(ctx, gameID); err != nil {
			return err
		}
		var err error
		plain, err = put(r)
		return err
	})
	s.dropGame(gameID)
	return plain, err
}

// SetPurchaseBudget sets a game's purchase budget per day of the environments in set (nil in b
// is unlimited) and returns the game.
func (s *Service) SetPurchaseBudget(ctx context.Context, gameID uuid.UUID, b Budgets, set map[Environment]bool) (Game, error) {
	for _, v := range []*money.Amount{b.Live, b.Test} {
		if v != nil && (*v < 0 || *v > MaxBudget) {
			return Game{}, errs.Invalidf("purchaseBudgetPerDay must be from 0 to %s, or -1 for unlimited", MaxBudget)
		}
	}
	details := map[string]string{}
	for _, env := range []Environment{Live, Test} {
		if set[env] {
			details[string(env)] = budgetText(b.Of(env))
		}
	}
	return s.changeGame(ctx, gameEntry(gameID, "purchase_budget.set", "", details), func(r Repo) (Game, error) {
		return r.SetPurchaseBudget(ctx, gameID, b, set)
	})
}

// budgetText is a purchase budget as an audit entry shows it.
func budgetText(v *money.Amount) string {
	if v == nil {
		return "unlimited"
	}
	return v.String()
}

// gameEntry is the audit entry of a change to a game (its studio is the game's).
func gameEntry(gameID uuid.UUID, action string, env Environment, details map[string]string) audit.Entry {
	return audit.Entry{GameID: &gameID, Action: action, TargetType: "game", TargetID: gameID.String(), Environment: string(env),
		Details: details}
}

// changeGame runs a one-statement change of a game with its audit entry, in one transaction.
func (s *Service) changeGame(ctx context.Context, e audit.Entry, change func(Repo) (Game, error)) (Game, error) {
	var g Game
	err := s.log.Change(ctx, e, func(tx store.Tx) error {
		var err error
		g, err = change(s.store.WithTx(tx))
		return err
	})
	return g, err
}

// SetStoreURL replaces the game's store address, the base of the links its touchpoints offer
// ({storeUrl}/rewards/{id}): an absolute http or https address (weburl), or "" for the
// service's own store pages.
func (s *Service) SetStoreURL(ctx context.Context, gameID uuid.UUID, storeURL string) (Game, error) {
	if err := validStoreURL(storeURL); err != nil {
		return Game{}, err
	}
	storeURL = strings.TrimSuffix(storeURL, "/")
	return s.changeGame(ctx, gameEntry(gameID, "store_url.set", "", map[string]string{"storeUrl": storeURL}), func(r Repo) (Game, error) {
		return r.SetStoreURL(ctx, gameID, storeURL)
	})
}

// validStoreURL is the rule of a game's store address: "" or an absolute http or https address
// of at most weburl.MaxLen characters (weburl.Valid).
func validStoreURL(storeURL string) error {
	if storeURL != "" && !weburl.Valid(storeURL, true) {
		return errs.Invalidf("storeUrl must be an absolute http or https address of at most %d characters", weburl.MaxLen)
	}
	return nil
}

// SetServerOnlyCoinMovements turns the game's ServerOnlyCoinMovements setting on or off and
// returns the game.
func (s *Service) SetServerOnlyCoinMovements(ctx context.Context, gameID uuid.UUID, on bool) (Game, error) {
	g, err := s.changeGame(ctx, gameEntry(gameID, "server_only_coin_movements.set", "", map[string]string{"on": strconv.FormatBool(on)}),
		func(r Repo) (Game, error) { return r.SetServerOnlyCoinMovements(ctx, gameID, on) })
	// Callers carry the setting: this instance sees the change at once (others: within
	// authcache.TTL).
	s.dropGame(gameID)
	return g, err
}

// AuthorizeCoinMovement lets a coin movement of caller through: always when the game's
// ServerOnlyCoinMovements is off, and otherwise only with secret the game's current server
// secret of the caller's environment; else ErrServerSecretRequired. Like API keys, the secret
// is looked up by its SHA-256, so no comparison's timing depends on the stored secret.
func (s *Service) AuthorizeCoinMovement(ctx context.Context, caller Caller, secret string) error {
	if !caller.ServerOnlyCoinMovements {
		return nil
	}
	if secret == "" {
		return ErrServerSecretRequired.Withf("this game takes coin movements only from its servers: send the game's %s server secret in the x-api-secret header", caller.Environment)
	}
	wrong := ErrServerSecretRequired.Withf("x-api-secret is not this game's current %s server secret", caller.Environment)
	if !wellFormedSecret(secret) {
		return wrong
	}
	hash := string(HashKey(secret))
	rec, found := s.secrets.Get(hash)
	if !found {
		gen := s.secrets.Generation()
		var err error
		if rec, found, err = s.store.Repo().FindServerSecret(ctx, []byte(hash)); err != nil {
			return err
		}
		if found {
			s.secrets.Put(hash, rec, gen)
		}
	}
	switch {
	case !found || rec.GameID != caller.GameID:
		return wrong
	case rec.Environment != caller.Environment:
		return ErrServerSecretRequired.Withf("x-api-secret is this game's %s server secret; this host serves the %s environment", rec.Environment, caller.Environment)
	}
	return nil
}

// SetAllowedOrigins replaces the allowed browser origins of the environments in set (at most
// MaxAllowedOrigins each, exact origins: http or https, a host and an optional port, nothing
// else) and returns the game. This instance answers with the new origins at once; others within
// authcache.TTL.
func (s *Service) SetAllowedOrigins(ctx context.Context, gameID uuid.UUID, o Origins, set map[Environment]bool) (Game, error) {
	for _, list := range []*[]string{&o.Live, &o.Test} {
		if len(*list) > MaxAllowedOrigins {
			return Game{}, errs.Invalidf("at most %d allowed origins per environment", MaxAllowedOrigins)
		}
		clean := make([]string, 0, len(*list))
		for _, raw := range *list {
			origin, err := CanonicalOrigin(raw)
			if err != nil {
				return Game{}, err
			}
			if !slices.Contains(clean, origin) {
				clean = append(clean, origin)
			}
		}
		*list = clean
	}
	details := map[string]string{}
	for _, env := range []Environment{Live, Test} {
		if set[env] {
			details[string(env)] = strings.Join(o.Of(env), " ")
		}
	}
	g, err := s.changeGame(ctx, gameEntry(gameID, "allowed_origins.set", "", details), func(r Repo) (Game, error) {
		return r.SetAllowedOrigins(ctx, gameID, o, set)
	})
	s.dropGame(gameID)
	s.origins.Drop(func(string, bool) bool { return true })
	return g, err
}

// CanonicalOrigin checks that raw is an exact browser origin (scheme http or https, a host, an
// optional port; no path, query, fragment or user) and returns it as browsers send it, scheme
// and host in lower case.
func CanonicalOrigin(raw string) (string, error) {
	bad := errs.Invalidf("allowed origins are exact origins such as https://play.example.com (http or https, a host and an optional port, no path): %q is not one", raw)
	u, err := url.Parse(raw)
	if err != nil || len(raw) > 253 || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Hostname() == "" ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(raw, " \t\r\n") ||
		u.Opaque != "" {
		return "", bad
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", bad
		}
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host), nil
}

// OriginAllowed reports whether any game allows origin in env: a browser's preflight carries no
// key, so it is answered for the environment (the request itself is then checked against its
// game's origins).
func (s *Service) OriginAllowed(ctx context.Context, env Environment, origin string) (bool, error) {
	k := string(env) + " " + origin
	if ok, cached := s.origins.Get(k); cached {
		return ok, nil
	}
	gen := s.origins.Generation()
	ok, err := s.store.Repo().OriginAllowed(ctx, env, origin)
	if err != nil {
		return false, err
	}
	s.origins.Put(k, ok, gen)
	return ok, nil
}

// GetGame returns one game.
func (s *Service) GetGame(ctx context.Context, id uuid.UUID) (Game, error) {
	return s.store.Repo().GetGame(ctx, id)
}
