// Package webhooksapi serves the webhook-management API of the webhooks module: a studio's
// webhook configurations, test events, delivery records and delivery stats, and the operations
// that send deliveries again and rotate a signing secret, each scoped to the API key's studio
// and the environment of the host called.
package webhooksapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
)

const (
	tagWebhooks     = "Webhooks"
	tagWebhooksDesc = "Signed webhooks of coin, order and partner wallet events: configuration, test events, deliveries and stats, resend and recover of deliveries, secret rotation. Answers are wrapped in {data, statusCode, message, requestId, timestamp}."
	scopeRule       = " Configurations belong to the API key's studio and the environment of the host called."
)

// WebhookConfigBody is a webhook configuration.
type WebhookConfigBody struct {
	ID               uuid.UUID `json:"id" doc:"Configuration id"`
	StudioID         uuid.UUID `json:"studioId" doc:"The studio of the API key"`
	WebhookURL       string    `json:"webhookUrl" doc:"HTTPS endpoint receiving events"`
	SubscribedEvents []string  `json:"subscribedEvents" doc:"Event types delivered"`
	ExcludedReasons  []string  `json:"excludedReasons" doc:"Reasons suppressed server-side"`
	Environment      string    `json:"environment" enum:"PRODUCTION,DEVELOPMENT" doc:"PRODUCTION on the live hosts, DEVELOPMENT on the development hosts"`
	IsActive         bool      `json:"isActive" doc:"false stops deliveries without deleting"`
	// PartnerWalletLowThreshold is a pointer: null when none is set.
	PartnerWalletLowThreshold *float64  `json:"partnerWalletLowThreshold" doc:"The balance under which PARTNER_WALLET_LOW is sent, in units of the currency, or null"`
	DisabledReason            *string   `json:"disabledReason" doc:"Why the service set isActive false (the auto-disable rule), or null; cleared when isActive is set true"`
	SigningSecret             string    `json:"signingSecret" doc:"In full only in the answer that created the configuration; masked afterwards"`
	CreatedAt                 time.Time `json:"createdAt" doc:"When it was created"`
}

// ResendBody is the delivery a resend queued.
type ResendBody struct {
	DeliveryID uuid.UUID `json:"deliveryId" doc:"The new delivery's id (the one sent again keeps its own record); it lists with the same eventId"`
	Status     string    `json:"status" enum:"PENDING" doc:"PENDING: its first attempt is queued"`
}

// RecoverBody counts the deliveries a recover queued.
type RecoverBody struct {
	Requeued int `json:"requeued" doc:"How many events were queued to go out again, at most 10,000 a call (oldest first: call again when it is 10,000)"`
}

// RotationBody is a configuration's new signing secret.
type RotationBody struct {
	SigningSecret           string    `json:"signingSecret" doc:"The new secret in full, shown only here"`
	PreviousSecretExpiresAt time.Time `json:"previousSecretExpiresAt" doc:"Until when deliveries carry a signature with the replaced secret too"`
}

// DeliveryBody is a delivery record.
type DeliveryBody struct {
	ID             uuid.UUID  `json:"id" doc:"Delivery id"`
	EventID        uuid.UUID  `json:"eventId" doc:"The event's id, the same on every attempt (event_id in the body)"`
	ConfigID       uuid.UUID  `json:"configId" doc:"Configuration delivered to"`
	AttemptNumber  int        `json:"attemptNumber" doc:"Attempts made so far"`
	Status         string     `json:"status" enum:"SUCCESS,FAILED,PENDING,RETRYING" doc:"PENDING before the first attempt, RETRYING between failed attempts, SUCCESS on a 2xx, FAILED (dead-lettered) after the 5th failure"`
	HTTPStatusCode *int       `json:"httpStatusCode" doc:"The receiver's status of the last attempt, or null"`
	ErrorMessage   *string    `json:"errorMessage" doc:"Why the last attempt failed, or null"`
	AttemptedAt    *time.Time `json:"attemptedAt" doc:"When the last attempt was made, or null"`
	NextRetryAt    *time.Time `json:"nextRetryAt" doc:"When the next attempt is due, or null"`
	CreatedAt      time.Time  `json:"createdAt" doc:"When the delivery was queued"`
	// Event stays an anonymous struct: its schema name (DeliveryBodyEventStruct) is part of the
	// published OpenAPI document.
	Event struct {
		ID            uuid.UUID `json:"id" doc:"Event id"`
		EventType     string    `json:"eventType" doc:"Event type"`
		TransactionID uuid.UUID `json:"transactionId" doc:"The coin transaction of a coin event; the order (order_id) of an order event; the event itself for PARTNER_WALLET_LOW"`
		CreatedAt     time.Time `json:"createdAt" doc:"When the event happened"`
	} `json:"event"`
}

