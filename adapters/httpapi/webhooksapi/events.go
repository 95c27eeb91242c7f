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

// OrderEvent documents the body of an order event's webhook request, as the storage writes it
// with the order's change of status (migration 00034, orders_webhook_events). A test keeps the
// two in step with a real event.
type OrderEvent struct {
	EventID       string   `json:"event_id" doc:"The event's id, the same on every attempt (also X-Service-Event-Id): use it to drop duplicates, since delivery is at least once" example:"3f6b1d2e-8c4a-4e7b-9a0d-5c2e1f4b6a88"`
	EventType     string   `json:"event_type" enum:"ORDER_SUCCEEDED,ORDER_FAILED,ORDER_REFUNDED" doc:"ORDER_SUCCEEDED (delivered), ORDER_FAILED (not delivered), ORDER_REFUNDED (what the order took was given back: a store order's coins and a WALLET order's amount with the order's ORDER_FAILED; a CASH order's payment once the payment provider returned it, or a CASH order never paid, status REFUNDED)" example:"ORDER_SUCCEEDED"`
	Timestamp     string   `json:"timestamp" format:"date-time" doc:"When the order's status (or its payment's) changed (ISO 8601, UTC)" example:"2026-01-15T10:30:00.000000Z"`
	AppID         string   `json:"app_id" doc:"The game's id" example:"6c0e2a4b-1f3d-4e5a-9b7c-8d9e0f1a2b3c"`
	Environment   string   `json:"environment" enum:"PRODUCTION,DEVELOPMENT" doc:"The environment of the order, as configurations name it" example:"PRODUCTION"`
	OrderID       string   `json:"order_id" doc:"The order's id (orderId in the store's and the partner API's order bodies; reference_id of its coin events)" example:"8d2f4b6a-1c3e-4a5b-9d7f-0e2c4a6b8d1f"`
	Channel       string   `json:"channel" enum:"STORE,PARTNER" doc:"STORE: a player bought a reward with coins; PARTNER: an order of the partner API" example:"STORE"`
	Status        string   `json:"status" enum:"SUCCESS,FAILED,REFUNDED" doc:"The order's status once the change was made" example:"SUCCESS"`
	PaymentStatus *string  `json:"payment_status" doc:"PARTNER orders: NOT_REQUIRED (WALLET), PENDING, PAID, EXPIRED or REFUNDED (CASH); null on STORE orders" example:"NOT_REQUIRED"`
	UserUUID      string   `json:"user_uuid" doc:"STORE: the player's uuid in the studio's system, or the player's id when it has none (as in coin events); PARTNER: the customer's ref" example:"user-8812"`
	RewardID      string   `json:"reward_id" doc:"The reward bought" example:"5e7a9c1b-3d5f-4b7a-8c9e-1a3b5c7d9e2f"`
	RewardType    string   `json:"reward_type" enum:"GIFT_CARD,COUPON,DIGITAL_CREDIT,PHYSICAL" doc:"Kind of reward" example:"COUPON"`
	Quantity      int      `json:"quantity" doc:"Units bought" example:"1"`
	Denomination  float64  `json:"denomination" doc:"Face value of one unit, in units of the currency" example:"500"`
	FaceValue     float64  `json:"face_value" doc:"denomination × quantity, in units of the currency" example:"500"`
	CoinID        *string  `json:"coin_id" doc:"STORE: the coin that paid; null on PARTNER orders" example:"2a4c6e8f-0b1d-4f3a-8c5e-7a9b1c3d5e7f"`
	CoinsSpent    *int64   `json:"coins_spent" doc:"STORE: the coins debited for the order (given back with ORDER_REFUNDED); null on PARTNER orders" example:"300"`
	ClientOrderID *string  `json:"client_order_id" doc:"PARTNER: the partner's clientOrderId; null on STORE orders" example:"ord-2026-000123"`
	Settlement    *string  `json:"settlement" doc:"PARTNER: WALLET or CASH; null on STORE orders" example:"WALLET"`
	Amount        *float64 `json:"amount" doc:"PARTNER: what the wallet was debited (WALLET) or the user pays (CASH), in units of currency; null on STORE orders" example:"487.5"`
	Currency      *string  `json:"currency" doc:"PARTNER: the currency of amount; null on STORE orders" example:"INR"`
	BrandCode     *string  `json:"brand_code" doc:"PARTNER: the gift card's brand; null on STORE orders" example:"AMAZON"`
	FailureReason *string  `json:"failure_reason" doc:"Why the order failed (ORDER_FAILED, and ORDER_REFUNDED of a failed order); null otherwise" example:"refused by the voucher provider"`
	CreatedAt     string   `json:"created_at" format:"date-time" doc:"When the order was placed (ISO 8601, UTC)" example:"2026-01-15T10:29:58.000000Z"`
}

