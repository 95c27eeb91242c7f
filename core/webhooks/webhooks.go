// Package webhooks delivers events to studios: configurations per studio and environment, one
// delivery per (event, configuration that takes it: Config.Receives) queued with the change it
// tells of (a balance change, an order's status, a partner wallet's debit under the configuration's
// threshold), signed requests, retries with delays and dead-lettering after the last attempt. Coin
// events carry a sequence per player and coin; the other events are stored with their body, written
// by the storage in the transaction of their change.
//
// Studios operate their deliveries: a delivery is sent again (Resend), or every FAILED one of a
// configuration since a time (Recover, each once); a signing secret is replaced while the old
// one keeps signing for a grace period (RotateSecret); and a configuration whose receiver stays
// gone is switched off (DisableFailing, the auto-disable rule), with an audit entry in the same
// transaction and, once committed, a word to the studio's owners (Notifier).
//
// Every change of a configuration, and each resend, recover and test, writes its audit entry
// (audit.Log) in the change's transaction.
package webhooks

import (
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/studio"
)

// Event types a configuration can subscribe to: the coin events, the order events of store and
// partner orders (written with the order's change of status, in the storage), and
// PartnerWalletLow (written with the debit that took a partner wallet under the
// configuration's PartnerWalletLowThreshold).
var (
	CoinEventTypes  = []string{"COINS_CREDITED", "COINS_DEBITED", "COINS_REFUNDED"}
	OrderEventTypes = []string{"ORDER_SUCCEEDED", "ORDER_FAILED", "ORDER_REFUNDED"}
	EventTypes      = slices.Concat(CoinEventTypes, OrderEventTypes, []string{PartnerWalletLow})
)

// PartnerWalletLow is the event of a partner wallet falling under a configuration's threshold:
// sent once per crossing (a debit from at or above it to under it), not on every debit under it.
const PartnerWalletLow = "PARTNER_WALLET_LOW"

// MaxWalletLowThreshold bounds PartnerWalletLowThreshold: a wallet never holds more than
// partner.MaxBalance.
const MaxWalletLowThreshold money.Amount = 1_000_000_000_000_00

// Delivery statuses.
const (
	StatusPending  = "PENDING"
	StatusRetrying = "RETRYING"
	StatusSuccess  = "SUCCESS"
	StatusFailed   = "FAILED"
)

// MaxAttempts is how many times a delivery is tried before it is dead-lettered (FAILED).
const MaxAttempts = 5

// DefaultRetryDelays are the waits after failed attempts 1 to 4.
var DefaultRetryDelays = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour}

// MaxConfigs is how many configurations one studio may have in one environment.
const MaxConfigs = 10

// MaxSkip is the largest offset the delivery list accepts: deeper pages would make the database
// walk past that many rows on every request.
const MaxSkip = 10_000

// MaxInFlight is how many attempts to one configuration run at once in one service instance, so
// that a receiver that stalls holds at most this many delivery workers.
const MaxInFlight = 4

// AttemptTimeout is how long a receiver has to answer.
const AttemptTimeout = 30 * time.Second

// UserAgent identifies the webhook agent, version 1.0.
const UserAgent = "Rewards-Webhooks/1.0"

// Secret rotation: how long the replaced secret keeps signing deliveries beside the new one.
const (
	DefaultGrace = 24 * time.Hour
	MaxGrace     = 72 * time.Hour
)

// MaxRecover is how many events one recover sends again at most, oldest first: a recover that
// sends this many may leave newer ones for the next call.
const MaxRecover = 10_000

// The auto-disable rule: an active configuration with no successful delivery for DisableAfter
// (and active for at least that long) and at least DisableMinFailed deliveries FAILED in that
// time is switched off with DisabledReasonFailing.
const (
	DisableAfter     = 5 * 24 * time.Hour
	DisableMinFailed = 20
)

// DisabledReasonFailing is the disabledReason of a configuration the rule switched off.
const DisabledReasonFailing = "no delivery succeeded for 5 days and at least 20 failed: set isActive true to resume deliveries"