// DeliveryPage is the delivery list with its pagination.
type DeliveryPage struct {
	Data []DeliveryBody `json:"data" doc:"Deliveries, newest first"`
	// Pagination stays an anonymous struct: its schema name (DeliveryPagePaginationStruct) is
	// part of the published OpenAPI document.
	Pagination struct {
		Total   int64 `json:"total"`
		Limit   int   `json:"limit"`
		Skip    int   `json:"skip"`
		HasMore bool  `json:"hasMore"`
	} `json:"pagination"`
}

// WebhookStatsBody is the stats record.
type WebhookStatsBody struct {
	TotalEvents     int64  `json:"totalEvents" doc:"Deliveries in all"`
	DeliveredEvents int64  `json:"deliveredEvents" doc:"Deliveries with status SUCCESS"`
	FailedEvents    int64  `json:"failedEvents" doc:"Deliveries with status FAILED"`
	SuccessRate     string `json:"successRate" doc:"deliveredEvents / totalEvents as a percentage with two decimals" example:"98.50"`
}

// TestResultBody is the outcome of a test event.
type TestResultBody struct {
	Delivered      bool   `json:"delivered" doc:"Whether the receiver answered 2xx"`
	HTTPStatusCode *int   `json:"httpStatusCode" doc:"The receiver's status, or null"`
	ErrorMessage   string `json:"errorMessage,omitempty" doc:"Why it was not delivered"`
	DurationMs     int64  `json:"durationMs" doc:"How long the attempt took"`
}

// Inputs. Type names of bodies (and of inputs with anonymous bodies) are schema names in the
// OpenAPI document: ConfigureBody, UpdateConfigInputBody, TestInputBody.

type studioQuery struct {
	StudioID string `query:"studioId" format:"uuid" doc:"Optional; must be the API key's studio (403 STUDIO_MISMATCH)"`
}

type configureBody struct {
	WebhookURL                string   `json:"webhookUrl" minLength:"1" maxLength:"2048" doc:"HTTPS endpoint; must resolve to a public address" example:"https://hooks.example.com/rewards"`
	SubscribedEvents          []string `json:"subscribedEvents" minItems:"1" doc:"Event types to deliver: COINS_CREDITED, COINS_DEBITED, COINS_REFUNDED, ORDER_SUCCEEDED, ORDER_FAILED, ORDER_REFUNDED, PARTNER_WALLET_LOW (the webhooks section of the document describes each); another name is 400"`
	Environment               string   `json:"environment" enum:"PRODUCTION,DEVELOPMENT" doc:"Validated, but the host called decides the environment"`
	ExcludedReasons           []string `json:"excludedReasons,omitempty" maxItems:"50" doc:"Reasons not to send"`
	IsActive                  *bool    `json:"isActive,omitempty" doc:"Default true"`
	PartnerWalletLowThreshold *float64 `json:"partnerWalletLowThreshold,omitempty" minimum:"0.01" doc:"The partner wallet balance, in units of the currency (at most two decimals), under which PARTNER_WALLET_LOW is sent: once when a debit takes a wallet of the studio's games in this environment from at or above it to under it, again only after the wallet was back at or above it. Required to subscribe to PARTNER_WALLET_LOW" example:"5000"`
}

// configureInput has no studioId: the spec gives configure no parameters, and the API key
// names the studio.
type configureInput struct {
	Body configureBody
}