// PartnerWalletLowEvent documents the body of PARTNER_WALLET_LOW, as the storage writes it with
// the debit that crossed the threshold (migration 00035, partner_wallet_low_events). A test
// keeps the two in step with a real event.
type PartnerWalletLowEvent struct {
	EventID         string  `json:"event_id" doc:"The event's id, the same on every attempt (also X-Service-Event-Id): use it to drop duplicates, since delivery is at least once" example:"7c1e3a5b-9d2f-4e6a-8b0c-2d4f6a8c0e1b"`
	EventType       string  `json:"event_type" enum:"PARTNER_WALLET_LOW" doc:"PARTNER_WALLET_LOW" example:"PARTNER_WALLET_LOW"`
	Timestamp       string  `json:"timestamp" format:"date-time" doc:"When the debit was made (ISO 8601, UTC)" example:"2026-01-15T10:30:00.000000Z"`
	AppID           string  `json:"app_id" doc:"The game whose partner wallet it is" example:"6c0e2a4b-1f3d-4e5a-9b7c-8d9e0f1a2b3c"`
	Environment     string  `json:"environment" enum:"PRODUCTION,DEVELOPMENT" doc:"The wallet's environment" example:"PRODUCTION"`
	Balance         float64 `json:"balance" doc:"The wallet's balance after the debit, in units of the currency" example:"4512.5"`
	PreviousBalance float64 `json:"previous_balance" doc:"The balance before the debit: at or above threshold" example:"5000"`
	Threshold       float64 `json:"threshold" doc:"The configuration's partnerWalletLowThreshold when the debit was made" example:"5000"`
}

// eventsDescription is what every event's receiver must know.
const eventsDescription = "**Delivery.** At least once: the same `event_id` may arrive more than once. Any 2xx within 30 seconds acknowledges; anything else (redirects included) fails the attempt. " +
	"5 attempts in all, after failed attempts 1 to 4 waiting 1 minute, 5 minutes, 15 minutes and 1 hour; then the delivery is FAILED (GET /studio-webhooks/deliveries lists them). " +
	"A resend or recover sends the event again with the same `event_id` and body as a new series of attempts. " +
	"A configuration with no successful delivery for 5 days and at least 20 FAILED in that time is switched off (`isActive: false`, with a `disabledReason`) until the studio switches it on.\n\n" +
	"**Signature.** `X-Service-Signature: t=<unix seconds>,v1=<hex>`: v1 is the hex HMAC-SHA256, keyed with the whole `signingSecret` string of the configuration (`whsec_…`), of `<t>.<raw body>`. " +
	"Compute it over the raw bytes received, compare in constant time, and reject a `t` older than 300 seconds; this is the scheme Stripe's webhook libraries verify. Answer 401 to a bad signature. " +
	"After a secret rotation (POST /studio-webhooks/config/{configId}/rotate-secret), until its grace ends, the header carries one v1 per secret, the new one first: `t=<unix seconds>,v1=<new>,v1=<old>`; accept the request when any v1 matches a secret you hold (Stripe's libraries do)."

