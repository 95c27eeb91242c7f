package webhooks

import (
	"errors"
	"fmt"
)

var (
	// ErrConfigNotFound means no configuration of the caller's studio and environment has the id.
	ErrConfigNotFound = errors.New("webhook configuration not found")
	// ErrStudioMismatch means a studioId other than the API key's studio was named.
	ErrStudioMismatch = errors.New("studioId is not the studio of this API key")
	// ErrInvalid wraps a rule broken by the caller's input.
	ErrInvalid = errors.New("invalid input")
	// ErrURLConflict means another configuration of the studio already uses the URL.
	ErrURLConflict = errors.New("another configuration of this studio already uses this webhookUrl")
)

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// ErrDeliveryGone means the delivery no longer exists (its configuration was deleted).
var ErrDeliveryGone = errors.New("delivery no longer exists")

// ErrTargetRefused means the transport would not send to the URL: not https, or not a public
// address (unless the development switches allow it).
var ErrTargetRefused = errors.New("target refused: the URL must be https and resolve to a public address")
