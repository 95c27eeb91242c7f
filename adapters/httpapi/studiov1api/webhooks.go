package studiov1api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/rewardsco/rewards/adapters/httpapi"
	wh "github.com/rewardsco/rewards/adapters/httpapi/webhooksapi"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/webhooks"
)

// The bodies are those of /studio-webhooks, bare.

// toConfigBody is c as /studio-webhooks shows it, with [] for no events or reasons.
func toConfigBody(c webhooks.Config) wh.WebhookConfigBody {
	b := wh.ToWebhookConfigBody(c)
	if b.SubscribedEvents == nil {
		b.SubscribedEvents = []string{}
	}
	if b.ExcludedReasons == nil {
		b.ExcludedReasons = []string{}
	}
	return b
}

const eventsDoc = "Event types to deliver: COINS_CREDITED, COINS_DEBITED, COINS_REFUNDED, ORDER_SUCCEEDED, ORDER_FAILED, ORDER_REFUNDED, PARTNER_WALLET_LOW (the public document's webhooks section describes each); another name is 400"

type configureInput struct {
	WebhookPath
	Body struct {
		WebhookURL                string   `json:"webhookUrl" minLength:"1" maxLength:"2048" doc:"HTTPS endpoint; must resolve to a public address" example:"https://hooks.example.com/rewards"`
		SubscribedEvents          []string `json:"subscribedEvents" minItems:"1" maxItems:"20" doc:"Event types to deliver: COINS_CREDITED, COINS_DEBITED, COINS_REFUNDED, ORDER_SUCCEEDED, ORDER_FAILED, ORDER_REFUNDED, PARTNER_WALLET_LOW; another name is 400" example:"[\"COINS_CREDITED\"]"`
		ExcludedReasons           []string `json:"excludedReasons,omitempty" maxItems:"50" doc:"Reasons not to send"`
		IsActive                  *bool    `json:"isActive,omitempty" doc:"Default true"`
		PartnerWalletLowThreshold *float64 `json:"partnerWalletLowThreshold,omitempty" minimum:"0.01" doc:"The partner wallet balance (units of the currency) under which PARTNER_WALLET_LOW is sent; required to subscribe to it" example:"5000"`
	}
}

type updateConfigInput struct {
	ConfigPath
	Body struct {
		WebhookURL                *string   `json:"webhookUrl,omitempty" minLength:"1" maxLength:"2048" doc:"HTTPS endpoint"`
		SubscribedEvents          *[]string `json:"subscribedEvents,omitempty" minItems:"1" maxItems:"20" doc:"Event types: COINS_CREDITED, COINS_DEBITED, COINS_REFUNDED, ORDER_SUCCEEDED, ORDER_FAILED, ORDER_REFUNDED, PARTNER_WALLET_LOW"`
		ExcludedReasons           *[]string `json:"excludedReasons,omitempty" maxItems:"50" doc:"Reasons not to send"`
		IsActive                  *bool     `json:"isActive,omitempty" doc:"false stops deliveries without deleting; true also clears an auto-disable"`
		PartnerWalletLowThreshold *float64  `json:"partnerWalletLowThreshold,omitempty" minimum:"0.01" doc:"The partner wallet balance (units of the currency) under which PARTNER_WALLET_LOW is sent" example:"5000"`
	}
}

type rotateInput struct {
	ConfigPath
	Body struct {
		GraceMinutes *int `json:"graceMinutes,omitempty" minimum:"0" maximum:"4320" doc:"How long deliveries are signed with the replaced secret too, 0 to 4,320 minutes; default 1,440" example:"1440"`
	}
}

type recoverInput struct {
	ConfigPath
	Body struct {
		Since time.Time `json:"since" doc:"Failed deliveries of events at or after this time go out again; not in the future" example:"2026-01-15T00:00:00Z"`
	}
}

type testInput struct {
	WebhookTestPath
	Body struct {
		EventType string `json:"eventType" enum:"COINS_CREDITED,COINS_DEBITED,COINS_REFUNDED" doc:"Type of the synthetic event"`
	}
}

type deliveriesInput struct {
	WebhookPath
	Status    string `query:"status" enum:"SUCCESS,FAILED,PENDING,RETRYING" doc:"Only deliveries with this status"`
	EventType string `query:"eventType" enum:"COINS_CREDITED,COINS_DEBITED,COINS_REFUNDED,ORDER_SUCCEEDED,ORDER_FAILED,ORDER_REFUNDED,PARTNER_WALLET_LOW" doc:"Only this event type"`
	Limit     int    `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Page size, at most 100"`
	Skip      int    `query:"skip" minimum:"0" maximum:"10000" default:"0" doc:"How many deliveries to pass over, at most 10,000"`
}

const scopeNote = " Webhook configurations belong to the studio and the environment, not to one game: every game of the studio reaches the same configurations; the game in the path checks that the caller's studio owns it."

// webhooksBase is the path under which the webhook operations sit.
const webhooksBase = "/studio/v1/games/{gameId}/webhooks/{environment}"