// ConfigPath names a configuration of the API key's studio: embedded in the inputs of the
// operations on one configuration (exported, as Huma reads only exported embedded structs).
type ConfigPath struct {
	StudioID string `query:"studioId" format:"uuid" doc:"Optional; must be the API key's studio (403 STUDIO_MISMATCH)"`
	ConfigID string `path:"configId" doc:"Configuration id"`
}

type updateConfigInput struct {
	ConfigPath
	Body struct {
		WebhookURL                *string   `json:"webhookUrl,omitempty" minLength:"1" maxLength:"2048" doc:"HTTPS endpoint"`
		SubscribedEvents          *[]string `json:"subscribedEvents,omitempty" minItems:"1" doc:"Event types: COINS_CREDITED, COINS_DEBITED, COINS_REFUNDED, ORDER_SUCCEEDED, ORDER_FAILED, ORDER_REFUNDED, PARTNER_WALLET_LOW"`
		Environment               string    `json:"environment,omitempty" enum:"PRODUCTION,DEVELOPMENT" doc:"Validated; the host decides"`
		ExcludedReasons           *[]string `json:"excludedReasons,omitempty" maxItems:"50" doc:"Reasons not to send"`
		IsActive                  *bool     `json:"isActive,omitempty" doc:"false stops deliveries without deleting"`
		PartnerWalletLowThreshold *float64  `json:"partnerWalletLowThreshold,omitempty" minimum:"0.01" doc:"The partner wallet balance, in units of the currency (at most two decimals), under which PARTNER_WALLET_LOW is sent: once when a debit takes a wallet of the studio's games in this environment from at or above it to under it, again only after the wallet was back at or above it. Required to subscribe to PARTNER_WALLET_LOW" example:"5000"`
	}
}

type testInput struct {
	StudioID string `query:"studioId" format:"uuid" doc:"Optional; must be the API key's studio"`
	ConfigID string `query:"configId" format:"uuid" required:"true" doc:"Configuration to send to"`
	Body     struct {
		EventType string `json:"eventType" enum:"COINS_CREDITED,COINS_DEBITED,COINS_REFUNDED" doc:"Type of the synthetic event"`
	}
}

type deliveryIDInput struct {
	StudioID   string `query:"studioId" format:"uuid" doc:"Optional; must be the API key's studio (403 STUDIO_MISMATCH)"`
	DeliveryID string `path:"deliveryId" doc:"Delivery id"`
}

type recoverInput struct {
	ConfigPath
	Body struct {
		Since string `json:"since" format:"date-time" doc:"Failed deliveries of events at or after this time (ISO 8601) go out again; not in the future" example:"2026-01-15T00:00:00Z"`
	}
}

type rotateInput struct {
	ConfigPath
	Body struct {
		GraceMinutes *int `json:"graceMinutes,omitempty" minimum:"0" maximum:"4320" doc:"How long deliveries are signed with the replaced secret too, 0 to 4,320 minutes (3 days); default 1,440 (a day)"`
	}
}

type deliveriesInput struct {
	StudioID  string `query:"studioId" format:"uuid" doc:"Optional; must be the API key's studio"`
	Status    string `query:"status" enum:"SUCCESS,FAILED,PENDING,RETRYING" doc:"Only deliveries with this status"`
	EventType string `query:"eventType" enum:"COINS_CREDITED,COINS_DEBITED,COINS_REFUNDED,ORDER_SUCCEEDED,ORDER_FAILED,ORDER_REFUNDED,PARTNER_WALLET_LOW" doc:"Only this event type"`
	Limit     int    `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Page size, at most 100"`
	Skip      int    `query:"skip" minimum:"0" maximum:"10000" default:"0" doc:"Offset: how many deliveries to pass over, at most 10,000 (400 VALIDATION_FAILED beyond)"`
}

// Outputs.

type configureOutput struct {
	Status int
	Body   httpapi.Envelope[WebhookConfigBody]
}

type configOutput = httpapi.Output[httpapi.Envelope[WebhookConfigBody]]

type configsOutput = httpapi.Output[httpapi.Envelope[[]WebhookConfigBody]]

