package webhooks

import (
	"slices"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/studio"
)

// Event is what decides where an event goes: whose it is and what it says.
type Event struct {
	// StudioID is the studio of the event's game.
	StudioID    uuid.UUID
	Environment studio.Environment
	Type        string
	// Reason is a coin event's reason; empty for an event without one, which no configuration
	// excludes.
	Reason string
}

// Receives reports whether configuration c takes event e: one delivery goes to each
// configuration that is switched on, of the event's studio and environment, subscribed to its
// type and not excluding its reason. A PartnerWalletLow event goes, of those, only to the
// configurations whose threshold the debit crossed.
//
// The storage applies this rule where an event is recorded, so that the deliveries commit with
// it: in PostgreSQL, the function webhook_routes (sql/migrations/00039_webhook_routes.sql),
// which the coin movement's statement and the order and wallet triggers call (the triggers
// fire only when it takes some event of their kind, 00040). webhookstest checks that both
// route alike.
func (c Config) Receives(e Event) bool {
	return c.IsActive && c.StudioID == e.StudioID && c.Environment == e.Environment &&
		slices.Contains(c.SubscribedEvents, e.Type) && (e.Reason == "" || !slices.Contains(c.ExcludedReasons, e.Reason))
}