// registerWebhooks registers the webhook operations.
func (a *api) registerWebhooks() {
	g := group{a: a, tag: tagWebhooks, note: scopeNote}
	a.registerWebhookConfigs(g)
	a.registerWebhookActions(g)
}

// registerWebhookConfigs registers reading and changing the configurations.
func (a *api) registerWebhookConfigs(g group) {
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-list-webhooks", http.MethodGet, webhooksBase+"/configs",
		"Webhook configurations",
		"The studio's configurations of the environment, signing secrets masked. 404 GAME_NOT_FOUND.",
		http.StatusNotFound), serve(func(ctx context.Context, s scope, _ *WebhookPath) ([]wh.WebhookConfigBody, error) {
		list, err := a.console.WebhookConfigs(ctx, s.p, s.game, s.env)
		return httpapi.Map(list, toConfigBody), err
	}))
	huma.Register(a.s.StudioAPI, httpapi.AlsoAnswers(httpapi.WithStatus(http.StatusCreated, g.op(members.Developer, "studio-configure-webhook", http.MethodPost, webhooksBase+"/configs",
		"Create or update a webhook configuration",
		"Creates a configuration (201, with the full signingSecret, shown only here) or, when the studio already has one with this webhookUrl in the environment, updates it (200, secret masked). At most 10 configurations per environment: an 11th is 400 WEBHOOK_CONFIG_LIMIT. The URL must be https and resolve to a public address. 404 GAME_NOT_FOUND; 400 VALIDATION_FAILED.",
		http.StatusBadRequest, http.StatusNotFound)), http.StatusOK, "Updated: the studio had a configuration with this webhookUrl (secret masked)"),
		serveCreated(a.configureWebhook))
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-get-webhook", http.MethodGet, webhooksBase+"/configs/{configId}",
		"A webhook configuration",
		"One configuration, its signing secret masked. 404 GAME_NOT_FOUND, WEBHOOK_CONFIG_NOT_FOUND.",
		http.StatusNotFound), serve(func(ctx context.Context, s scope, _ *ConfigPath) (wh.WebhookConfigBody, error) {
		c, err := a.console.WebhookConfig(ctx, s.p, s.game, s.env, s.id)
		return toConfigBody(c), err
	}))
	huma.Register(a.s.StudioAPI, g.op(members.Developer, "studio-update-webhook", http.MethodPatch, webhooksBase+"/configs/{configId}",
		"Change a webhook configuration",
		"Changes the fields sent. `isActive: true` also clears an auto-disable. 404 GAME_NOT_FOUND, WEBHOOK_CONFIG_NOT_FOUND; 400 VALIDATION_FAILED.",
		http.StatusBadRequest, http.StatusNotFound), serve(a.updateWebhook))
	huma.Register(a.s.StudioAPI, g.op(members.Developer, "studio-delete-webhook", http.MethodDelete, webhooksBase+"/configs/{configId}",
		"Delete a webhook configuration",
		"Deletes the configuration and its deliveries. 404 GAME_NOT_FOUND, WEBHOOK_CONFIG_NOT_FOUND.",
		http.StatusNotFound), serveNoBody(func(ctx context.Context, s scope, _ *ConfigPath) error {
		return a.console.DeleteWebhook(ctx, s.p, s.game, s.env, s.id)
	}))
}

