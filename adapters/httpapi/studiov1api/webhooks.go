package studiov1api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	wh "github.com/rewardsco/rewards/adapters/httpapi/webhooksapi"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
)

// The bodies are those of /studio-webhooks, bare.

func toConfigBody(c webhooks.Config) wh.WebhookConfigBody {
	e := "DEVELOPMENT"
	if c.Environment == studio.Live {
		e = "PRODUCTION"
	}
	secret := c.MaskedSecret()
	if c.Secret != "" {
		secret = c.Secret
	}
	b := wh.WebhookConfigBody{ID: c.ID, StudioID: c.StudioID, WebhookURL: c.URL, SubscribedEvents: c.SubscribedEvents,
		ExcludedReasons: c.ExcludedReasons, Environment: e, IsActive: c.IsActive, SigningSecret: secret, CreatedAt: c.CreatedAt}
	if b.SubscribedEvents == nil {
		b.SubscribedEvents = []string{}
	}
	if b.ExcludedReasons == nil {
		b.ExcludedReasons = []string{}
	}
	if c.DisabledReason != "" {
		reason := c.DisabledReason
		b.DisabledReason = &reason
	}
	if c.PartnerWalletLowThreshold != nil {
		u := c.PartnerWalletLowThreshold.Units()
		b.PartnerWalletLowThreshold = &u
	}
	return b
}

func toDeliveryBody(d webhooks.Delivery) wh.DeliveryBody {
	b := wh.DeliveryBody{ID: d.ID, EventID: d.EventID, ConfigID: d.ConfigID, AttemptNumber: d.AttemptNumber, Status: d.Status,
		HTTPStatusCode: d.HTTPStatusCode, ErrorMessage: d.ErrorMessage, AttemptedAt: d.AttemptedAt, NextRetryAt: d.NextRetryAt, CreatedAt: d.CreatedAt}
	b.Event.ID, b.Event.EventType, b.Event.TransactionID, b.Event.CreatedAt = d.EventID, d.EventType, d.TransactionID, d.EventCreatedAt
	return b
}

const eventsDoc = "Event types to deliver: COINS_CREDITED, COINS_DEBITED, COINS_REFUNDED, ORDER_SUCCEEDED, ORDER_FAILED, ORDER_REFUNDED, PARTNER_WALLET_LOW (the public document's webhooks section describes each); another name is 400"

// webhookPath names the webhook configurations of the studio in an environment, through one of
// its games.
type webhookPath struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio, for whose studio the configurations are (another studio's game is 404 GAME_NOT_FOUND)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live (PRODUCTION) or test (DEVELOPMENT)"`
}

type configureInput struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio, for whose studio the configurations are (another studio's game is 404 GAME_NOT_FOUND)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live (PRODUCTION) or test (DEVELOPMENT)"`
	Body        struct {
		WebhookURL                string   `json:"webhookUrl" minLength:"1" maxLength:"2048" doc:"HTTPS endpoint; must resolve to a public address" example:"https://hooks.example.com/rewards"`
		SubscribedEvents          []string `json:"subscribedEvents" minItems:"1" maxItems:"20" doc:"Event types to deliver: COINS_CREDITED, COINS_DEBITED, COINS_REFUNDED, ORDER_SUCCEEDED, ORDER_FAILED, ORDER_REFUNDED, PARTNER_WALLET_LOW; another name is 400" example:"[\"COINS_CREDITED\"]"`
		ExcludedReasons           []string `json:"excludedReasons,omitempty" maxItems:"50" doc:"Reasons not to send"`
		IsActive                  *bool    `json:"isActive,omitempty" doc:"Default true"`
		PartnerWalletLowThreshold *float64 `json:"partnerWalletLowThreshold,omitempty" minimum:"0.01" doc:"The partner wallet balance (units of the currency) under which PARTNER_WALLET_LOW is sent; required to subscribe to it" example:"5000"`
	}
}

type configPath struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio, for whose studio the configurations are (another studio's game is 404 GAME_NOT_FOUND)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live (PRODUCTION) or test (DEVELOPMENT)"`
	ConfigID    string `path:"configId" maxLength:"64" doc:"A configuration of the studio in the environment (404 WEBHOOK_CONFIG_NOT_FOUND otherwise)"`
}

