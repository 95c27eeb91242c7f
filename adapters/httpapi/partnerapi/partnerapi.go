// Package partnerapi serves the gift-card partner API (/partner/v1: token exchange,
// configuration, wallet, brands, stock, preview, orders), the operator's partner settings,
// client secrets and wallet credits, and the payment providers' webhooks.
package partnerapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/studio"
)

const (
	tagPartner  = "Gift-card partner API"
	tagPayments = "Payment provider webhooks"
	scheme      = "partnerBearer"
)

type callerKey struct{}
type envKey struct{}

func callerFrom(ctx context.Context) partner.Caller {
	c, _ := ctx.Value(callerKey{}).(partner.Caller)
	return c
}

// Register adds the partner operations to s.
func Register(s *httpapi.Server, svc *partner.Service) {
	h := handlers{svc: svc}
	s.AddTag(tagPartner, "Partners resell the gift-card catalogue to their own users: exchange the game's API key (client_id) and client secret for a 24-hour bearer token, "+
		"read the catalogue, preview a price, and place orders paid from a prepaid wallet (WALLET) or by the user through a payment session (CASH). "+
		"Every answer is inside the envelope `{data, statusCode, message, requestId, timestamp}`; errors are `{statusCode, message, error, code?, requestId}`. "+
		"Money is a JSON number of units of the deployment currency with at most two decimals.")
	s.AddTag(tagPayments, "Signed events from the payment providers that collect CASH orders. Not for partners.")

	auth := partnerAuth(s, svc)
	// The order of these calls is the order of the operations in the OpenAPI document.
	registerToken(s, h)
	registerCatalogue(s, h, auth)
	registerPlaceOrder(s, h, auth)
	registerOrderReads(s, h, auth)
	registerOperator(s, h)
	registerWebhooks(s, h)
	registerReturnPage(s)
}

// authRule ends the description of every operation partnerAuth guards.
const authRule = "\n\nNeeds `Authorization: Bearer <access_token>` from POST /partner/v1/token: 401 PARTNER_TOKEN_MISSING without it; 401 PARTNER_TOKEN_INVALID for an unknown, expired or revoked token (a new client secret revokes every token issued before it) or one of the other environment; 403 PARTNER_DISABLED when the operator has disabled the game."

// partnerAuth wraps an operation in the partner bearer-token authentication, its 403 and the partner tag.
func partnerAuth(s *httpapi.Server, svc *partner.Service) func(huma.Operation) huma.Operation {
	return func(op huma.Operation) huma.Operation {
		op = s.Authenticated(op, scheme, "A partner access token from POST /partner/v1/token (24 hours)", callerKey{},
			func(ctx context.Context, env studio.Environment, header func(string) string) (any, error) {
				return svc.Authenticate(ctx, httpapi.BearerToken(header("Authorization")), env)
			})
		op.Errors = append(op.Errors, http.StatusForbidden)
		op.Tags = []string{tagPartner}
		return op
	}
}

// registerToken adds the exchange of client credentials for a token.
func registerToken(s *httpapi.Server, h handlers) {
	tokenOp := s.Authenticated(huma.Operation{
		OperationID: "partner-token", Method: http.MethodPost, Path: "/partner/v1/token", Summary: "Exchange client credentials for a token",
		Description: "Takes `{client_id, client_secret?}` as JSON or as a form (`application/x-www-form-urlencoded`). `client_id` is the game's API key of this host's environment. " +
			"When a client secret is set for the game and environment it is required. On live it always is: enabling partner mode issues the live secret, and the API key, which ships inside game clients, never authenticates a partner alone there; " +
			"the test environment may stay secret-less, and then the key alone authenticates. " +
			"Answers `{access_token, token_type: \"Bearer\", expires_in: 86400}`: cache it and exchange again when it expires. " +
			"The token is bound to the game and environment (on the other environment's host it is 401), and is valid only while the API key and the client secret it was exchanged with are current: " +
			"rotating either revokes it (at once on the instance that rotated, within 1 s on every other), an exchange racing the rotation included. A game's environment holds at most 20 valid tokens: the 21st exchange revokes the oldest.\n\n" +
			"**Errors.** 401 INVALID_CLIENT (unknown or revoked key, a key of the other environment, a game not enabled for the partner API, a missing or wrong client secret); 400 VALIDATION_FAILED.",
		Tags: []string{tagPartner}, Errors: []int{http.StatusBadRequest},
		RequestBody: tokenRequestBody(s),
	}, "", "", envKey{}, func(_ context.Context, env studio.Environment, _ func(string) string) (any, error) { return env, nil })
	huma.Register(s.API, tokenOp, h.token)
	// RawBody makes Huma declare an application/octet-stream body too, which no format
	// decodes (415): the exchange takes JSON or a form only.
	delete(tokenOp.RequestBody.Content, "application/octet-stream")
}

