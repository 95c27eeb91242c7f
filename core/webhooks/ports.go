package webhooks

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/studio"
)

// Scope is a studio's environment: where configurations and deliveries live.
type Scope struct {
	StudioID    uuid.UUID
	Environment studio.Environment
}

// Repo is the storage the webhooks module needs.
type Repo interface {
	// LockScope serialises the creation of configurations in scope s until the transaction
	// ends, so that MaxConfigs holds under concurrency. It must run inside a transaction.
	LockScope(ctx context.Context, s Scope) error
	// InsertConfig creates c, or returns created=false when the URL is taken in the scope.
	InsertConfig(ctx context.Context, c Config) (out Config, created bool, err error)
	GetConfigByURL(ctx context.Context, s Scope, url string) (Config, error)
	GetConfig(ctx context.Context, s Scope, id uuid.UUID) (Config, error)
	ListConfigs(ctx context.Context, s Scope) ([]Config, error)
	// UpdateConfig stores c's URL, events, excluded reasons and active switch. Switched on, the
	// configuration loses its DisabledReason, and when it was off its ActiveSince becomes at.
	UpdateConfig(ctx context.Context, c Config, at time.Time) (Config, error)
	DeleteConfig(ctx context.Context, s Scope, id uuid.UUID) error
	// RotateSecret makes sealed (whose plaintext ends in last4) the configuration's secret and
	// the current one its previous secret until previousExpiresAt.
	RotateSecret(ctx context.Context, s Scope, id uuid.UUID, sealed []byte, last4 string, previousExpiresAt time.Time) (Config, error)
	// DisableFailing switches off with reason every active configuration (or only configID's,
	// when not nil) active since before windowStart, with no SUCCESS attempt since then and at
	// least minFailed deliveries FAILED since then. It returns them, switched off.
	DisableFailing(ctx context.Context, configID *uuid.UUID, windowStart time.Time, minFailed int, reason string) ([]Config, error)

	// PendingDelivery loads what an attempt needs, or ErrDeliveryGone.
	PendingDelivery(ctx context.Context, id uuid.UUID) (Pending, error)
	// RecordAttempt stores an attempt's outcome; a finished delivery is never changed again.
	RecordAttempt(ctx context.Context, id uuid.UUID, status string, attemptNo int, httpStatus *int, errMsg *string, at time.Time, next *time.Time) error
	ListDeliveries(ctx context.Context, s Scope, f DeliveryFilter) ([]Delivery, int64, error)
	// FindDelivery returns delivery id of scope s, or ErrDeliveryNotFound.
	FindDelivery(ctx context.Context, s Scope, id uuid.UUID) (Found, error)
	// Resend adds a new PENDING delivery of delivery id's event to its configuration, with its
	// attempts queued, and returns its id. It must run inside a transaction.
	Resend(ctx context.Context, id uuid.UUID) (uuid.UUID, error)
	// Recover adds a new PENDING delivery, with its attempts queued, for each event (at most
	// limit, oldest first) with a FAILED delivery to configuration configID that happened at or
	// after since and that no recover took yet, marks those deliveries taken at at, and returns
	// how many it added. Of recovers running at once each takes a delivery once. It must run
	// inside a transaction.
	Recover(ctx context.Context, configID uuid.UUID, since, at time.Time, limit int) (int, error)
	Stats(ctx context.Context, s Scope) (Stats, error)
}

// Notifier tells a studio's owners of something they must act on (the members module emails
// every active owner).
type Notifier interface {
	NotifyOwners(ctx context.Context, studioID uuid.UUID, subject, text string) error
}

// Request is one webhook POST.
type Request struct {
	URL     string
	Headers map[string]string
	Body    []byte
}

// Transport sends webhook requests. It returns the receiver's status code, or an error when no
// answer came (refused target, timeout, connection failure). It never follows redirects.
type Transport interface {
	Send(ctx context.Context, r Request) (status int, err error)
	// CheckURL refuses a URL the transport would never send to (scheme, host), before any dial.
	CheckURL(url string) error
}