type updateConfigInput struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio, for whose studio the configurations are (another studio's game is 404 GAME_NOT_FOUND)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live (PRODUCTION) or test (DEVELOPMENT)"`
	ConfigID    string `path:"configId" maxLength:"64" doc:"A configuration of the studio in the environment (404 WEBHOOK_CONFIG_NOT_FOUND otherwise)"`
	Body        struct {
		WebhookURL                *string   `json:"webhookUrl,omitempty" minLength:"1" maxLength:"2048" doc:"HTTPS endpoint"`
		SubscribedEvents          *[]string `json:"subscribedEvents,omitempty" minItems:"1" maxItems:"20" doc:"Event types: COINS_CREDITED, COINS_DEBITED, COINS_REFUNDED, ORDER_SUCCEEDED, ORDER_FAILED, ORDER_REFUNDED, PARTNER_WALLET_LOW"`
		ExcludedReasons           *[]string `json:"excludedReasons,omitempty" maxItems:"50" doc:"Reasons not to send"`
		IsActive                  *bool     `json:"isActive,omitempty" doc:"false stops deliveries without deleting; true also clears an auto-disable"`
		PartnerWalletLowThreshold *float64  `json:"partnerWalletLowThreshold,omitempty" minimum:"0.01" doc:"The partner wallet balance (units of the currency) under which PARTNER_WALLET_LOW is sent" example:"5000"`
	}
}

type rotateInput struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio, for whose studio the configurations are (another studio's game is 404 GAME_NOT_FOUND)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live (PRODUCTION) or test (DEVELOPMENT)"`
	ConfigID    string `path:"configId" maxLength:"64" doc:"A configuration of the studio in the environment (404 WEBHOOK_CONFIG_NOT_FOUND otherwise)"`
	Body        struct {
		GraceMinutes *int `json:"graceMinutes,omitempty" minimum:"0" maximum:"4320" doc:"How long deliveries are signed with the replaced secret too, 0 to 4,320 minutes; default 1,440" example:"1440"`
	}
}

type recoverInput struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio, for whose studio the configurations are (another studio's game is 404 GAME_NOT_FOUND)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live (PRODUCTION) or test (DEVELOPMENT)"`
	ConfigID    string `path:"configId" maxLength:"64" doc:"A configuration of the studio in the environment (404 WEBHOOK_CONFIG_NOT_FOUND otherwise)"`
	Body        struct {
		Since time.Time `json:"since" doc:"Failed deliveries of events at or after this time go out again; not in the future" example:"2026-01-15T00:00:00Z"`
	}
}

type testInput struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio, whose key the synthetic event is sent as (another studio's game is 404 GAME_NOT_FOUND)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live (PRODUCTION) or test (DEVELOPMENT)"`
	ConfigID    string `path:"configId" maxLength:"64" doc:"A configuration of the studio in the environment (404 WEBHOOK_CONFIG_NOT_FOUND otherwise)"`
	Body        struct {
		EventType string `json:"eventType" enum:"COINS_CREDITED,COINS_DEBITED,COINS_REFUNDED" doc:"Type of the synthetic event"`
	}
}

type deliveriesInput struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio, for whose studio the configurations are (another studio's game is 404 GAME_NOT_FOUND)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live (PRODUCTION) or test (DEVELOPMENT)"`
	Status      string `query:"status" enum:"SUCCESS,FAILED,PENDING,RETRYING" doc:"Only deliveries with this status"`
	EventType   string `query:"eventType" enum:"COINS_CREDITED,COINS_DEBITED,COINS_REFUNDED,ORDER_SUCCEEDED,ORDER_FAILED,ORDER_REFUNDED,PARTNER_WALLET_LOW" doc:"Only this event type"`
	Limit       int    `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Page size, at most 100"`
	Skip        int    `query:"skip" minimum:"0" maximum:"10000" default:"0" doc:"How many deliveries to pass over, at most 10,000"`
}

type deliveryPath struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio, for whose studio the configurations are (another studio's game is 404 GAME_NOT_FOUND)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live (PRODUCTION) or test (DEVELOPMENT)"`
	DeliveryID  string `path:"deliveryId" maxLength:"64" doc:"A delivery of the studio in the environment (404 DELIVERY_NOT_FOUND otherwise)"`
}

type configOutput struct {
	Status int
	Body   wh.WebhookConfigBody
}

type configsOutput struct{ Body []wh.WebhookConfigBody }

type rotationOutput struct{ Body wh.RotationBody }

type recoverOutput struct{ Body wh.RecoverBody }

type testOutput struct{ Body wh.TestResultBody }

type deliveriesOutput struct{ Body wh.DeliveryPage }

type resendOutput struct{ Body wh.ResendBody }

type statsOutput struct{ Body wh.WebhookStatsBody }

const scopeNote = " Webhook configurations belong to the studio and the environment, not to one game: every game of the studio reaches the same configurations; the game in the path checks that the caller's studio owns it."

// webhooksBase is the path under which the webhook operations sit.
const webhooksBase = "/studio/v1/games/{gameId}/webhooks/{environment}"

