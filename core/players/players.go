// Package players owns a game's players: creation by studio uuid, OTP and federated login,
// player tokens, profiles with delivery addresses and pictures, and the store settings players
// see.
package players

import (
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/studio"
)

// Player is one player of a game in one environment.
type Player struct {
	ID          uuid.UUID
	GameID      uuid.UUID
	Environment studio.Environment
	// UUID is the studio's own identifier of the player, if it gave one.
	UUID *string
	// Phone is the E.164 number the player logs in with, if it logged in by OTP.
	Phone           *string
	Name            string
	Email           string
	ContactPhone    string
	Addresses       []Address
	PictureKey      string
	IsBlocked       bool
	CookieConsentAt *time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// StudioRef is how the player is named to the studio: its uuid, or its id where it has none.
func (p Player) StudioRef() string {
	if p.UUID != nil {
		return *p.UUID
	}
	return p.ID.String()
}

// Address is an Indian delivery address.
type Address struct {
	Name     string `json:"name,omitempty"`
	Line1    string `json:"line1"`
	Line2    string `json:"line2,omitempty"`
	Landmark string `json:"landmark,omitempty"`
	City     string `json:"city"`
	State    string `json:"state"`
	PinCode  string `json:"pinCode"`
	Phone    string `json:"phone,omitempty"`
	Default  bool   `json:"isDefault,omitempty"`
}

// Created is a player returned by a create call, and whether the call created it.
type Created struct {
	Player
	Created bool
}

// ProfileUpdate is a change to a player's profile; nil fields are left as they are.
type ProfileUpdate struct {
	Name         *string
	Email        *string
	ContactPhone *string
	Addresses    *[]Address
}

// StoreSettings are the store switches of a game.
type StoreSettings struct {
	RewardsEnabled     bool
	GcommerceEnabled   bool
	DefaultLandingPage string
	// Theme is the store's theme and configuration, a JSON object the operator sets.
	Theme []byte
}

// DefaultStoreSettings apply to a game whose operator has set none.
var DefaultStoreSettings = StoreSettings{RewardsEnabled: true, DefaultLandingPage: "rewards", Theme: []byte("{}")}

// Token is an issued player token.
type Token struct {
	AccessToken string
	ExpiresIn   time.Duration
}

// OTPSent describes a sent code.
type OTPSent struct {
	ExpiresIn   time.Duration
	ResendAfter time.Duration
}

// Claims are what a verified player token says.
type Claims struct {
	PlayerID    uuid.UUID
	GameID      uuid.UUID
	Environment studio.Environment
}

// OTP rules.
const (
	OTPDigits         = 6
	OTPLifetime       = 5 * time.Minute
	OTPMaxAttempts    = 5
	OTPResendGap      = 30 * time.Second
	OTPMaxSendsHour   = 5
	OTPMaxFailureHour = 10
	// OTPMaxFailureRun failed checks of a phone in a row (no successful login between them) lock
	// it for OTPLockout: no code is sent to it and none is checked.
	OTPMaxFailureRun = 100
	OTPLockout       = 24 * time.Hour
	// DefaultOTPSendsPerHour caps the codes sent in one game and environment in any hour
	// (REWARDS_OTP_SENDS_PER_HOUR), against SMS pumping across many numbers.
	DefaultOTPSendsPerHour = 1000
	MaxBulkUUIDs           = 1000
	MaxPictureBytes        = 5 << 20
)