type deletedOutput = httpapi.Output[httpapi.Envelope[map[string]string]]

type testOutput = httpapi.Output[httpapi.Envelope[TestResultBody]]

type deliveriesOutput = httpapi.Output[httpapi.Envelope[DeliveryPage]]

type statsOutput = httpapi.Output[httpapi.Envelope[WebhookStatsBody]]

type resendOutput = httpapi.Output[httpapi.Envelope[ResendBody]]

type recoverOutput = httpapi.Output[httpapi.Envelope[RecoverBody]]

type rotateOutput = httpapi.Output[httpapi.Envelope[RotationBody]]

// Converters.

// ToWebhookConfigBody is a configuration as the webhook-management and studio APIs show it: the
// signing secret masked unless c holds it in full (just made or rotated).
func ToWebhookConfigBody(c webhooks.Config) WebhookConfigBody {
	env := "DEVELOPMENT"
	if c.Environment == studio.Live {
		env = "PRODUCTION"
	}
	secret := c.MaskedSecret()
	if c.Secret != "" {
		secret = c.Secret
	}
	b := WebhookConfigBody{ID: c.ID, StudioID: c.StudioID, WebhookURL: c.URL, SubscribedEvents: c.SubscribedEvents,
		ExcludedReasons: c.ExcludedReasons, Environment: env, IsActive: c.IsActive, SigningSecret: secret, CreatedAt: c.CreatedAt}
	if c.DisabledReason != "" {
		b.DisabledReason = &c.DisabledReason
	}
	if c.PartnerWalletLowThreshold != nil {
		u := c.PartnerWalletLowThreshold.Units()
		b.PartnerWalletLowThreshold = &u
	}
	return b
}

// thresholdOf reads partnerWalletLowThreshold of a body, nil when not sent.
func thresholdOf(ctx context.Context, v *float64) (*money.Amount, error) {
	if v == nil {
		return nil, nil
	}
	a, err := money.FromUnits(*v)
	if err != nil || a <= 0 {
		return nil, httpapi.ValidationError(ctx, "body.partnerWalletLowThreshold", fmt.Sprintf("must be a positive amount with at most two decimals, got %v", *v), *v)
	}
	return &a, nil
}

// ToRotationBody is a rotated configuration's new secret and when the replaced one expires.
func ToRotationBody(c webhooks.Config) RotationBody {
	b := RotationBody{SigningSecret: c.Secret}
	if c.PreviousExpiresAt != nil {
		b.PreviousSecretExpiresAt = *c.PreviousExpiresAt
	}
	return b
}

// ToDeliveryBody is one delivery attempt with its event.
func ToDeliveryBody(d webhooks.Delivery) DeliveryBody {
	b := DeliveryBody{ID: d.ID, EventID: d.EventID, ConfigID: d.ConfigID, AttemptNumber: d.AttemptNumber, Status: d.Status,
		HTTPStatusCode: d.HTTPStatusCode, ErrorMessage: d.ErrorMessage, AttemptedAt: d.AttemptedAt, NextRetryAt: d.NextRetryAt, CreatedAt: d.CreatedAt}
	b.Event.ID, b.Event.EventType, b.Event.TransactionID, b.Event.CreatedAt = d.EventID, d.EventType, d.TransactionID, d.EventCreatedAt
	return b
}

// ToDeliveryPage is one page of deliveries: limit and skip as asked, total of all that match.
func ToDeliveryPage(list []webhooks.Delivery, total int64, limit, skip int) DeliveryPage {
	page := DeliveryPage{Data: httpapi.Map(list, ToDeliveryBody)}
	page.Pagination.Total, page.Pagination.Limit, page.Pagination.Skip = total, limit, skip
	page.Pagination.HasMore = int64(skip+len(list)) < total
	return page
}

// ToWebhookStatsBody is the delivery counts and success rate.
func ToWebhookStatsBody(s webhooks.Stats) WebhookStatsBody {
	return WebhookStatsBody{TotalEvents: s.Total, DeliveredEvents: s.Delivered, FailedEvents: s.Failed, SuccessRate: s.SuccessRate()}
}