// registerCatalogue adds the configuration, wallet, brands, stock and price preview.
func registerCatalogue(s *httpapi.Server, h handlers, auth func(huma.Operation) huma.Operation) {
	ops := httpapi.Operations{API: s.API, Auth: auth}
	httpapi.Register(ops, httpapi.Op("partner-config", http.MethodGet, "/partner/v1/gift-cards/config", "The partner's configuration",
		"`{settlement: WALLET|CASH, currency: INR|USD}`: how orders are paid, and the deployment's currency."+authRule), h.config)

	httpapi.Register(ops, httpapi.Op("partner-wallet", http.MethodGet, "/partner/v1/gift-cards/wallet", "The wallet balance",
		"`{balance, currency}`: the prepaid wallet of this game and environment (meaningful for WALLET partners; the operator funds it)."+authRule), h.wallet)

	httpapi.Register(ops, httpapi.Op("partner-brands", http.MethodGet, "/partner/v1/gift-cards/brands", "The gift-card brands",
		"`{items, page, limit, total}` of `{brandCode, brandName, logoUrl, categories, valueType: FIXED|DYNAMIC, denominations?, minValue?, maxValue?, currency, discountPct}`, by name. "+
			"`search` keeps brands whose name or code contains it (any case); `limit` default 20, at most 100; `page` from 1. `discountPct` is this partner's discount."+authRule,
		http.StatusBadRequest), h.brands)

	httpapi.Register(ops, httpapi.Op("partner-brand", http.MethodGet, "/partner/v1/gift-cards/brands/{brandCode}", "One brand",
		"The brand as listed, with `description`, `terms` and `howToRedeem`. 404 BRAND_NOT_FOUND for an unknown or inactive brand."+authRule,
		http.StatusNotFound), h.brand)

	httpapi.Register(ops, httpapi.Op("partner-stock", http.MethodGet, "/partner/v1/gift-cards/brands/{brandCode}/stock", "Stock of a denomination",
		"`{brandCode, denomination, available, quantity}`: whether the denomination can be ordered now and how many cards are left (`quantity` null: unlimited), as the voucher provider says. "+
			"404 BRAND_NOT_FOUND; 400 DENOMINATION_NOT_AVAILABLE for a value the brand does not sell; 502 when the provider cannot tell."+authRule,
		http.StatusBadRequest, http.StatusNotFound, http.StatusBadGateway), h.stock)

	httpapi.Register(ops, httpapi.WithStatus(http.StatusOK, httpapi.Op("partner-preview", http.MethodPost, "/partner/v1/gift-cards/orders/preview", "Price an order",
		"Call it before charging your user: `amount` is the authoritative price. `faceValue` = denomination × quantity; `amount` = faceValue × (1 − discountPct/100), rounded half up to the cent; "+
			"WALLET: what the wallet will be debited; CASH: what the user pays. `quoteId` (send it with the order) holds that amount for 10 minutes (`expiresAt`). `quantity` 1 to 10.\n\n"+
			"**Errors.** 400 BRAND_NOT_FOUND (unknown or inactive brand); 400 DENOMINATION_NOT_AVAILABLE; 400 VALIDATION_FAILED."+authRule,
		http.StatusBadRequest)), h.preview)
}