// coinEventsDescription is when coin events are sent.
const coinEventsDescription = "Sent as `POST` to each webhook configuration (POST /studio-webhooks/configure) of the game's studio and the environment whose `subscribedEvents` has the event type and whose `excludedReasons` lacks its reason, " +
	"after the balance change is committed. `sequence` numbers the events of one player's coin: order by it, and a number missing is an event still to come.\n\n" + eventsDescription

// orderEventsDescription is when order events are sent.
const orderEventsDescription = "Sent as `POST` to each webhook configuration (POST /studio-webhooks/configure) of the game's studio and the environment whose `subscribedEvents` has the event type (`excludedReasons` does not apply), " +
	"for store orders and partner orders, after the change of the order's status is committed: the event is written in the same transaction, so a change is never without its event. " +
	"Fields of the other channel are null.\n\n" + eventsDescription

// walletLowDescription is when PARTNER_WALLET_LOW is sent.
const walletLowDescription = "Sent as `POST` to each webhook configuration (POST /studio-webhooks/configure) of the game's studio and the environment whose `subscribedEvents` has PARTNER_WALLET_LOW, " +
	"when a debit of a partner wallet (a partner order) takes its balance from at or above the configuration's `partnerWalletLowThreshold` to under it: once per crossing, not on every debit under the threshold; " +
	"the wallet must be credited (or refunded) back to the threshold or above before it is sent again. The event is written in the debit's transaction.\n\n" + eventsDescription