// ToTestResultBody is the outcome of a test event.
func ToTestResultBody(r webhooks.TestResult) TestResultBody {
	return TestResultBody{Delivered: r.Delivered, HTTPStatusCode: r.HTTPStatus, ErrorMessage: r.Error, DurationMs: r.Duration.Milliseconds()}
}

// toConfigureChange is the change a configure request asks for: every field is set, the
// excluded reasons only when sent.
func toConfigureChange(ctx context.Context, b *configureBody) (webhooks.Change, error) {
	ch := webhooks.Change{URL: &b.WebhookURL, SubscribedEvents: &b.SubscribedEvents, IsActive: b.IsActive}
	if b.ExcludedReasons != nil {
		ch.ExcludedReasons = &b.ExcludedReasons
	}
	var err error
	ch.PartnerWalletLowThreshold, err = thresholdOf(ctx, b.PartnerWalletLowThreshold)
	return ch, err
}

// toUpdateChange is the change an update request asks for: only the fields sent.
func toUpdateChange(ctx context.Context, in *updateConfigInput) (webhooks.Change, error) {
	ch := webhooks.Change{URL: in.Body.WebhookURL, SubscribedEvents: in.Body.SubscribedEvents,
		ExcludedReasons: in.Body.ExcludedReasons, IsActive: in.Body.IsActive}
	var err error
	ch.PartnerWalletLowThreshold, err = thresholdOf(ctx, in.Body.PartnerWalletLowThreshold)
	return ch, err
}

// handlers serve the webhook-management operations: decode, one core call, encode.
type handlers struct{ svc *webhooks.Service }

// Register adds the webhook-management operations (configurations, test events, deliveries and
// stats under /studio-webhooks) and their tag to s. Every operation needs the game's API key.
func Register(s *httpapi.Server, svc *webhooks.Service) {
	h := handlers{svc: svc}
	s.AddTag(tagWebhooks, tagWebhooksDesc)
	documentEvents(s)
	registerConfigs(s, h)
	registerDeliveries(s, h)
	registerSecretRotation(s, h)
}

// registerConfigs adds the operations on webhook configurations.
func registerConfigs(s *httpapi.Server, h handlers) {
	tags := []string{tagWebhooks}
	ops := httpapi.Operations{API: s.API, Auth: s.APIKey, Tags: tags}
	op := httpapi.Op("webhooks-configure", http.MethodPost, "/studio-webhooks/configure", "Create or update a webhook configuration",
		"Creates a configuration (201, with the full signingSecret, shown only here) or, when the studio already has one with this webhookUrl in this environment, updates it (200, secret masked)."+scopeRule+" A studio has at most 10 configurations per environment: creating an 11th is 400 WEBHOOK_CONFIG_LIMIT and creates nothing (updating one by its webhookUrl still works; delete one to make room). The URL must be https and resolve to a public address (checked again at every connection). At most 4 deliveries to one configuration are in flight at once (per service instance); the others wait their turn, so a slow or unreachable receiver delays only its own deliveries. 400 VALIDATION_FAILED, WEBHOOK_CONFIG_LIMIT; 403 STUDIO_MISMATCH.",
		http.StatusBadRequest, http.StatusForbidden)
	httpapi.Register(ops, httpapi.AlsoAnswers(op, http.StatusCreated, "Created: the new configuration, with its full signingSecret (shown only here)"), h.configure)
	httpapi.Register(ops, httpapi.Op("webhooks-list-configs", http.MethodGet, "/studio-webhooks/config", "List webhook configurations",
		"The studio's configurations in this environment, secrets masked."+scopeRule,
		http.StatusBadRequest, http.StatusForbidden), h.listConfigs)
	httpapi.Register(ops, httpapi.Op("webhooks-get-config", http.MethodGet, "/studio-webhooks/config/{configId}", "Get a webhook configuration",
		"One configuration, secret masked. 404 WEBHOOK_CONFIG_NOT_FOUND for another studio's or environment's id.",
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound), h.getConfig)
	httpapi.Register(ops, httpapi.Op("webhooks-update-config", http.MethodPut, "/studio-webhooks/config/{configId}", "Update a webhook configuration",
		"Changes the fields sent. `isActive: false` stops deliveries (queued ones are marked FAILED when their turn comes) without deleting; `isActive: true` resumes them and clears `disabledReason`. 404 WEBHOOK_CONFIG_NOT_FOUND; 409 WEBHOOK_URL_CONFLICT when another configuration has the URL."+autoDisableRule,
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict), h.updateConfig)
	httpapi.Register(ops, httpapi.Op("webhooks-delete-config", http.MethodDelete, "/studio-webhooks/config/{configId}", "Delete a webhook configuration",
		"Deletes the configuration and its delivery records; queued deliveries are dropped. 404 WEBHOOK_CONFIG_NOT_FOUND.",
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound), h.deleteConfig)
}

