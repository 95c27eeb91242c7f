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
	UpdateConfig(ctx context.Context, c Config) (Config, error)
	DeleteConfig(ctx context.Context, s Scope, id uuid.UUID) error

	// PendingDelivery loads what an attempt needs, or ErrDeliveryGone.
	PendingDelivery(ctx context.Context, id uuid.UUID) (Pending, error)
	// RecordAttempt stores an attempt's outcome; a finished delivery is never changed again.
	RecordAttempt(ctx context.Context, id uuid.UUID, status string, attemptNo int, httpStatus *int, errMsg *string, at time.Time, next *time.Time) error
	ListDeliveries(ctx context.Context, s Scope, f DeliveryFilter) ([]Delivery, int64, error)
	Stats(ctx context.Context, s Scope) (Stats, error)
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