// registerPlaceOrder adds the placement of an order.
func registerPlaceOrder(s *httpapi.Server, h handlers, auth func(huma.Operation) huma.Operation) {
	op := httpapi.Op("partner-place-order", http.MethodPost, "/partner/v1/gift-cards/orders", "Place an order",
		"Buys `quantity` cards of `denomination` of `brandCode` for `customer` (`ref` required; `email` and `phone` (E.164) optional). "+
			"**Idempotency:** `clientOrderId` (`^[A-Za-z0-9_-]{1,64}$`) makes one order, forever: the first placement answers 201; a retry with the same brand, denomination and quantity answers 200 with the order as it is now and `x-idempotent-replay: true`, "+
			"and never charges twice; the same clientOrderId with another brand, denomination or quantity is 422 IDEMPOTENCY_KEY_REUSED; "+
			"a placement racing another with the same clientOrderId answers as the retry does, or 409 CLIENT_ORDER_ID_TAKEN in the moment the other is not yet readable (retry it).\n\n"+
			"**WALLET:** the wallet is debited by the preview's amount in the order's transaction (too low a balance is 400 INSUFFICIENT_WALLET_BALANCE and creates nothing); the voucher provider is then asked, "+
			"and its final answer within 5 s is in this response: SUCCESS with `codes`, or FAILED with the wallet refunded. Otherwise the status is TIMEOUT and the order resolves by itself to SUCCESS or FAILED: poll GET /partner/v1/gift-cards/orders/{orderId}. "+
			"Past the order's deadline (`REWARDS_VOUCHER_DEADLINE` after the placement, default 24 h) nothing the provider holds is refunded on the deadline alone: a card it issues late is delivered, "+
			"and the order is refunded only when the provider refuses it, or when it never received it by the deadline; the provider is asked less and less often (at most every 30 min), and an order with no final answer a day past its deadline stays TIMEOUT and waits for an operator.\n\n"+
			"**CASH:** the order is PENDING_PAYMENT with `paymentStatus` PENDING and `paymentSessionId` (INR: Cashfree's payment_session_id for its SDK; USD: Stripe's approval URL to redirect the user to), open for `REWARDS_PAYMENT_SESSION_TTL` (default 30 min); `returnUrl` is where the user lands after paying. "+
			"Paid: fulfilled as above (SUCCESS, `paymentStatus` PAID); a read of the order also finalises a paid order whose confirmation has not arrived. Not paid before expiry (or cancelled): REFUNDED with `paymentStatus` EXPIRED. "+
			"Fulfilment failed after payment: FAILED, the payment refunded (`paymentStatus` REFUNDED). A payment whose amount or currency is not the order's is never fulfilled: FAILED with `failureReason` PAYMENT_MISMATCH, refunded; a session with nothing to pay never counts as paid. A payment arriving after expiry is refunded. A session that cannot be created is 400 PAYMENT_INIT_FAILED and keeps nothing.\n\n"+
			"**Environments are separate money worlds.** A test-environment order is fulfilled by the test environment's voucher provider (a provider's sandbox, or the built-in sandbox: `SANDBOX-` codes, unlimited stock, the sandbox brands SANDBOX_FAIL, SANDBOX_SLOW, SANDBOX_SLOW_FAIL and SANDBOX_NO_STOCK) and paid through the provider's test mode or, when none is configured, the built-in sandbox payment page: "+
			"its `paymentSessionId` is then `{REWARDS_PUBLIC_URL}/sandbox/payments/{id}`, a page with Pay and Cancel (POST it with `action=pay` or `action=cancel` to act without a browser); no money moves. A test order never reaches the live provider or live payment account.\n\n"+
			"**Quotes.** `quoteId` (from the preview) holds the previewed amount for 10 minutes, for one order: a second order with it is 400 QUOTE_USED (a retry of the same clientOrderId replays the first), and a quote issued before the operator changed the partner's discount is 400 QUOTE_EXPIRED.\n\n"+
			"**Errors.** 400 BRAND_NOT_FOUND, DENOMINATION_NOT_AVAILABLE, OUT_OF_STOCK, INSUFFICIENT_WALLET_BALANCE, PAYMENT_INIT_FAILED, QUOTE_EXPIRED, QUOTE_MISMATCH, QUOTE_USED, VALIDATION_FAILED; 422 IDEMPOTENCY_KEY_REUSED; 502 when the voucher provider cannot tell its stock."+authRule,
		http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusBadGateway)
	op.DefaultStatus = http.StatusCreated
	httpapi.Register(httpapi.Operations{API: s.API, Auth: auth}, httpapi.AlsoAnswers(op, http.StatusOK, "A replay: the order an earlier placement with this clientOrderId made, as it is now (x-idempotent-replay: true)"), h.place)
}