// registerDeliveries adds the test event and the operations on deliveries.
func registerDeliveries(s *httpapi.Server, h handlers) {
	tags := []string{tagWebhooks}
	ops := httpapi.Operations{API: s.API, Auth: s.APIKey, Tags: tags}
	httpapi.Register(ops, httpapi.Op("webhooks-test", http.MethodPost, "/studio-webhooks/test", "Send a test event",
		"Sends one signed synthetic event (user_uuid test-user, reason TEST) to the configuration at once and answers the outcome. It changes no balance, delivery record or stat, and is sent even when the configuration is inactive.",
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound), h.test)
	httpapi.Register(ops, httpapi.Op("webhooks-deliveries", http.MethodGet, "/studio-webhooks/deliveries", "List deliveries",
		"One record per (event, configuration), newest first, filtered by status and eventType; `limit` default 20, at most 100; `skip` is the offset, at most 10,000 (narrow by status or eventType to reach older records). 400 VALIDATION_FAILED beyond either bound; 403 STUDIO_MISMATCH."+scopeRule,
		http.StatusBadRequest, http.StatusForbidden), h.deliveries)
	httpapi.Register(ops, httpapi.Op("webhooks-stats", http.MethodGet, "/studio-webhooks/stats", "Delivery stats",
		"totalEvents counts deliveries, deliveredEvents those with SUCCESS, failedEvents those FAILED; successRate is delivered/total as a percentage with two decimals. A resend or recover adds a delivery of its own; the delivery it sends again keeps its status."+scopeRule,
		http.StatusBadRequest, http.StatusForbidden), h.stats)
	httpapi.Register(ops, httpapi.WithStatus(http.StatusAccepted, httpapi.Op("webhooks-resend-delivery", http.MethodPost, "/studio-webhooks/deliveries/{deliveryId}/resend", "Resend a delivery",
		"Sends the delivery's event again to its configuration as a new delivery, with 5 attempts of its own on the usual schedule: the same `X-Service-Event-Id` and body, each attempt signed anew. Any delivery can be resent, whatever its status. The answer names the new delivery (PENDING); the delivery resent keeps its own record. 404 DELIVERY_NOT_FOUND for another studio's or environment's delivery, or an id that is none; 409 WEBHOOK_CONFIG_INACTIVE when the configuration is inactive (set isActive true first); 403 STUDIO_MISMATCH.",
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict)), h.resend)
	httpapi.Register(ops, httpapi.WithStatus(http.StatusAccepted, httpapi.Op("webhooks-recover", http.MethodPost, "/studio-webhooks/config/{configId}/recover", "Recover failed deliveries",
		"Sends again every FAILED delivery of the configuration whose event happened at or after `since`, each as a new delivery with 5 attempts of its own and the event's own id and body; several failed deliveries of one event go out once. A failed delivery goes out again once: a second recover (or one running at the same time) requeues only deliveries that failed since. `requeued` counts the events queued, at most 10,000 a call, oldest first. 400 VALIDATION_FAILED for a `since` in the future or not an ISO 8601 time; 404 WEBHOOK_CONFIG_NOT_FOUND for another studio's or environment's configuration; 409 WEBHOOK_CONFIG_INACTIVE when it is inactive (set isActive true first); 403 STUDIO_MISMATCH.",
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict)), h.recoverFailed)
}