// registerWebhooks registers the webhook operations.
func (a *api) registerWebhooks() {
	a.registerWebhookConfigs()
	a.registerWebhookActions()
}

// webhookOp is a webhook operation that needs the role need, its description ending in scopeNote.
func (a *api) webhookOp(o huma.Operation, need members.Role) huma.Operation {
	o.Description += scopeNote
	return a.op(o, tagWebhooks, need)
}

// registerWebhookConfigs registers reading and changing the configurations.
func (a *api) registerWebhookConfigs() {
	huma.Register(a.s.StudioAPI, a.webhookOp(huma.Operation{
		OperationID: "studio-list-webhooks",
		Method:      http.MethodGet,
		Path:        webhooksBase + "/configs",
		Summary:     "Webhook configurations",
		Description: "The studio's configurations of the environment, signing secrets masked. 404 GAME_NOT_FOUND.",
		Errors:      []int{http.StatusNotFound},
	}, members.Viewer), a.listWebhooks)
	huma.Register(a.s.StudioAPI, httpapi.AlsoAnswers(a.webhookOp(huma.Operation{
		OperationID:   "studio-configure-webhook",
		Method:        http.MethodPost,
		Path:          webhooksBase + "/configs",
		Summary:       "Create or update a webhook configuration",
		Description:   "Creates a configuration (201, with the full signingSecret, shown only here) or, when the studio already has one with this webhookUrl in the environment, updates it (200, secret masked). At most 10 configurations per environment: an 11th is 400 WEBHOOK_CONFIG_LIMIT. The URL must be https and resolve to a public address. 404 GAME_NOT_FOUND; 400 VALIDATION_FAILED.",
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusBadRequest, http.StatusNotFound},
	}, members.Developer), http.StatusOK, "Updated: the studio had a configuration with this webhookUrl (secret masked)"), a.configureWebhook)
	huma.Register(a.s.StudioAPI, a.webhookOp(huma.Operation{
		OperationID: "studio-get-webhook",
		Method:      http.MethodGet,
		Path:        webhooksBase + "/configs/{configId}",
		Summary:     "A webhook configuration",
		Description: "One configuration, its signing secret masked. 404 GAME_NOT_FOUND, WEBHOOK_CONFIG_NOT_FOUND.",
		Errors:      []int{http.StatusNotFound},
	}, members.Viewer), a.getWebhook)
	huma.Register(a.s.StudioAPI, a.webhookOp(huma.Operation{
		OperationID: "studio-update-webhook",
		Method:      http.MethodPatch,
		Path:        webhooksBase + "/configs/{configId}",
		Summary:     "Change a webhook configuration",
		Description: "Changes the fields sent. `isActive: true` also clears an auto-disable. 404 GAME_NOT_FOUND, WEBHOOK_CONFIG_NOT_FOUND; 400 VALIDATION_FAILED.",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound},
	}, members.Developer), a.updateWebhook)
	huma.Register(a.s.StudioAPI, a.webhookOp(huma.Operation{
		OperationID:   "studio-delete-webhook",
		Method:        http.MethodDelete,
		Path:          webhooksBase + "/configs/{configId}",
		Summary:       "Delete a webhook configuration",
		Description:   "Deletes the configuration and its deliveries. 404 GAME_NOT_FOUND, WEBHOOK_CONFIG_NOT_FOUND.",
		DefaultStatus: http.StatusNoContent,
		Errors:        []int{http.StatusNotFound},
	}, members.Developer), a.deleteWebhook)
}