// registerWebhookActions registers rotating a secret, sending deliveries again or a test event,
// and reading the deliveries and their stats.
func (a *api) registerWebhookActions(g group) {
	huma.Register(a.s.StudioAPI, g.op(members.Developer, "studio-rotate-webhook-secret", http.MethodPost, webhooksBase+"/configs/{configId}/rotate-secret",
		"Rotate a signing secret",
		"Makes a new signing secret, shown only here. Until the grace ends (graceMinutes, 0 to 4,320, default 1,440), every delivery's X-Service-Signature carries both: t=<unix>,v1=<new>,v1=<old>. 404 GAME_NOT_FOUND, WEBHOOK_CONFIG_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound), serve(a.rotateWebhookSecret))
	huma.Register(a.s.StudioAPI, httpapi.WithStatus(http.StatusAccepted, g.op(members.Developer, "studio-recover-webhook", http.MethodPost, webhooksBase+"/configs/{configId}/recover",
		"Send failed deliveries again",
		"Every FAILED delivery of the configuration whose event happened at or after `since` goes out again as a new series of attempts: 202 with how many. A second call with nothing newly failed requeues 0. 404 GAME_NOT_FOUND, WEBHOOK_CONFIG_NOT_FOUND; 400 VALIDATION_FAILED.",
		http.StatusBadRequest, http.StatusNotFound)), serve(func(ctx context.Context, s scope, in *recoverInput) (wh.RecoverBody, error) {
		n, err := a.console.RecoverWebhook(ctx, s.p, s.game, s.env, s.id, in.Body.Since)
		return wh.RecoverBody{Requeued: n}, err
	}))
	huma.Register(a.s.StudioAPI, g.op(members.Developer, "studio-test-webhook", http.MethodPost, webhooksBase+"/configs/{configId}/test",
		"Send a test event",
		"Sends one synthetic event to the configuration at once and answers the outcome; it changes no balance, delivery or stat. 404 GAME_NOT_FOUND, WEBHOOK_CONFIG_NOT_FOUND; 400 VALIDATION_FAILED.",
		http.StatusBadRequest, http.StatusNotFound), serve(func(ctx context.Context, s scope, in *testInput) (wh.TestResultBody, error) {
		r, err := a.console.SendTestWebhook(ctx, s.p, s.game, s.env, s.id, in.Body.EventType)
		return wh.ToTestResultBody(r), err
	}))
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-list-deliveries", http.MethodGet, webhooksBase+"/deliveries",
		"Webhook deliveries",
		"The studio's deliveries of the environment, newest first, by status and event type: `{data, pagination: {total, limit, skip, hasMore}}`. 404 GAME_NOT_FOUND; 400 VALIDATION_FAILED.",
		http.StatusBadRequest, http.StatusNotFound), serve(a.listDeliveries))
	huma.Register(a.s.StudioAPI, httpapi.WithStatus(http.StatusAccepted, g.op(members.Developer, "studio-resend-delivery", http.MethodPost, webhooksBase+"/deliveries/{deliveryId}/resend",
		"Resend a delivery",
		"The same event (same X-Service-Event-ID and body, a new signature time) goes out again as a new series of attempts: 202 with the new delivery, PENDING. 404 GAME_NOT_FOUND, DELIVERY_NOT_FOUND.",
		http.StatusNotFound)), serve(func(ctx context.Context, s scope, _ *deliveryPath) (wh.ResendBody, error) {
		id, err := a.console.ResendDelivery(ctx, s.p, s.game, s.env, s.id)
		return wh.ResendBody{DeliveryID: id, Status: "PENDING"}, err
	}))
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-webhook-stats", http.MethodGet, webhooksBase+"/stats",
		"Webhook delivery stats",
		"Deliveries in all, delivered, failed and the success rate, of the studio in the environment. 404 GAME_NOT_FOUND.",
		http.StatusNotFound), serve(func(ctx context.Context, s scope, _ *WebhookPath) (wh.WebhookStatsBody, error) {
		st, err := a.console.WebhookStats(ctx, s.p, s.game, s.env)
		return wh.ToWebhookStatsBody(st), err
	}))
}

// threshold reads partnerWalletLowThreshold, nil when not sent.
func threshold(ctx context.Context, v *float64) (*money.Amount, error) {
	if v == nil {
		return nil, nil
	}
	a, err := money.FromUnits(*v)
	if err != nil || a <= 0 {
		return nil, httpapi.ValidationError(ctx, "body.partnerWalletLowThreshold", "must be a positive amount with at most two decimals", *v)
	}
	return &a, nil
}

func (a *api) configureWebhook(ctx context.Context, s scope, in *configureInput) (wh.WebhookConfigBody, bool, error) {
	ch := webhooks.Change{URL: &in.Body.WebhookURL, SubscribedEvents: &in.Body.SubscribedEvents, IsActive: in.Body.IsActive}
	if in.Body.ExcludedReasons != nil {
		ch.ExcludedReasons = &in.Body.ExcludedReasons
	}
	var err error
	if ch.PartnerWalletLowThreshold, err = threshold(ctx, in.Body.PartnerWalletLowThreshold); err != nil {
		return wh.WebhookConfigBody{}, false, err
	}
	c, created, err := a.console.ConfigureWebhook(ctx, s.p, s.game, s.env, ch)
	return toConfigBody(c), created, err
}

func (a *api) updateWebhook(ctx context.Context, s scope, in *updateConfigInput) (wh.WebhookConfigBody, error) {
	ch := webhooks.Change{URL: in.Body.WebhookURL, SubscribedEvents: in.Body.SubscribedEvents,
		ExcludedReasons: in.Body.ExcludedReasons, IsActive: in.Body.IsActive}
	var err error
	if ch.PartnerWalletLowThreshold, err = threshold(ctx, in.Body.PartnerWalletLowThreshold); err != nil {
		return wh.WebhookConfigBody{}, err
	}
	c, err := a.console.UpdateWebhook(ctx, s.p, s.game, s.env, s.id, ch)
	return toConfigBody(c), err
}

func (a *api) rotateWebhookSecret(ctx context.Context, s scope, in *rotateInput) (wh.RotationBody, error) {
	grace := webhooks.DefaultGrace
	if in.Body.GraceMinutes != nil {
		grace = time.Duration(*in.Body.GraceMinutes) * time.Minute
	}
	c, err := a.console.RotateWebhookSecret(ctx, s.p, s.game, s.env, s.id, grace)
	return wh.ToRotationBody(c), err
}

func (a *api) listDeliveries(ctx context.Context, s scope, in *deliveriesInput) (wh.DeliveryPage, error) {
	list, total, err := a.console.WebhookDeliveries(ctx, s.p, s.game, s.env,
		webhooks.DeliveryFilter{Status: in.Status, EventType: in.EventType, Limit: in.Limit, Skip: in.Skip})
	return wh.ToDeliveryPage(list, total, in.Limit, in.Skip), err
}