// documentEvents adds the events the service sends to studios to the document's webhooks.
func documentEvents(s *httpapi.Server) {
	doc := s.API.OpenAPI()
	// The bodies stay in the components, named for readers, and the operations hold them inline:
	// oapi-codegen prunes the components that no path refers to, not counting webhooks, and its
	// client would then name a type it never generated.
	schema := func(t reflect.Type, name string) *huma.Schema {
		ref := doc.Components.Schemas.Schema(t, true, name)
		return doc.Components.Schemas.SchemaFromRef(ref.Ref)
	}
	coinBody, orderBody := schema(reflect.TypeFor[CoinEvent](), "CoinEvent"), schema(reflect.TypeFor[OrderEvent](), "OrderEvent")
	walletBody := schema(reflect.TypeFor[PartnerWalletLowEvent](), "PartnerWalletLowEvent")
	header := func(name, description string, example any, enum ...any) *huma.Param {
		return &huma.Param{Name: name, In: "header", Required: true, Description: description, Example: example,
			Schema: &huma.Schema{Type: huma.TypeString, Enum: enum}}
	}
	if doc.Webhooks == nil {
		doc.Webhooks = map[string]*huma.PathItem{}
	}
	coin := func(typ, reason string, delta, balance int) map[string]any {
		return map[string]any{"event_id": "9b1d3c52-7e0a-4f6b-8c2d-1e5f4a3b2c10", "event_type": typ, "timestamp": "2026-01-15T10:30:00Z",
			"app_id": "6c0e2a4b-1f3d-4e5a-9b7c-8d9e0f1a2b3c", "user_uuid": "user-8812", "coin_id": "2a4c6e8f-0b1d-4f3a-8c5e-7a9b1c3d5e7f",
			"delta": delta, "new_balance": balance, "reference_id": "match-7781", "reason": reason, "sequence": 7}
	}
	order := func(typ, status string, failure any) map[string]any {
		return map[string]any{"event_id": "3f6b1d2e-8c4a-4e7b-9a0d-5c2e1f4b6a88", "event_type": typ, "timestamp": "2026-01-15T10:30:00.000000Z",
			"app_id": "6c0e2a4b-1f3d-4e5a-9b7c-8d9e0f1a2b3c", "environment": "PRODUCTION", "order_id": "8d2f4b6a-1c3e-4a5b-9d7f-0e2c4a6b8d1f",
			"channel": "STORE", "status": status, "payment_status": nil, "user_uuid": "user-8812", "reward_id": "5e7a9c1b-3d5f-4b7a-8c9e-1a3b5c7d9e2f",
			"reward_type": "GIFT_CARD", "quantity": 1, "denomination": 500, "face_value": 500, "coin_id": "2a4c6e8f-0b1d-4f3a-8c5e-7a9b1c3d5e7f",
			"coins_spent": 5000, "client_order_id": nil, "settlement": nil, "amount": nil, "currency": nil, "brand_code": nil,
			"failure_reason": failure, "created_at": "2026-01-15T10:29:58.000000Z"}
	}
	for _, e := range []struct {
		typ, id, summary, description string
		body                          *huma.Schema
		example                       map[string]any
	}{
		{"COINS_CREDITED", "coins-credited", "Coins were added to a player's balance", coinEventsDescription, coinBody, coin("COINS_CREDITED", "GAME_CREDIT", 50, 150)},
		{"COINS_DEBITED", "coins-debited", "Coins were taken from a player's balance", coinEventsDescription, coinBody, coin("COINS_DEBITED", "GAME_DEBIT", -50, 100)},
		{"COINS_REFUNDED", "coins-refunded", "A failed purchase's coins were given back", coinEventsDescription, coinBody, coin("COINS_REFUNDED", "REFUND_CREDIT", 50, 150)},
		{"ORDER_SUCCEEDED", "order-succeeded", "An order was delivered", orderEventsDescription, orderBody, order("ORDER_SUCCEEDED", "SUCCESS", nil)},
		{"ORDER_FAILED", "order-failed", "An order failed", orderEventsDescription, orderBody, order("ORDER_FAILED", "FAILED", "refused by the voucher provider")},
		{"ORDER_REFUNDED", "order-refunded", "What an order took was given back", orderEventsDescription, orderBody, order("ORDER_REFUNDED", "FAILED", "refused by the voucher provider")},
		{"PARTNER_WALLET_LOW", "partner-wallet-low", "A partner wallet fell under the configuration's threshold", walletLowDescription, walletBody,
			map[string]any{"event_id": "7c1e3a5b-9d2f-4e6a-8b0c-2d4f6a8c0e1b", "event_type": "PARTNER_WALLET_LOW", "timestamp": "2026-01-15T10:30:00.000000Z",
				"app_id": "6c0e2a4b-1f3d-4e5a-9b7c-8d9e0f1a2b3c", "environment": "PRODUCTION", "balance": 4512.5, "previous_balance": 5000, "threshold": 5000}},
	} {
		doc.Webhooks[e.typ] = &huma.PathItem{Post: &huma.Operation{
			OperationID: "webhook-" + e.id,
			Summary:     e.summary + " (" + e.typ + ")",
			Description: e.description,
			Tags:        []string{tagWebhooks},
			Parameters: []*huma.Param{
				header("User-Agent", "The service's webhook agent", webhooks.UserAgent),
				header("X-Service-Event-Id", "The event's id (event_id of the body)", e.example["event_id"]),
				header("X-Service-Event-Type", "The event type (event_type of the body)", e.typ, e.typ),
				header("X-Service-Timestamp", "When this attempt was signed, unix seconds (t of the signature)", "1768473000"),
				header("X-Service-Attempt", "The attempt number, from 1 to 5", "1"),
				header("X-Service-Signature", "t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\" keyed with the signingSecret>; during a rotation's grace a second v1, keyed with the replaced secret", "t=1768473000,v1=5f2b8c1e9a7d3f4b6c0e2a8d1f3b5c7e9a0b2d4f6e8c1a3b5d7f9e0c2a4b6d8f"),
			},
			RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
				"application/json": {Schema: e.body, Example: e.example},
			}},
			Responses: map[string]*huma.Response{
				"200": {Description: "Acknowledged: any 2xx status within 30 seconds counts; the body is ignored"},
				"401": {Description: "The receiver refused the signature; the attempt failed and is retried"},
			},
		}}
	}
}