// Config is a studio's receiver in one environment.
type Config struct {
	ID               uuid.UUID
	StudioID         uuid.UUID
	Environment      studio.Environment
	URL              string
	SubscribedEvents []string
	ExcludedReasons  []string
	IsActive         bool
	// PartnerWalletLowThreshold is the balance under which a partner wallet of the studio's
	// games sends PartnerWalletLow; required to subscribe to it, nil otherwise.
	PartnerWalletLowThreshold *money.Amount
	// Secret is the signing secret in plaintext: set only when a configuration is created.
	Secret string
	// SecretLast4 shows which secret is in use without revealing it.
	SecretLast4 string
	// Sealed is the encrypted secret as stored.
	Sealed []byte
	// PreviousSealed is the secret the last rotation replaced, which signs deliveries beside the
	// current one until PreviousExpiresAt; nil when the secret was never rotated.
	PreviousSealed    []byte
	PreviousExpiresAt *time.Time
	// DisabledReason says why the service switched the configuration off; empty otherwise.
	DisabledReason string
	// ActiveSince is when the configuration was last switched on (or created).
	ActiveSince time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// MaskedSecret is the secret as reads show it.
func (c Config) MaskedSecret() string { return "whsec_****" + c.SecretLast4 }

// Change is a request to create or update a configuration; nil fields stay as they are on update.
type Change struct {
	URL              *string
	SubscribedEvents *[]string
	ExcludedReasons  *[]string
	IsActive         *bool
	// PartnerWalletLowThreshold, when set, replaces the threshold.
	PartnerWalletLowThreshold *money.Amount
}

// Delivery is the record of delivering one event to one configuration.
type Delivery struct {
	ID             uuid.UUID
	EventID        uuid.UUID
	ConfigID       uuid.UUID
	EventType      string
	TransactionID  uuid.UUID
	EventCreatedAt time.Time
	Status         string
	AttemptNumber  int
	HTTPStatusCode *int
	ErrorMessage   *string
	AttemptedAt    *time.Time
	NextRetryAt    *time.Time
	CreatedAt      time.Time
}

// Pending is what one attempt of a delivery needs.
type Pending struct {
	DeliveryID    uuid.UUID
	ConfigID      uuid.UUID
	Status        string
	AttemptNumber int
	URL           string
	ConfigActive  bool
	Sealed        []byte
	// PreviousSealed and PreviousExpiresAt are the configuration's replaced secret (Config).
	PreviousSealed    []byte
	PreviousExpiresAt *time.Time
	// Payload is a coin event's body. For another event (an order's, the partner wallet's) only
	// its EventID, EventType and Timestamp are set, and Body is the body as stored when the
	// event happened.
	Payload Payload
	Body    []byte
}

// Found is a delivery a studio named, as far as sending it again needs.
type Found struct {
	ID           uuid.UUID
	EventID      uuid.UUID
	ConfigID     uuid.UUID
	ConfigActive bool
}

// Payload is the body of a coin event's webhook request: the fields the spec lists, and
// sequence.
type Payload struct {
	EventID     string `json:"event_id"`
	EventType   string `json:"event_type"`
	Timestamp   string `json:"timestamp"`
	AppID       string `json:"app_id"`
	UserUUID    string `json:"user_uuid"`
	CoinID      string `json:"coin_id"`
	Delta       int64  `json:"delta"`
	NewBalance  int64  `json:"new_balance"`
	ReferenceID string `json:"reference_id"`
	Reason      string `json:"reason"`
	// Sequence numbers the events of one player's coin: 1 for the first movement, one more
	// with each after.
	Sequence int64 `json:"sequence"`
}

// Attempt is what happened when one request was sent.
type Attempt struct {
	Status     int // 0 when no answer came
	Err        error
	AttemptNo  int
	Duration   time.Duration
	Delivered  bool
	RetryAfter time.Duration // set when another attempt is due
	// Busy means no attempt was made: the configuration already had MaxInFlight attempts in
	// flight. Nothing was recorded; Deliver is due again after RetryAfter.
	Busy bool
}

// DeliveryFilter narrows the delivery list.
type DeliveryFilter struct {
	Status    string
	EventType string
	Limit     int
	Skip      int
}

// Stats summarise a studio's deliveries in one environment.
type Stats struct {
	Total     int64
	Delivered int64
	Failed    int64
}

// SuccessRate is Delivered/Total as a percentage with two decimals, "0.00" with no deliveries.
func (s Stats) SuccessRate() string {
	if s.Total == 0 {
		return "0.00"
	}
	// Integer arithmetic on hundredths of a percent avoids float rounding surprises.
	bp := (s.Delivered*10000 + s.Total/2) / s.Total
	return formatHundredths(bp)
}

func formatHundredths(v int64) string { return fmt.Sprintf("%d.%02d", v/100, v%100) }