// registerOrderReads adds the reads of one order and of the orders.
func registerOrderReads(s *httpapi.Server, h handlers, auth func(huma.Operation) huma.Operation) {
	ops := httpapi.Operations{API: s.API, Auth: auth}
	httpapi.Register(ops, httpapi.Op("partner-order", http.MethodGet, "/partner/v1/gift-cards/orders/{orderId}", "One order",
		"The order with its current status and, once SUCCESS, its codes. A PENDING_PAYMENT order is first checked with the payment provider, so a paid order is finalised by this read. "+
			"404 ORDER_NOT_FOUND for an order of another studio, game or environment, or an unknown id."+authRule,
		http.StatusNotFound), h.order)

	httpapi.Register(ops, httpapi.Op("partner-orders", http.MethodGet, "/partner/v1/gift-cards/orders", "The orders",
		"`{items, page, limit, total}` of this game's orders in this environment, newest first; `customerRef` and `clientOrderId` filter; `limit` default 20, at most 100."+authRule,
		http.StatusBadRequest), h.orders)
}

// registerReturnPage adds where a payer lands after a payment session when the order named no returnUrl.
func registerReturnPage(s *httpapi.Server) {
	s.Router().Get("/payments/return", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte(returnPage))
	})
}

const returnPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
	`<title>Payment finished</title></head><body style="font-family:sans-serif;max-width:32em;margin:3em auto">` +
	`<h1>Payment finished</h1><p>You can close this page and return to the app: your gift card appears there once the payment is confirmed.</p></body></html>`