// registerSecretRotation adds the rotation of a configuration's signing secret.
func registerSecretRotation(s *httpapi.Server, h handlers) {
	tags := []string{tagWebhooks}
	httpapi.Register(httpapi.Operations{API: s.API, Auth: s.APIKey, Tags: tags}, httpapi.Op("webhooks-rotate-secret", http.MethodPost, "/studio-webhooks/config/{configId}/rotate-secret", "Rotate the signing secret",
		"Replaces the configuration's signingSecret with a new one, answered in full only here. Until `previousSecretExpiresAt` (`graceMinutes` from now, default 1,440) every attempt carries two signatures, `X-Service-Signature: t=<unix>,v1=<new>,v1=<old>`, so a receiver verifies with either secret while it switches; after it, only the new one. Each attempt reads the secrets when it is sent, so deliveries already queued are signed the same way. A rotation during another's grace ends that grace: only the secret just replaced is kept. 400 VALIDATION_FAILED for graceMinutes outside 0 to 4,320; 404 WEBHOOK_CONFIG_NOT_FOUND; 403 STUDIO_MISMATCH.",
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound), h.rotate)
}

// autoDisableRule is the auto-disable rule, as users read it.
const autoDisableRule = " A configuration with no successful delivery for 5 days and at least 20 deliveries FAILED in that time (counted from when it was last set active) is set `isActive: false` with a `disabledReason`, and nothing is queued for it until it is set active again."

func (h handlers) resend(ctx context.Context, in *deliveryIDInput) (*resendOutput, error) {
	sc, err := scope(ctx, in.StudioID)
	if err != nil {
		return nil, err
	}
	id, err := httpapi.ParseID(in.DeliveryID, webhooks.ErrDeliveryNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	newID, err := h.svc.Resend(ctx, sc, id)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &resendOutput{Body: httpapi.Wrap(ctx, http.StatusAccepted, "delivery queued", ResendBody{DeliveryID: newID, Status: webhooks.StatusPending})}, nil
}

func (h handlers) recoverFailed(ctx context.Context, in *recoverInput) (*recoverOutput, error) {
	sc, id, err := scopeAndID(ctx, in.StudioID, in.ConfigID)
	if err != nil {
		return nil, err
	}
	since, err := time.Parse(time.RFC3339Nano, in.Body.Since)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, errs.Invalidf("since must be an ISO 8601 time, such as 2026-01-15T00:00:00Z"))
	}
	n, err := h.svc.Recover(ctx, sc, id, since)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &recoverOutput{Body: httpapi.Wrap(ctx, http.StatusAccepted, "failed deliveries queued", RecoverBody{Requeued: n})}, nil
}

func (h handlers) rotate(ctx context.Context, in *rotateInput) (*rotateOutput, error) {
	sc, id, err := scopeAndID(ctx, in.StudioID, in.ConfigID)
	if err != nil {
		return nil, err
	}
	grace := webhooks.DefaultGrace
	if in.Body.GraceMinutes != nil {
		grace = time.Duration(*in.Body.GraceMinutes) * time.Minute
	}
	c, err := h.svc.RotateSecret(ctx, sc, id, grace)
	return httpapi.ReplyWrapped(ctx, "signing secret rotated", c, err, ToRotationBody)
}

// scope is the caller's scope; a studioId naming another studio is 403 STUDIO_MISMATCH.
func scope(ctx context.Context, studioID string) (webhooks.Scope, error) {
	sc, err := webhooks.ScopeOf(httpapi.CallerFrom(ctx), studioID)
	if err != nil {
		return webhooks.Scope{}, httpapi.ErrorFrom(ctx, err)
	}
	return sc, nil
}

// scopeAndID is the caller's scope and the configuration id named: a malformed id is as unknown
// as any other (404 WEBHOOK_CONFIG_NOT_FOUND).
func scopeAndID(ctx context.Context, studioID, configID string) (webhooks.Scope, uuid.UUID, error) {
	sc, err := scope(ctx, studioID)
	if err != nil {
		return webhooks.Scope{}, uuid.Nil, err
	}
	id, err := httpapi.ParseID(configID, webhooks.ErrConfigNotFound)
	if err != nil {
		return webhooks.Scope{}, uuid.Nil, httpapi.ErrorFrom(ctx, err)
	}
	return sc, id, nil
}

