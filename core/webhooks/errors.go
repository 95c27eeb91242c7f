package webhooks

import (
	"fmt"

	"github.com/rewardsco/rewards/core/errs"
)

var (
	// ErrConfigNotFound means no configuration of the caller's studio and environment has the id.
	ErrConfigNotFound = errs.New(errs.NotFound, "WEBHOOK_CONFIG_NOT_FOUND", "webhook configuration not found")
	// ErrStudioMismatch means a studioId other than the API key's studio was named.
	ErrStudioMismatch = errs.New(errs.Forbidden, "STUDIO_MISMATCH", "studioId is not the studio of this API key")
	// ErrURLConflict means another configuration of the studio already uses the URL.
	ErrURLConflict = errs.New(errs.Conflict, "WEBHOOK_URL_CONFLICT", "another configuration of this studio already uses this webhookUrl")
	// ErrConfigLimit means the scope already has MaxConfigs configurations and the request would
	// create another.
	ErrConfigLimit = errs.New(errs.Invalid, "WEBHOOK_CONFIG_LIMIT", fmt.Sprintf("at most %d webhook configurations per studio and environment: delete one, or update one by its webhookUrl", MaxConfigs))
	// ErrDeliveryGone means the delivery no longer exists (its configuration was deleted).
	ErrDeliveryGone = errs.New(errs.NotFound, "DELIVERY_NOT_FOUND", "delivery no longer exists")
	// ErrDeliveryNotFound means no delivery of the caller's studio and environment has the id.
	ErrDeliveryNotFound = errs.New(errs.NotFound, "DELIVERY_NOT_FOUND", "delivery not found")
	// ErrConfigInactive means the configuration is switched off, so nothing can be sent to it.
	ErrConfigInactive = errs.New(errs.Conflict, "WEBHOOK_CONFIG_INACTIVE", "the webhook configuration is inactive: set isActive true first")
	// ErrTargetRefused means the transport would not send to the URL: not https, or not a public
	// address (unless the development switches allow it).
	ErrTargetRefused = errs.New(errs.Invalid, "WEBHOOK_TARGET_REFUSED", "target refused: the URL must be https and resolve to a public address")
)

func invalid(format string, args ...any) error { return errs.Invalidf(format, args...) }