func registerOperator(s *httpapi.Server, h handlers) {
	ops := httpapi.Operations{API: s.OperatorAPI, Auth: s.Operator}
	httpapi.Register(ops, httpapi.Op("admin-put-partner", http.MethodPut, "/admin/v1/games/{gameId}/partner", "Set a game's partner settings",
		"`{enabled, settlement: WALLET|CASH, discountPct (0 to 90, default 0)}` for both environments. A game not enabled gets 403 PARTNER_DISABLED on every partner call but the token exchange, which gives 401. "+
			"Enabling a game that has no live client secret issues one and returns it once as `liveClientSecret`: on live the API key (which ships inside game clients) never authenticates a partner alone, so the live token exchange always needs the secret; the test environment may stay secret-less. 404 GAME_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound), h.putSettings)
	httpapi.Register(ops, httpapi.Op("admin-get-partner", http.MethodGet, "/admin/v1/games/{gameId}/partner", "A game's partner settings",
		"The settings (disabled, WALLET, 0 % when never set). 404 GAME_NOT_FOUND.",
		http.StatusNotFound), h.getSettings)
	httpapi.Register(ops, httpapi.WithStatus(http.StatusCreated, httpapi.Op("admin-partner-secret", http.MethodPost, "/admin/v1/games/{gameId}/partner/{environment}/secret", "Issue a partner client secret",
		"201 `{environment, clientSecret}` (`rcs_…`, shown once; only a hash is kept). A new secret revokes the old one and every token issued under it, an exchange racing the rotation included. From then on the token exchange needs it (on live it always does). 404 GAME_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound)), h.secret)
	op := httpapi.Op("admin-partner-credit", http.MethodPost, "/admin/v1/games/{gameId}/partner/{environment}/wallet/credits", "Fund a partner wallet",
		"`{amount, reference}` → 201 `{balance, currency}`. A reference seen before on this wallet is not credited twice: the answer is 200 with the balance as it is and `x-idempotent-replay: true`. `amount` is at most 1,000,000,000 and a wallet holds at most 1,000,000,000,000 (400 VALIDATION_FAILED beyond). 404 GAME_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound)
	op.DefaultStatus = http.StatusCreated
	httpapi.Register(ops, httpapi.AlsoAnswers(op, http.StatusOK, "A replay: the reference was credited before; the balance as it is (x-idempotent-replay: true)"), h.credit)
	httpapi.Register(ops, httpapi.Op("admin-partner-ledger", http.MethodGet, "/admin/v1/games/{gameId}/partner/{environment}/wallet", "A partner wallet and its ledger",
		"`{balance, currency, entries, page, limit, total}`: the CREDIT, DEBIT and REFUND entries, oldest first, a page at a time (`limit` default and at most 100, `page` from 1, page × limit at most 10,000); the balance is the sum of all of them. 404 GAME_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound), h.ledger)
}

func registerWebhooks(s *httpapi.Server, h handlers) {
	for _, p := range []struct{ name, what string }{
		{"stripe", "Stripe events, verified with its `Stripe-Signature` (stripe-go `webhook.ConstructEvent`, 5-minute tolerance): `checkout.session.completed` (acted on when paid), `checkout.session.async_payment_succeeded`, `checkout.session.expired`."},
		{"cashfree", "Cashfree events, verified by `x-webhook-signature` = base64 HMAC-SHA256 of `x-webhook-timestamp` + the raw body, in constant time, within 5 minutes: `PAYMENT_SUCCESS_WEBHOOK`, `PAYMENT_USER_DROPPED_WEBHOOK`."},
	} {
		name := p.name
		httpapi.Register(httpapi.Operations{API: s.API, Tags: []string{tagPayments}}, httpapi.Op("payment-webhook-"+name, http.MethodPost, "/webhooks/"+name, "Receive "+name+" events",
			p.what+" Each event is recorded once by its id before the answer (2xx only once recorded); its order is then brought in line with the provider's own state of the session, "+
				"so duplicates and events out of order have one effect. 401 BAD_SIGNATURE; 400 BAD_EVENT; 404 PAYMENT_PROVIDER_NOT_CONFIGURED when this deployment uses the other provider.",
			http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound),
			func(ctx context.Context, in *webhookInput) (*webhookOutput, error) { return h.event(ctx, name, in) })
	}
}

// tokenRequestBody documents the token exchange's two media types.
func tokenRequestBody(s *httpapi.Server) *huma.RequestBody {
	schema := s.API.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(PartnerTokenRequest{}), true, "PartnerTokenRequest")
	return &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
		"application/json":                  {Schema: schema},
		"application/x-www-form-urlencoded": {Schema: schema},
	}}
}

// parseTokenRequest reads the token exchange's body as JSON or as a form.
func parseTokenRequest(ctx context.Context, contentType string, body []byte) (PartnerTokenRequest, error) {
	var r PartnerTokenRequest
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "application/x-www-form-urlencoded" {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return r, httpapi.ValidationError(ctx, "body", "the form cannot be read: "+err.Error(), nil)
		}
		for k := range form {
			if k != "client_id" && k != "client_secret" {
				return r, httpapi.ValidationError(ctx, "body."+k, "unknown field", nil)
			}
		}
		r.ClientID, r.ClientSecret = form.Get("client_id"), form.Get("client_secret")
	} else {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return r, httpapi.ValidationError(ctx, "body", "send {client_id, client_secret?} as JSON or as a form: "+err.Error(), nil)
		}
	}
	if strings.TrimSpace(r.ClientID) == "" || len(r.ClientID) > 128 || len(r.ClientSecret) > 128 {
		return r, httpapi.ValidationError(ctx, "body.client_id", "client_id is required (the game's API key), at most 128 characters", r.ClientID)
	}
	return r, nil
}

// amountOf reads a money amount of a body.
func amountOf(ctx context.Context, location string, v float64) (money.Amount, error) {
	a, err := money.FromUnits(v)
	if err != nil || a <= 0 {
		return 0, httpapi.ValidationError(ctx, location, fmt.Sprintf("must be a positive amount with at most two decimals, got %v", v), v)
	}
	return a, nil
}

func parseEnv(env string) (studio.Environment, error) {
	e := studio.Environment(env)
	if !e.Valid() {
		return "", errs.Invalidf("environment must be live or test")
	}
	return e, nil
}