func (h handlers) configure(ctx context.Context, in *configureInput) (*configureOutput, error) {
	sc, err := scope(ctx, "")
	if err != nil {
		return nil, err
	}
	ch, err := toConfigureChange(ctx, &in.Body)
	if err != nil {
		return nil, err
	}
	c, created, err := h.svc.Configure(ctx, sc, ch)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	status, msg := http.StatusOK, "webhook configuration updated"
	if created {
		status, msg = http.StatusCreated, "webhook configuration created"
	}
	return &configureOutput{Status: status, Body: httpapi.Wrap(ctx, status, msg, ToWebhookConfigBody(c))}, nil
}

func (h handlers) listConfigs(ctx context.Context, in *studioQuery) (*configsOutput, error) {
	sc, err := scope(ctx, in.StudioID)
	if err != nil {
		return nil, err
	}
	list, err := h.svc.List(ctx, sc)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &configsOutput{Body: httpapi.Wrap(ctx, http.StatusOK, "OK", httpapi.Map(list, ToWebhookConfigBody))}, nil
}

func (h handlers) getConfig(ctx context.Context, in *ConfigPath) (*configOutput, error) {
	sc, id, err := scopeAndID(ctx, in.StudioID, in.ConfigID)
	if err != nil {
		return nil, err
	}
	c, err := h.svc.Get(ctx, sc, id)
	return httpapi.ReplyWrapped(ctx, "OK", c, err, ToWebhookConfigBody)
}

func (h handlers) updateConfig(ctx context.Context, in *updateConfigInput) (*configOutput, error) {
	sc, id, err := scopeAndID(ctx, in.StudioID, in.ConfigID)
	if err != nil {
		return nil, err
	}
	ch, err := toUpdateChange(ctx, in)
	if err != nil {
		return nil, err
	}
	c, err := h.svc.Update(ctx, sc, id, ch)
	return httpapi.ReplyWrapped(ctx, "webhook configuration updated", c, err, ToWebhookConfigBody)
}

func (h handlers) deleteConfig(ctx context.Context, in *ConfigPath) (*deletedOutput, error) {
	sc, id, err := scopeAndID(ctx, in.StudioID, in.ConfigID)
	if err != nil {
		return nil, err
	}
	if err := h.svc.Delete(ctx, sc, id); err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &deletedOutput{Body: httpapi.Wrap(ctx, http.StatusOK, "webhook configuration deleted", map[string]string{"id": in.ConfigID})}, nil
}

func (h handlers) test(ctx context.Context, in *testInput) (*testOutput, error) {
	sc, id, err := scopeAndID(ctx, in.StudioID, in.ConfigID)
	if err != nil {
		return nil, err
	}
	res, err := h.svc.SendTest(ctx, sc, httpapi.CallerFrom(ctx), id, in.Body.EventType)
	return httpapi.ReplyWrapped(ctx, "test event sent", res, err, ToTestResultBody)
}

func (h handlers) deliveries(ctx context.Context, in *deliveriesInput) (*deliveriesOutput, error) {
	sc, err := scope(ctx, in.StudioID)
	if err != nil {
		return nil, err
	}
	list, total, err := h.svc.Deliveries(ctx, sc, webhooks.DeliveryFilter{Status: in.Status, EventType: in.EventType, Limit: in.Limit, Skip: in.Skip})
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &deliveriesOutput{Body: httpapi.Wrap(ctx, http.StatusOK, "OK", ToDeliveryPage(list, total, in.Limit, in.Skip))}, nil
}

func (h handlers) stats(ctx context.Context, in *studioQuery) (*statsOutput, error) {
	sc, err := scope(ctx, in.StudioID)
	if err != nil {
		return nil, err
	}
	s, err := h.svc.Stats(ctx, sc)
	return httpapi.ReplyWrapped(ctx, "OK", s, err, ToWebhookStatsBody)
}
