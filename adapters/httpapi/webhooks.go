package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/webhooks"
)

const tagWebhooks = "Webhooks"

// Envelope is the success body of the partner, touchpoint and webhook-management APIs.
type Envelope[T any] struct {
	Data       T         `json:"data" doc:"The payload"`
	StatusCode int       `json:"statusCode" doc:"HTTP status code" example:"200"`
	Message    string    `json:"message" doc:"What happened" example:"OK"`
	RequestID  string    `json:"requestId" doc:"The request id"`
	Timestamp  time.Time `json:"timestamp" doc:"When the answer was made"`
}

func envelope[T any](ctx context.Context, status int, message string, data T) Envelope[T] {
	return Envelope[T]{Data: data, StatusCode: status, Message: message, RequestID: requestIDFrom(ctx), Timestamp: time.Now().UTC()}
}

// WebhookConfigBody is a webhook configuration.
type WebhookConfigBody struct {
	ID               uuid.UUID `json:"id" doc:"Configuration id"`
	StudioID         uuid.UUID `json:"studioId" doc:"The studio of the API key"`
	WebhookURL       string    `json:"webhookUrl" doc:"HTTPS endpoint receiving events"`
	SubscribedEvents []string  `json:"subscribedEvents" doc:"Event types delivered"`
	ExcludedReasons  []string  `json:"excludedReasons" doc:"Reasons suppressed server-side"`
	Environment      string    `json:"environment" enum:"PRODUCTION,DEVELOPMENT" doc:"PRODUCTION on the live hosts, DEVELOPMENT on the development hosts"`
	IsActive         bool      `json:"isActive" doc:"false stops deliveries without deleting"`
	SigningSecret    string    `json:"signingSecret" doc:"In full only in the answer that created the configuration; masked afterwards"`
	CreatedAt        time.Time `json:"createdAt" doc:"When it was created"`
}

func toWebhookConfigBody(c webhooks.Config) WebhookConfigBody {
	env := "DEVELOPMENT"
	if c.Environment == "live" {
		env = "PRODUCTION"
	}
	secret := c.MaskedSecret()
	if c.Secret != "" {
		secret = c.Secret
	}
	return WebhookConfigBody{ID: c.ID, StudioID: c.StudioID, WebhookURL: c.URL, SubscribedEvents: c.SubscribedEvents,
		ExcludedReasons: c.ExcludedReasons, Environment: env, IsActive: c.IsActive, SigningSecret: secret, CreatedAt: c.CreatedAt}
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
	Event          struct {
		ID            uuid.UUID `json:"id" doc:"Event id"`
		EventType     string    `json:"eventType" doc:"Event type"`
		TransactionID uuid.UUID `json:"transactionId" doc:"The coin transaction"`
		CreatedAt     time.Time `json:"createdAt" doc:"When the event happened"`
	} `json:"event"`
}