// registerWebhookActions registers rotating a secret, sending deliveries again or a test event,
// and reading the deliveries and their stats.
func (a *api) registerWebhookActions() {
	huma.Register(a.s.StudioAPI, a.webhookOp(huma.Operation{
		OperationID: "studio-rotate-webhook-secret",
		Method:      http.MethodPost,
		Path:        webhooksBase + "/configs/{configId}/rotate-secret",
		Summary:     "Rotate a signing secret",
		Description: "Makes a new signing secret, shown only here. Until the grace ends (graceMinutes, 0 to 4,320, default 1,440), every delivery's X-Service-Signature carries both: t=<unix>,v1=<new>,v1=<old>. 404 GAME_NOT_FOUND, WEBHOOK_CONFIG_NOT_FOUND.",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound},
	}, members.Developer), a.rotateWebhookSecret)
	huma.Register(a.s.StudioAPI, a.webhookOp(huma.Operation{
		OperationID:   "studio-recover-webhook",
		Method:        http.MethodPost,
		Path:          webhooksBase + "/configs/{configId}/recover",
		Summary:       "Send failed deliveries again",
		Description:   "Every FAILED delivery of the configuration whose event happened at or after `since` goes out again as a new series of attempts: 202 with how many. A second call with nothing newly failed requeues 0. 404 GAME_NOT_FOUND, WEBHOOK_CONFIG_NOT_FOUND; 400 VALIDATION_FAILED.",
		DefaultStatus: http.StatusAccepted,
		Errors:        []int{http.StatusBadRequest, http.StatusNotFound},
	}, members.Developer), a.recoverWebhook)
	huma.Register(a.s.StudioAPI, a.webhookOp(huma.Operation{
		OperationID: "studio-test-webhook",
		Method:      http.MethodPost,
		Path:        webhooksBase + "/configs/{configId}/test",
		Summary:     "Send a test event",
		Description: "Sends one synthetic event to the configuration at once and answers the outcome; it changes no balance, delivery or stat. 404 GAME_NOT_FOUND, WEBHOOK_CONFIG_NOT_FOUND; 400 VALIDATION_FAILED.",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound},
	}, members.Developer), a.testWebhook)
	huma.Register(a.s.StudioAPI, a.webhookOp(huma.Operation{
		OperationID: "studio-list-deliveries",
		Method:      http.MethodGet,
		Path:        webhooksBase + "/deliveries",
		Summary:     "Webhook deliveries",
		Description: "The studio's deliveries of the environment, newest first, by status and event type: `{data, pagination: {total, limit, skip, hasMore}}`. 404 GAME_NOT_FOUND; 400 VALIDATION_FAILED.",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound},
	}, members.Viewer), a.listDeliveries)
	huma.Register(a.s.StudioAPI, a.webhookOp(huma.Operation{
		OperationID:   "studio-resend-delivery",
		Method:        http.MethodPost,
		Path:          webhooksBase + "/deliveries/{deliveryId}/resend",
		Summary:       "Resend a delivery",
		Description:   "The same event (same X-Service-Event-ID and body, a new signature time) goes out again as a new series of attempts: 202 with the new delivery, PENDING. 404 GAME_NOT_FOUND, DELIVERY_NOT_FOUND.",
		DefaultStatus: http.StatusAccepted,
		Errors:        []int{http.StatusNotFound},
	}, members.Developer), a.resendDelivery)
	huma.Register(a.s.StudioAPI, a.webhookOp(huma.Operation{
		OperationID: "studio-webhook-stats",
		Method:      http.MethodGet,
		Path:        webhooksBase + "/stats",
		Summary:     "Webhook delivery stats",
		Description: "Deliveries in all, delivered, failed and the success rate, of the studio in the environment. 404 GAME_NOT_FOUND.",
		Errors:      []int{http.StatusNotFound},
	}, members.Viewer), a.webhookStats)
}

