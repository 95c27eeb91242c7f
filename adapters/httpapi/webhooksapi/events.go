package webhooksapi

import (
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/webhooks"
)

// CoinEvent documents the body of a webhook request, webhooks.Payload: the coin event the
// service sends to a studio's configured URL. A test keeps the two in step.
type CoinEvent struct {
	EventID     string `json:"event_id" doc:"The event's id, the same on every attempt (also X-Service-Event-Id): use it to drop duplicates, since delivery is at least once" example:"9b1d3c52-7e0a-4f6b-8c2d-1e5f4a3b2c10"`
	EventType   string `json:"event_type" enum:"COINS_CREDITED,COINS_DEBITED,COINS_REFUNDED" doc:"COINS_CREDITED (coins added), COINS_DEBITED (coins deducted, or spent on a purchase), COINS_REFUNDED (a failed purchase's coins given back)" example:"COINS_CREDITED"`
	Timestamp   string `json:"timestamp" format:"date-time" doc:"When the balance changed (ISO 8601)" example:"2026-01-15T10:30:00Z"`
	AppID       string `json:"app_id" doc:"The game's id" example:"6c0e2a4b-1f3d-4e5a-9b7c-8d9e0f1a2b3c"`
	UserUUID    string `json:"user_uuid" doc:"The player's uuid in the studio's system, or the player's id when it has none" example:"user-8812"`
	CoinID      string `json:"coin_id" doc:"The coin's id" example:"2a4c6e8f-0b1d-4f3a-8c5e-7a9b1c3d5e7f"`
	Delta       int64  `json:"delta" doc:"Coins moved: positive for a credit or refund, negative for a debit" example:"50"`
	NewBalance  int64  `json:"new_balance" doc:"The player's balance of the coin after the change" example:"150"`
	ReferenceID string `json:"reference_id" doc:"The movement's reference: the studio's referenceId, or the order id of a purchase or refund; empty when none" example:"match-7781"`
	Reason      string `json:"reason" doc:"The movement's source: GAME_CREDIT, GAME_DEBIT (the studio's distribute and deduct, or the reason it sent), PURCHASE_DEBIT, REFUND_CREDIT; receivers must tolerate other values" example:"GAME_CREDIT"`
	Sequence    int64  `json:"sequence" minimum:"1" doc:"The event's number among the events of this player and coin: 1 for the first movement, one more with each movement after, in the order the movements were made. Events may arrive out of order or more than once: order a player's events by it, and a number missing means an event still to come (a delivery being retried, or FAILED: recover it). The events of movements made before sequence existed are numbered in the order they happened" example:"7"`
}

// eventsDescription is what every coin event's receiver must know.
const eventsDescription = "Sent as `POST` to each webhook configuration (POST /studio-webhooks/configure) of the game's studio and the environment whose `subscribedEvents` has the event type and whose `excludedReasons` lacks its reason, " +
	"after the balance change is committed.\n\n" +
	"**Signature.** `X-Service-Signature: t=<unix seconds>,v1=<hex>`: v1 is the hex HMAC-SHA256, keyed with the whole `signingSecret` string of the configuration (`whsec_…`), of `<t>.<raw body>`. " +
	"Compute it over the raw bytes received, compare in constant time, and reject a `t` older than 300 seconds; this is the scheme Stripe's webhook libraries verify. Answer 401 to a bad signature. " +
	"After a secret rotation (POST /studio-webhooks/config/{configId}/rotate-secret), until its grace ends, the header carries one v1 per secret, the new one first: `t=<unix seconds>,v1=<new>,v1=<old>`; accept the request when any v1 matches a secret you hold (Stripe's libraries do).\n\n" +
	"**Delivery.** At least once: the same `event_id` may arrive more than once. Any 2xx within 30 seconds acknowledges; anything else (redirects included) fails the attempt. " +
	"5 attempts in all, after failed attempts 1 to 4 waiting 1 minute, 5 minutes, 15 minutes and 1 hour; then the delivery is FAILED (GET /studio-webhooks/deliveries lists them). " +
	"A resend or recover sends the event again with the same `event_id` and body as a new series of attempts. " +
	"A configuration with no successful delivery for 5 days and at least 20 FAILED in that time is switched off (`isActive: false`, with a `disabledReason`) until the studio switches it on."

