package postgres

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
)

// WebhooksRepo is the storage of the webhooks module. The deliveries it adds (resend, recover)
// are rows of the webhook outbox (WebhookOutbox); once they commit it tells jobs, so that they
// are sent at once. On the pool, the attempts it records go to the database together with the
// ones recorded at the same time (attempts.go).
type WebhooksRepo struct {
	conn
	jobs     DeliveryNotifier
	attempts *attemptRecorder
}

var _ webhooks.Repo = (*WebhooksRepo)(nil)

// NewWebhooksStore returns the storage of the webhooks module on d, telling jobs of the
// deliveries it adds.
func NewWebhooksStore(d *DB, jobs DeliveryNotifier) store.Of[webhooks.Repo] {
	attempts := newAttemptRecorder(d)
	return newModuleStore(d, func(c conn) webhooks.Repo { return &WebhooksRepo{conn: c, jobs: jobs, attempts: attempts} })
}

func toCoreConfig(r db.WebhookConfig) webhooks.Config {
	c := webhooks.Config{
		ID: r.ID, StudioID: r.StudioID, Environment: studio.Environment(r.Environment), URL: r.WebhookUrl,
		SubscribedEvents: r.SubscribedEvents, ExcludedReasons: r.ExcludedReasons, IsActive: r.IsActive,
		Sealed: r.SecretSealed, SecretLast4: r.SecretLast4, PreviousSealed: r.PreviousSecretSealed,
		PreviousExpiresAt: r.PreviousSecretExpiresAt, ActiveSince: r.ActiveSince, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	if r.PartnerWalletLowThreshold != nil {
		t := money.Amount(*r.PartnerWalletLowThreshold)
		c.PartnerWalletLowThreshold = &t
	}
	if r.DisabledReason != nil {
		c.DisabledReason = *r.DisabledReason
	}
	return c
}

func configResult(r db.WebhookConfig, err error, what string) (webhooks.Config, error) {
	if isNoRows(err) {
		return webhooks.Config{}, webhooks.ErrConfigNotFound
	}
	if pgCode(err) == "23505" {
		return webhooks.Config{}, webhooks.ErrURLConflict
	}
	if err != nil {
		return webhooks.Config{}, fmt.Errorf("%s: %w", what, err)
	}
	return toCoreConfig(r), nil
}

// LockScope implements webhooks.Repo with a transaction-scoped advisory lock.
func (r *WebhooksRepo) LockScope(ctx context.Context, s webhooks.Scope) error {
	if r.tx == nil {
		// Outside a transaction the lock would be released as soon as it was taken.
		return fmt.Errorf("lock webhook configurations of %s: not in a transaction", s.StudioID)
	}
	if err := r.q.WebhooksLockScope(ctx, db.WebhooksLockScopeParams{StudioID: s.StudioID.String(), Environment: string(s.Environment)}); err != nil {
		return fmt.Errorf("lock webhook configurations of %s: %w", s.StudioID, err)
	}
	return nil
}

// InsertConfig implements webhooks.Repo.
func (r *WebhooksRepo) InsertConfig(ctx context.Context, c webhooks.Config) (webhooks.Config, bool, error) {
	row, err := r.q.WebhooksInsertConfig(ctx, db.WebhooksInsertConfigParams{
		StudioID: c.StudioID, Environment: string(c.Environment), WebhookUrl: c.URL, SubscribedEvents: c.SubscribedEvents,
		ExcludedReasons: c.ExcludedReasons, IsActive: c.IsActive, SecretSealed: c.Sealed, SecretLast4: c.SecretLast4,
		ActiveSince: c.ActiveSince, PartnerWalletLowThreshold: (*int64)(c.PartnerWalletLowThreshold),
	})
	if isNoRows(err) {
		existing, err := r.GetConfigByURL(ctx, webhooks.Scope{StudioID: c.StudioID, Environment: c.Environment}, c.URL)
		return existing, false, err
	}
	out, err := configResult(row, err, "insert webhook config")
	return out, err == nil, err
}

// GetConfigByURL implements webhooks.Repo.
func (r *WebhooksRepo) GetConfigByURL(ctx context.Context, s webhooks.Scope, url string) (webhooks.Config, error) {
	row, err := r.q.WebhooksGetConfigByURL(ctx, db.WebhooksGetConfigByURLParams{StudioID: s.StudioID, Environment: string(s.Environment), WebhookUrl: url})
	return configResult(row, err, "get webhook config by url")
}

// GetConfig implements webhooks.Repo.
func (r *WebhooksRepo) GetConfig(ctx context.Context, s webhooks.Scope, id uuid.UUID) (webhooks.Config, error) {
	row, err := r.q.WebhooksGetConfig(ctx, db.WebhooksGetConfigParams{ID: id, StudioID: s.StudioID, Environment: string(s.Environment)})
	return configResult(row, err, "get webhook config")
}

// ListConfigs implements webhooks.Repo.
func (r *WebhooksRepo) ListConfigs(ctx context.Context, s webhooks.Scope) ([]webhooks.Config, error) {
	rows, err := r.q.WebhooksListConfigs(ctx, db.WebhooksListConfigsParams{StudioID: s.StudioID, Environment: string(s.Environment)})
	return toCoreAll(rows, err, toCoreConfig, "list webhook configs")
}

// UpdateConfig implements webhooks.Repo.
func (r *WebhooksRepo) UpdateConfig(ctx context.Context, c webhooks.Config, at time.Time) (webhooks.Config, error) {
	row, err := r.q.WebhooksUpdateConfig(ctx, db.WebhooksUpdateConfigParams{
		ID: c.ID, StudioID: c.StudioID, Environment: string(c.Environment), WebhookUrl: c.URL,
		SubscribedEvents: c.SubscribedEvents, ExcludedReasons: c.ExcludedReasons, IsActive: c.IsActive, Now: at,
		PartnerWalletLowThreshold: (*int64)(c.PartnerWalletLowThreshold),
	})
	return configResult(row, err, "update webhook config")
}

// RotateSecret implements webhooks.Repo.
func (r *WebhooksRepo) RotateSecret(ctx context.Context, s webhooks.Scope, id uuid.UUID, sealed []byte, last4 string, previousExpiresAt time.Time) (webhooks.Config, error) {
	row, err := r.q.WebhooksRotateSecret(ctx, db.WebhooksRotateSecretParams{
		ID: id, StudioID: s.StudioID, Environment: string(s.Environment), SecretSealed: sealed, SecretLast4: last4,
		PreviousExpiresAt: previousExpiresAt,
	})
	return configResult(row, err, "rotate webhook secret")
}

// DisableFailing implements webhooks.Repo in one statement (WebhooksDisableFailing).
func (r *WebhooksRepo) DisableFailing(ctx context.Context, configID *uuid.UUID, windowStart time.Time, minFailed int, reason string) ([]webhooks.Config, error) {
	rows, err := r.q.WebhooksDisableFailing(ctx, db.WebhooksDisableFailingParams{
		ConfigID: configID, WindowStart: windowStart, MinFailed: int32(minFailed), Reason: reason,
	})
	return toCoreAll(rows, err, toCoreConfig, "disable failing webhook configs")
}

// FindDelivery implements webhooks.Repo.
func (r *WebhooksRepo) FindDelivery(ctx context.Context, s webhooks.Scope, id uuid.UUID) (webhooks.Found, error) {
	row, err := r.q.WebhooksGetScopedDelivery(ctx, db.WebhooksGetScopedDeliveryParams{ID: id, StudioID: s.StudioID, Environment: string(s.Environment)})
	if isNoRows(err) {
		return webhooks.Found{}, webhooks.ErrDeliveryNotFound
	}
	if err != nil {
		return webhooks.Found{}, fmt.Errorf("find delivery %s: %w", id, err)
	}
	return webhooks.Found{ID: row.ID, EventID: row.EventID, ConfigID: row.ConfigID, ConfigActive: row.IsActive}, nil
}

// queue tells the dispatcher of deliveries ids once they commit; the rows themselves are what
// is owed, so a lost notice only delays them until the dispatcher's next look.
func (r *WebhooksRepo) queue(_ context.Context, what string, ids []uuid.UUID) error {
	if r.tx == nil || r.jobs == nil {
		return fmt.Errorf("%s: needs a transaction and a delivery queue", what)
	}
	if len(ids) > 0 {
		r.onCommit(r.jobs.DeliveriesAdded)
	}
	return nil
}

// Resend implements webhooks.Repo.
func (r *WebhooksRepo) Resend(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	if err := r.queue(ctx, "resend", nil); err != nil {
		return uuid.Nil, err
	}
	newID, err := r.q.WebhooksResend(ctx, id)
	if isNoRows(err) {
		return uuid.Nil, webhooks.ErrDeliveryNotFound
	}
	if err != nil {
		return uuid.Nil, fmt.Errorf("resend delivery %s: %w", id, err)
	}
	return newID, r.queue(ctx, "resend", []uuid.UUID{newID})
}

// Recover implements webhooks.Repo in one statement (WebhooksRecover), which takes the failed
// deliveries and adds the new ones.
func (r *WebhooksRepo) Recover(ctx context.Context, configID uuid.UUID, since, at time.Time, limit int) (int, error) {
	if err := r.queue(ctx, "recover", nil); err != nil {
		return 0, err
	}
	ids, err := r.q.WebhooksRecover(ctx, db.WebhooksRecoverParams{ConfigID: configID, Since: since, At: at, Lim: int32(limit)})
	if err != nil {
		return 0, fmt.Errorf("recover deliveries of %s: %w", configID, err)
	}
	return len(ids), r.queue(ctx, "recover", ids)
}

// DeleteConfig implements webhooks.Repo.
func (r *WebhooksRepo) DeleteConfig(ctx context.Context, s webhooks.Scope, id uuid.UUID) error {
	n, err := r.q.WebhooksDeleteConfig(ctx, db.WebhooksDeleteConfigParams{ID: id, StudioID: s.StudioID, Environment: string(s.Environment)})
	if err != nil {
		return fmt.Errorf("delete webhook config: %w", err)
	}
	if n == 0 {
		return webhooks.ErrConfigNotFound
	}
	return nil
}

// PendingDelivery implements webhooks.Repo.
func (r *WebhooksRepo) PendingDelivery(ctx context.Context, id uuid.UUID) (webhooks.Pending, error) {
	row, err := r.q.WebhooksGetDelivery(ctx, id)
	if isNoRows(err) {
		return webhooks.Pending{}, webhooks.ErrDeliveryGone
	}
	if err != nil {
		return webhooks.Pending{}, fmt.Errorf("get delivery %s: %w", id, err)
	}
	return toCorePending(db.WebhooksClaimDueRow(row)), nil
}

// toCorePending is a claimed delivery: of a coin event, with its fields; of another event, with
// the body it was stored with.
func toCorePending(row db.WebhooksClaimDueRow) webhooks.Pending {
	p := webhooks.Pending{
		DeliveryID: row.ID, ConfigID: row.ConfigID, Status: row.Status, AttemptNumber: int(row.AttemptNumber), URL: row.WebhookUrl,
		ConfigActive: row.IsActive, Sealed: row.SecretSealed, PreviousSealed: row.PreviousSecretSealed, PreviousExpiresAt: row.PreviousSecretExpiresAt,
		Payload: webhooks.Payload{
			EventID: row.EventID.String(), EventType: row.EventType, Timestamp: row.EventCreatedAt.UTC().Format(time.RFC3339Nano),
		},
	}
	if row.Body != nil {
		p.Body = row.Body
		return p
	}
	p.Payload.AppID, p.Payload.UserUUID, p.Payload.CoinID = deref(row.GameID).String(), deref(row.UserUuid), deref(row.CoinID).String()
	p.Payload.Delta, p.Payload.NewBalance, p.Payload.Sequence = deref(row.Delta), deref(row.NewBalance), deref(row.Sequence)
	p.Payload.ReferenceID, p.Payload.Reason = deref(row.ReferenceID), deref(row.Reason)
	return p
}

// RecordAttempt implements webhooks.Repo. On the pool it waits for the statement that records
// it with the attempts recorded at the same time (attemptRecorder).
func (r *WebhooksRepo) RecordAttempt(ctx context.Context, id uuid.UUID, status string, attemptNo int, httpStatus *int, errMsg *string, at time.Time, next *time.Time) error {
	a := &recordedAttempt{id: id, status: status, attemptNo: attemptNo, httpStatus: httpStatus, errMsg: errMsg, at: at, next: next}
	if r.tx == nil && r.attempts != nil {
		return r.attempts.record(ctx, a)
	}
	if err := r.q.WebhooksRecordAttempts(ctx, attemptsParams([]*recordedAttempt{a})); err != nil {
		return fmt.Errorf("record attempt of %s: %w", id, err)
	}
	return nil
}

// ListDeliveries implements webhooks.Repo.
func (r *WebhooksRepo) ListDeliveries(ctx context.Context, s webhooks.Scope, f webhooks.DeliveryFilter) ([]webhooks.Delivery, int64, error) {
	var status, eventType *string
	if f.Status != "" {
		status = &f.Status
	}
	if f.EventType != "" {
		eventType = &f.EventType
	}
	rows, err := r.q.WebhooksListDeliveries(ctx, db.WebhooksListDeliveriesParams{
		StudioID: s.StudioID, Environment: string(s.Environment), Status: status, EventType: eventType, Lim: int32(f.Limit), Off: int32(f.Skip),
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list deliveries: %w", err)
	}
	total, err := r.q.WebhooksCountDeliveries(ctx, db.WebhooksCountDeliveriesParams{
		StudioID: s.StudioID, Environment: string(s.Environment), Status: status, EventType: eventType,
	})
	if err != nil {
		return nil, 0, fmt.Errorf("count deliveries: %w", err)
	}
	out := make([]webhooks.Delivery, len(rows))
	for i, d := range rows {
		out[i] = webhooks.Delivery{
			ID: d.ID, EventID: deref(cmp.Or(d.EventID, d.WebhookEventID)), ConfigID: d.ConfigID, EventType: d.EventType, TransactionID: d.TransactionID,
			EventCreatedAt: d.EventCreatedAt, Status: d.Status, AttemptNumber: int(d.AttemptNumber), ErrorMessage: d.ErrorMessage,
			AttemptedAt: d.AttemptedAt, NextRetryAt: d.NextRetryAt, CreatedAt: d.CreatedAt,
		}
		if d.HttpStatusCode != nil {
			c := int(*d.HttpStatusCode)
			out[i].HTTPStatusCode = &c
		}
	}
	return out, total, nil
}

// Stats implements webhooks.Repo.
func (r *WebhooksRepo) Stats(ctx context.Context, s webhooks.Scope) (webhooks.Stats, error) {
	row, err := r.q.WebhooksStats(ctx, db.WebhooksStatsParams{StudioID: s.StudioID, Environment: string(s.Environment)})
	if err != nil {
		return webhooks.Stats{}, fmt.Errorf("webhook stats: %w", err)
	}
	return webhooks.Stats{Total: row.Total, Delivered: row.Delivered, Failed: row.Failed}, nil
}