// DeliveryPage is the delivery list with its pagination.
type DeliveryPage struct {
	Data       []DeliveryBody `json:"data" doc:"Deliveries, newest first"`
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

type studioQuery struct {
	StudioID string `query:"studioId" format:"uuid" doc:"Optional; must be the API key's studio (403 STUDIO_MISMATCH)"`
}

type configureBody struct {
	WebhookURL       string   `json:"webhookUrl" minLength:"1" maxLength:"2048" doc:"HTTPS endpoint; must resolve to a public address" example:"https://hooks.example.com/rewards"`
	SubscribedEvents []string `json:"subscribedEvents" minItems:"1" doc:"COINS_CREDITED, COINS_DEBITED, COINS_REFUNDED"`
	Environment      string   `json:"environment" enum:"PRODUCTION,DEVELOPMENT" doc:"Validated, but the host called decides the environment"`
	ExcludedReasons  []string `json:"excludedReasons,omitempty" maxItems:"50" doc:"Reasons not to send"`
	IsActive         *bool    `json:"isActive,omitempty" doc:"Default true"`
}

type configureInput struct {
	studioQuery
	Body configureBody
}

type configIDInput struct {
	StudioID string `query:"studioId" format:"uuid" doc:"Optional; must be the API key's studio (403 STUDIO_MISMATCH)"`
	ConfigID string `path:"configId" format:"uuid" doc:"Configuration id"`
}

type updateConfigInput struct {
	StudioID string `query:"studioId" format:"uuid" doc:"Optional; must be the API key's studio (403 STUDIO_MISMATCH)"`
	ConfigID string `path:"configId" format:"uuid" doc:"Configuration id"`
	Body     struct {
		WebhookURL       *string   `json:"webhookUrl,omitempty" minLength:"1" maxLength:"2048" doc:"HTTPS endpoint"`
		SubscribedEvents *[]string `json:"subscribedEvents,omitempty" minItems:"1" doc:"Event types"`
		Environment      string    `json:"environment,omitempty" enum:"PRODUCTION,DEVELOPMENT" doc:"Validated; the host decides"`
		ExcludedReasons  *[]string `json:"excludedReasons,omitempty" maxItems:"50" doc:"Reasons not to send"`
		IsActive         *bool     `json:"isActive,omitempty" doc:"false stops deliveries without deleting"`
	}
}

type testInput struct {
	StudioID string `query:"studioId" format:"uuid" doc:"Optional; must be the API key's studio"`
	ConfigID string `query:"configId" format:"uuid" required:"true" doc:"Configuration to send to"`
	Body     struct {
		EventType string `json:"eventType" enum:"COINS_CREDITED,COINS_DEBITED,COINS_REFUNDED" doc:"Type of the synthetic event"`
	}
}

type deliveriesInput struct {
	StudioID  string `query:"studioId" format:"uuid" doc:"Optional; must be the API key's studio"`
	Status    string `query:"status" enum:"SUCCESS,FAILED,PENDING,RETRYING" doc:"Only deliveries with this status"`
	EventType string `query:"eventType" enum:"COINS_CREDITED,COINS_DEBITED,COINS_REFUNDED" doc:"Only this event type"`
	Limit     int    `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Page size, at most 100"`
	Skip      int    `query:"skip" minimum:"0" maximum:"100000000" default:"0" doc:"Offset"`
}

func (a *handlers) scope(ctx context.Context, studioID string) (webhooks.Scope, error) {
	sc, err := webhooks.ScopeOf(callerFrom(ctx), studioID)
	if err != nil {
		return webhooks.Scope{}, webhooksError(ctx, err)
	}
	return sc, nil
}

func (a *handlers) registerWebhooks() {
	tags := []string{tagWebhooks}
	scopeRule := " Configurations belong to the API key's studio and the environment of the host called."

	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "webhooks-configure",
		Method:      http.MethodPost,
		Path:        "/studio-webhooks/configure",
		Summary:     "Create or update a webhook configuration",
		Description: "Creates a configuration (201, with the full signingSecret, shown only here) or, when the studio already has one with this webhookUrl in this environment, updates it (200, secret masked)." + scopeRule + " The URL must be https and resolve to a public address (checked again at every connection). 400 VALIDATION_FAILED; 403 STUDIO_MISMATCH.",
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest, http.StatusForbidden},
	}), func(ctx context.Context, in *configureInput) (*struct {
		Status int
		Body   Envelope[WebhookConfigBody]
	}, error) {
		sc, err := a.scope(ctx, in.StudioID)
		if err != nil {
			return nil, err
		}
		ch := webhooks.Change{URL: &in.Body.WebhookURL, SubscribedEvents: &in.Body.SubscribedEvents, IsActive: in.Body.IsActive}
		if in.Body.ExcludedReasons != nil {
			ch.ExcludedReasons = &in.Body.ExcludedReasons
		}
		c, created, err := a.Webhooks.Configure(ctx, sc, ch)
		if err != nil {
			return nil, webhooksError(ctx, err)
		}
		status, msg := http.StatusOK, "webhook configuration updated"
		if created {
			status, msg = http.StatusCreated, "webhook configuration created"
		}
		return &struct {
			Status int
			Body   Envelope[WebhookConfigBody]
		}{Status: status, Body: envelope(ctx, status, msg, toWebhookConfigBody(c))}, nil
	})

	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "webhooks-list-configs",
		Method:      http.MethodGet,
		Path:        "/studio-webhooks/config",
		Summary:     "List webhook configurations",
		Description: "The studio's configurations in this environment, secrets masked." + scopeRule,
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest, http.StatusForbidden},
	}), func(ctx context.Context, in *studioQuery) (*struct{ Body Envelope[[]WebhookConfigBody] }, error) {
		sc, err := a.scope(ctx, in.StudioID)
		if err != nil {
			return nil, err
		}
		list, err := a.Webhooks.List(ctx, sc)
		if err != nil {
			return nil, webhooksError(ctx, err)
		}
		out := make([]WebhookConfigBody, len(list))
		for i, c := range list {
			out[i] = toWebhookConfigBody(c)
		}
		return &struct{ Body Envelope[[]WebhookConfigBody] }{Body: envelope(ctx, 200, "OK", out)}, nil
	})

	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "webhooks-get-config",
		Method:      http.MethodGet,
		Path:        "/studio-webhooks/config/{configId}",
		Summary:     "Get a webhook configuration",
		Description: "One configuration, secret masked. 404 WEBHOOK_CONFIG_NOT_FOUND for another studio's or environment's id.",
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound},
	}), func(ctx context.Context, in *configIDInput) (*struct{ Body Envelope[WebhookConfigBody] }, error) {
		sc, err := a.scope(ctx, in.StudioID)
		if err != nil {
			return nil, err
		}
		c, err := a.Webhooks.Get(ctx, sc, uuid.MustParse(in.ConfigID))
		if err != nil {
			return nil, webhooksError(ctx, err)
		}
		return &struct{ Body Envelope[WebhookConfigBody] }{Body: envelope(ctx, 200, "OK", toWebhookConfigBody(c))}, nil
	})

	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "webhooks-update-config",
		Method:      http.MethodPut,
		Path:        "/studio-webhooks/config/{configId}",
		Summary:     "Update a webhook configuration",
		Description: "Changes the fields sent. `isActive: false` stops deliveries (queued ones are marked FAILED when their turn comes) without deleting. 404 WEBHOOK_CONFIG_NOT_FOUND; 409 WEBHOOK_URL_CONFLICT when another configuration has the URL.",
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict},
	}), func(ctx context.Context, in *updateConfigInput) (*struct{ Body Envelope[WebhookConfigBody] }, error) {
		sc, err := a.scope(ctx, in.StudioID)
		if err != nil {
			return nil, err
		}
		c, err := a.Webhooks.Update(ctx, sc, uuid.MustParse(in.ConfigID), webhooks.Change{
			URL: in.Body.WebhookURL, SubscribedEvents: in.Body.SubscribedEvents, ExcludedReasons: in.Body.ExcludedReasons, IsActive: in.Body.IsActive})
		if err != nil {
			return nil, webhooksError(ctx, err)
		}
		return &struct{ Body Envelope[WebhookConfigBody] }{Body: envelope(ctx, 200, "webhook configuration updated", toWebhookConfigBody(c))}, nil
	})

	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "webhooks-delete-config",
		Method:      http.MethodDelete,
		Path:        "/studio-webhooks/config/{configId}",
		Summary:     "Delete a webhook configuration",
		Description: "Deletes the configuration and its delivery records; queued deliveries are dropped. 404 WEBHOOK_CONFIG_NOT_FOUND.",
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound},
	}), func(ctx context.Context, in *configIDInput) (*struct{ Body Envelope[map[string]string] }, error) {
		sc, err := a.scope(ctx, in.StudioID)
		if err != nil {
			return nil, err
		}
		if err := a.Webhooks.Delete(ctx, sc, uuid.MustParse(in.ConfigID)); err != nil {
			return nil, webhooksError(ctx, err)
		}
		return &struct{ Body Envelope[map[string]string] }{Body: envelope(ctx, 200, "webhook configuration deleted", map[string]string{"id": in.ConfigID})}, nil
	})

	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "webhooks-test",
		Method:      http.MethodPost,
		Path:        "/studio-webhooks/test",
		Summary:     "Send a test event",
		Description: "Sends one signed synthetic event (user_uuid test-user, reason TEST) to the configuration at once and answers the outcome. It changes no balance, delivery record or stat, and is sent even when the configuration is inactive.",
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound},
	}), func(ctx context.Context, in *testInput) (*struct{ Body Envelope[TestResultBody] }, error) {
		sc, err := a.scope(ctx, in.StudioID)
		if err != nil {
			return nil, err
		}
		res, err := a.Webhooks.SendTest(ctx, sc, callerFrom(ctx), uuid.MustParse(in.ConfigID), in.Body.EventType)
		if err != nil {
			return nil, webhooksError(ctx, err)
		}
		body := TestResultBody{Delivered: res.Delivered, HTTPStatusCode: res.HTTPStatus, ErrorMessage: res.Error, DurationMs: res.Duration.Milliseconds()}
		return &struct{ Body Envelope[TestResultBody] }{Body: envelope(ctx, 200, "test event sent", body)}, nil
	})

	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "webhooks-deliveries",
		Method:      http.MethodGet,
		Path:        "/studio-webhooks/deliveries",
		Summary:     "List deliveries",
		Description: "One record per (event, configuration), newest first, filtered by status and eventType; `limit` default 20, at most 100; `skip` is the offset." + scopeRule,
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest, http.StatusForbidden},
	}), func(ctx context.Context, in *deliveriesInput) (*struct{ Body Envelope[DeliveryPage] }, error) {
		sc, err := a.scope(ctx, in.StudioID)
		if err != nil {
			return nil, err
		}
		list, total, err := a.Webhooks.Deliveries(ctx, sc, webhooks.DeliveryFilter{Status: in.Status, EventType: in.EventType, Limit: in.Limit, Skip: in.Skip})
		if err != nil {
			return nil, webhooksError(ctx, err)
		}
		var page DeliveryPage
		page.Data = make([]DeliveryBody, len(list))
		for i, d := range list {
			b := DeliveryBody{ID: d.ID, EventID: d.EventID, ConfigID: d.ConfigID, AttemptNumber: d.AttemptNumber, Status: d.Status,
				HTTPStatusCode: d.HTTPStatusCode, ErrorMessage: d.ErrorMessage, AttemptedAt: d.AttemptedAt, NextRetryAt: d.NextRetryAt, CreatedAt: d.CreatedAt}
			b.Event.ID, b.Event.EventType, b.Event.TransactionID, b.Event.CreatedAt = d.EventID, d.EventType, d.TransactionID, d.EventCreatedAt
			page.Data[i] = b
		}
		page.Pagination.Total, page.Pagination.Limit, page.Pagination.Skip = total, in.Limit, in.Skip
		page.Pagination.HasMore = int64(in.Skip+len(list)) < total
		return &struct{ Body Envelope[DeliveryPage] }{Body: envelope(ctx, 200, "OK", page)}, nil
	})

	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "webhooks-stats",
		Method:      http.MethodGet,
		Path:        "/studio-webhooks/stats",
		Summary:     "Delivery stats",
		Description: "totalEvents counts deliveries, deliveredEvents those with SUCCESS, failedEvents those FAILED; successRate is delivered/total as a percentage with two decimals." + scopeRule,
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest, http.StatusForbidden},
	}), func(ctx context.Context, in *studioQuery) (*struct{ Body Envelope[WebhookStatsBody] }, error) {
		sc, err := a.scope(ctx, in.StudioID)
		if err != nil {
			return nil, err
		}
		s, err := a.Webhooks.Stats(ctx, sc)
		if err != nil {
			return nil, webhooksError(ctx, err)
		}
		body := WebhookStatsBody{TotalEvents: s.Total, DeliveredEvents: s.Delivered, FailedEvents: s.Failed, SuccessRate: s.SuccessRate()}
		return &struct{ Body Envelope[WebhookStatsBody] }{Body: envelope(ctx, 200, "OK", body)}, nil
	})
}

// webhooksError maps the webhooks module's errors to responses.
func webhooksError(ctx context.Context, err error) *APIError {
	switch {
	case errors.Is(err, webhooks.ErrStudioMismatch):
		return newAPIError(ctx, http.StatusForbidden, "STUDIO_MISMATCH", err.Error())
	case errors.Is(err, webhooks.ErrConfigNotFound):
		return newAPIError(ctx, http.StatusNotFound, "WEBHOOK_CONFIG_NOT_FOUND", err.Error())
	case errors.Is(err, webhooks.ErrURLConflict):
		return newAPIError(ctx, http.StatusConflict, "WEBHOOK_URL_CONFLICT", err.Error())
	case errors.Is(err, webhooks.ErrInvalid):
		return newAPIError(ctx, http.StatusBadRequest, "VALIDATION_FAILED", err.Error())
	default:
		return internal(ctx, err)
	}
}