// documentEvents adds the coin events the service sends to studios to the document's webhooks.
func documentEvents(s *httpapi.Server) {
	doc := s.API.OpenAPI()
	// CoinEvent stays in the components, named for readers, and the bodies hold it inline:
	// oapi-codegen prunes the components that no path refers to, not counting webhooks, and its
	// client would then name a type it never generated.
	ref := doc.Components.Schemas.Schema(reflect.TypeFor[CoinEvent](), true, "CoinEvent")
	body := doc.Components.Schemas.SchemaFromRef(ref.Ref)
	header := func(name, description string, example any, enum ...any) *huma.Param {
		return &huma.Param{Name: name, In: "header", Required: true, Description: description, Example: example,
			Schema: &huma.Schema{Type: huma.TypeString, Enum: enum}}
	}
	if doc.Webhooks == nil {
		doc.Webhooks = map[string]*huma.PathItem{}
	}
	for _, e := range []struct{ typ, summary, reason string }{
		{"COINS_CREDITED", "Coins were added to a player's balance", "GAME_CREDIT"},
		{"COINS_DEBITED", "Coins were taken from a player's balance", "GAME_DEBIT"},
		{"COINS_REFUNDED", "A failed purchase's coins were given back", "REFUND_CREDIT"},
	} {
		example := map[string]any{"event_id": "9b1d3c52-7e0a-4f6b-8c2d-1e5f4a3b2c10", "event_type": e.typ, "timestamp": "2026-01-15T10:30:00Z",
			"app_id": "6c0e2a4b-1f3d-4e5a-9b7c-8d9e0f1a2b3c", "user_uuid": "user-8812", "coin_id": "2a4c6e8f-0b1d-4f3a-8c5e-7a9b1c3d5e7f",
			"delta": 50, "new_balance": 150, "reference_id": "match-7781", "reason": e.reason, "sequence": 7}
		if e.typ == "COINS_DEBITED" {
			example["delta"], example["new_balance"] = -50, 100
		}
		doc.Webhooks[e.typ] = &huma.PathItem{Post: &huma.Operation{
			OperationID: "webhook-" + map[string]string{"COINS_CREDITED": "coins-credited", "COINS_DEBITED": "coins-debited", "COINS_REFUNDED": "coins-refunded"}[e.typ],
			Summary:     e.summary + " (" + e.typ + ")",
			Description: eventsDescription,
			Tags:        []string{tagWebhooks},
			Parameters: []*huma.Param{
				header("User-Agent", "The service's webhook agent", webhooks.UserAgent),
				header("X-Service-Event-Id", "The event's id (event_id of the body)", "9b1d3c52-7e0a-4f6b-8c2d-1e5f4a3b2c10"),
				header("X-Service-Event-Type", "The event type (event_type of the body)", e.typ, e.typ),
				header("X-Service-Timestamp", "When this attempt was signed, unix seconds (t of the signature)", "1768473000"),
				header("X-Service-Attempt", "The attempt number, from 1 to 5", "1"),
				header("X-Service-Signature", "t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\" keyed with the signingSecret>; during a rotation's grace a second v1, keyed with the replaced secret", "t=1768473000,v1=5f2b8c1e9a7d3f4b6c0e2a8d1f3b5c7e9a0b2d4f6e8c1a3b5d7f9e0c2a4b6d8f"),
			},
			RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
				"application/json": {Schema: body, Example: example},
			}},
			Responses: map[string]*huma.Response{
				"200": {Description: "Acknowledged: any 2xx status within 30 seconds counts; the body is ignored"},
				"401": {Description: "The receiver refused the signature; the attempt failed and is retried"},
			},
		}}
	}
}
