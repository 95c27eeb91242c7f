// Package studio owns the tenants of the platform: studios, their games, and the API keys that
// identify a game and one of its two environments on every call.
package studio

import (
	"github.com/rewardsco/rewards/core/money"
	"time"

	"github.com/google/uuid"
)

// Environment is one of a game's two isolated data planes. All player, coin, order, wallet and
// webhook data is scoped to a (game, environment) pair.
type Environment string

const (
	// Live is production traffic, served on the live hosts with rk_live_ keys.
	Live Environment = "live"
	// Test is integration traffic, served on the development hosts with rk_test_ keys.
	Test Environment = "test"
)

// Valid reports whether e is one of the two environments.
func (e Environment) Valid() bool { return e == Live || e == Test }

// Studio is a game developer onboarded by an operator.
type Studio struct {
	ID        uuid.UUID
	Name      string
	CreatedAt time.Time
}

// Game is one app of a studio. Its API keys identify it on every call.
type Game struct {
	ID        uuid.UUID
	StudioID  uuid.UUID
	Name      string
	StoreURL  string
	CreatedAt time.Time
	// ServerOnlyCoinMovements, when set, reserves distribute and deduct for the game's servers:
	// besides the API key (which ships inside game clients) they need the game's server secret
	// of the environment. Off by default.
	ServerOnlyCoinMovements bool
	// PurchaseBudget caps the face value of the store purchases of a UTC day, per environment.
	PurchaseBudget Budgets
	// AllowedOrigins are the browser origins (CORS) allowed to call the API with the game's
	// key, per environment.
	AllowedOrigins Origins
}

// Origins are exact browser origins per environment, such as https://play.example.com.
type Origins struct {
	Live, Test []string
}

// Of returns the origins of env.
func (o Origins) Of(env Environment) []string {
	if env == Live {
		return o.Live
	}
	return o.Test
}

// MaxAllowedOrigins bounds a game's allowed origins per environment.
const MaxAllowedOrigins = 20

// Budgets are a game's purchase budgets per day (face value, deployment currency); nil is
// unlimited.
type Budgets struct {
	Live, Test *money.Amount
}

// Of returns the budget of env.
func (b Budgets) Of(env Environment) *money.Amount {
	if env == Live {
		return b.Live
	}
	return b.Test
}

// DefaultLiveBudget is a new game's live purchase budget per day: 100,000.00 (the test
// environment's is unlimited).
const DefaultLiveBudget money.Amount = 100_000_00

// MaxBudget bounds a purchase budget: 1,000,000,000.00.
const MaxBudget money.Amount = 1_000_000_000_00

// NewGame is a game together with the plaintext keys issued at its creation. The plaintext keys
// exist only in this value; storage keeps hashes.
type NewGame struct {
	Game
	LiveKey string
	TestKey string
}

// Caller is who an authenticated API key says is calling: a game in one environment.
type Caller struct {
	GameID      uuid.UUID
	StudioID    uuid.UUID
	GameName    string
	Environment Environment
	// ServerOnlyCoinMovements is the game's setting when the key was checked: coin movements
	// also need the server secret (Service.AuthorizeCoinMovement).
	ServerOnlyCoinMovements bool
	// AllowedOrigins are the game's allowed browser origins of the environment (CORS).
	AllowedOrigins []string
}

// KeyRecord is what storage knows of a key found by its hash.
type KeyRecord struct {
	GameID                  uuid.UUID
	StudioID                uuid.UUID
	GameName                string
	Environment             Environment
	Revoked                 bool
	ServerOnlyCoinMovements bool
	// AllowedOrigins are the game's allowed browser origins of the key's environment.
	AllowedOrigins []string
}

// SecretRecord is what storage knows of a server secret found by its hash.
type SecretRecord struct {
	GameID      uuid.UUID
	Environment Environment
}