// configIDs parses the game and configuration ids of a path.
func configIDs(game, config string) (uuid.UUID, uuid.UUID, error) {
	g, err := gameID(game)
	if err != nil {
		return g, uuid.Nil, err
	}
	c, err := httpapi.ParseID(config, webhooks.ErrConfigNotFound)
	return g, c, err
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

func (a *api) listWebhooks(ctx context.Context, in *webhookPath) (*configsOutput, error) {
	g, err := gameID(in.GameID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	list, err := a.console.WebhookConfigs(ctx, principal(ctx), g, env(in.Environment))
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &configsOutput{Body: httpapi.Map(list, toConfigBody)}, nil
}

func (a *api) configureWebhook(ctx context.Context, in *configureInput) (*configOutput, error) {
	g, err := gameID(in.GameID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	ch := webhooks.Change{URL: &in.Body.WebhookURL, SubscribedEvents: &in.Body.SubscribedEvents, IsActive: in.Body.IsActive}
	if in.Body.ExcludedReasons != nil {
		ch.ExcludedReasons = &in.Body.ExcludedReasons
	}
	if ch.PartnerWalletLowThreshold, err = threshold(ctx, in.Body.PartnerWalletLowThreshold); err != nil {
		return nil, err
	}
	c, created, err := a.console.ConfigureWebhook(ctx, principal(ctx), g, env(in.Environment), ch)
	if err != nil {
		return nil, fail(ctx, err)
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return &configOutput{Status: status, Body: toConfigBody(c)}, nil
}

func (a *api) getWebhook(ctx context.Context, in *configPath) (*configOutput, error) {
	g, id, err := configIDs(in.GameID, in.ConfigID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	c, err := a.console.WebhookConfig(ctx, principal(ctx), g, env(in.Environment), id)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &configOutput{Status: http.StatusOK, Body: toConfigBody(c)}, nil
}

func (a *api) updateWebhook(ctx context.Context, in *updateConfigInput) (*configOutput, error) {
	g, id, err := configIDs(in.GameID, in.ConfigID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	ch := webhooks.Change{URL: in.Body.WebhookURL, SubscribedEvents: in.Body.SubscribedEvents,
		ExcludedReasons: in.Body.ExcludedReasons, IsActive: in.Body.IsActive}
	if ch.PartnerWalletLowThreshold, err = threshold(ctx, in.Body.PartnerWalletLowThreshold); err != nil {
		return nil, err
	}
	c, err := a.console.UpdateWebhook(ctx, principal(ctx), g, env(in.Environment), id, ch)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &configOutput{Status: http.StatusOK, Body: toConfigBody(c)}, nil
}

func (a *api) deleteWebhook(ctx context.Context, in *configPath) (*struct{}, error) {
	g, id, err := configIDs(in.GameID, in.ConfigID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	if err := a.console.DeleteWebhook(ctx, principal(ctx), g, env(in.Environment), id); err != nil {
		return nil, fail(ctx, err)
	}
	return nil, nil
}

func (a *api) rotateWebhookSecret(ctx context.Context, in *rotateInput) (*rotationOutput, error) {
	g, id, err := configIDs(in.GameID, in.ConfigID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	grace := webhooks.DefaultGrace
	if in.Body.GraceMinutes != nil {
		grace = time.Duration(*in.Body.GraceMinutes) * time.Minute
	}
	c, err := a.console.RotateWebhookSecret(ctx, principal(ctx), g, env(in.Environment), id, grace)
	if err != nil {
		return nil, fail(ctx, err)
	}
	b := wh.RotationBody{SigningSecret: c.Secret}
	if c.PreviousExpiresAt != nil {
		b.PreviousSecretExpiresAt = *c.PreviousExpiresAt
	}
	return &rotationOutput{Body: b}, nil
}

func (a *api) recoverWebhook(ctx context.Context, in *recoverInput) (*recoverOutput, error) {
	g, id, err := configIDs(in.GameID, in.ConfigID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	n, err := a.console.RecoverWebhook(ctx, principal(ctx), g, env(in.Environment), id, in.Body.Since)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &recoverOutput{Body: wh.RecoverBody{Requeued: n}}, nil
}

func (a *api) testWebhook(ctx context.Context, in *testInput) (*testOutput, error) {
	g, id, err := configIDs(in.GameID, in.ConfigID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	r, err := a.console.SendTestWebhook(ctx, principal(ctx), g, env(in.Environment), id, in.Body.EventType)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &testOutput{Body: wh.TestResultBody{Delivered: r.Delivered, HTTPStatusCode: r.HTTPStatus, ErrorMessage: r.Error,
		DurationMs: r.Duration.Milliseconds()}}, nil
}

func (a *api) listDeliveries(ctx context.Context, in *deliveriesInput) (*deliveriesOutput, error) {
	g, err := gameID(in.GameID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	list, total, err := a.console.WebhookDeliveries(ctx, principal(ctx), g, env(in.Environment),
		webhooks.DeliveryFilter{Status: in.Status, EventType: in.EventType, Limit: in.Limit, Skip: in.Skip})
	if err != nil {
		return nil, fail(ctx, err)
	}
	page := wh.DeliveryPage{Data: httpapi.Map(list, toDeliveryBody)}
	page.Pagination.Total, page.Pagination.Limit, page.Pagination.Skip = total, in.Limit, in.Skip
	page.Pagination.HasMore = int64(in.Skip+len(list)) < total
	return &deliveriesOutput{Body: page}, nil
}

func (a *api) resendDelivery(ctx context.Context, in *deliveryPath) (*resendOutput, error) {
	g, err := gameID(in.GameID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	id, err := httpapi.ParseID(in.DeliveryID, webhooks.ErrDeliveryNotFound)
	if err != nil {
		return nil, fail(ctx, err)
	}
	newID, err := a.console.ResendDelivery(ctx, principal(ctx), g, env(in.Environment), id)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &resendOutput{Body: wh.ResendBody{DeliveryID: newID, Status: "PENDING"}}, nil
}

func (a *api) webhookStats(ctx context.Context, in *webhookPath) (*statsOutput, error) {
	g, err := gameID(in.GameID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	s, err := a.console.WebhookStats(ctx, principal(ctx), g, env(in.Environment))
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &statsOutput{Body: wh.WebhookStatsBody{TotalEvents: s.Total, DeliveredEvents: s.Delivered, FailedEvents: s.Failed,
		SuccessRate: s.SuccessRate()}}, nil
}
