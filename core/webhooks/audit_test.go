package webhooks_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/audit/auditfake"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
	"github.com/rewardsco/rewards/core/webhooks/webhooksfake"
)

// testAudit is an audit log for tests that do not read it.
func testAudit() *audit.Log {
	log, _ := auditfake.NewLog(&memstore.Runner{}, nil)
	return log
}

// notes is a Notifier that keeps what it is told.
type notes struct {
	mu   sync.Mutex
	sent []string
	fail bool
}

func (n *notes) NotifyOwners(_ context.Context, studioID uuid.UUID, subject, text string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fail {
		return errors.New("mail is down")
	}
	n.sent = append(n.sent, studioID.String()+" "+subject+"\n"+text)
	return nil
}

type auditBundle struct {
	svc     *webhooks.Service
	repo    *webhooksfake.Repo
	entries *auditfake.Repo
	notes   *notes
	clk     *manualClock
	sc      webhooks.Scope
	ctx     context.Context
	actor   audit.Actor
}

func setupAudit(t *testing.T) auditBundle {
	t.Helper()
	runner, repo := &memstore.Runner{}, webhooksfake.New()
	log, entries := auditfake.NewLog(runner, nil)
	b := auditBundle{repo: repo, entries: entries, notes: &notes{}, clk: &manualClock{now: time.Now()},
		sc:    webhooks.Scope{StudioID: uuid.New(), Environment: studio.Test},
		actor: audit.Actor{Kind: audit.APIKey, Name: "api key rk_test_…a1b2", IP: "203.0.113.5", UserAgent: "game-server/1"}}
	b.ctx = audit.WithActor(context.Background(), b.actor)
	svc, err := webhooks.NewService(memstore.New[webhooks.Repo](runner, repo), webhooks.Options{SecretKey: make([]byte, 32),
		RetryDelays: delays, Transport: &scriptedTransport{answers: []int{500}}, Now: b.clk.Now, Audit: log, Notifier: b.notes})
	require.NoError(t, err)
	b.svc = svc
	return b
}

func (b auditBundle) actions() []string {
	out := []string{}
	for _, e := range b.entries.Entries() {
		out = append(out, e.Action)
	}
	return out
}

// Every change of a configuration, and each resend, recover and test, writes its entry with the
// actor of the context, the scope's studio and environment, and never the signing secret or the
// address's query.
func TestWebhookChangesAreAudited(t *testing.T) {
	t.Parallel()
	b := setupAudit(t)
	url, events := "https://hooks.example.com/in?token=hunter2", []string{"COINS_CREDITED"}
	cfg, created, err := b.svc.Configure(b.ctx, b.sc, webhooks.Change{URL: &url, SubscribedEvents: &events})
	require.NoError(t, err)
	require.True(t, created)
	_, created, err = b.svc.Configure(b.ctx, b.sc, webhooks.Change{URL: &url, SubscribedEvents: &[]string{"COINS_DEBITED"}})
	require.NoError(t, err)
	require.False(t, created)
	off := false
	_, err = b.svc.Update(b.ctx, b.sc, cfg.ID, webhooks.Change{IsActive: &off})
	require.NoError(t, err)
	on := true
	_, err = b.svc.Update(b.ctx, b.sc, cfg.ID, webhooks.Change{IsActive: &on})
	require.NoError(t, err)
	rotated, err := b.svc.RotateSecret(b.ctx, b.sc, cfg.ID, 90*time.Minute)
	require.NoError(t, err)
	delivery, err := b.repo.AddDelivery(cfg.ID, webhooksfake.Event{Type: "COINS_CREDITED"})
	require.NoError(t, err)
	_, err = b.svc.Resend(b.ctx, b.sc, delivery)
	require.NoError(t, err)
	_, err = b.svc.Recover(b.ctx, b.sc, cfg.ID, b.clk.Now().Add(-time.Hour))
	require.NoError(t, err)
	_, err = b.svc.SendTest(b.ctx, b.sc, studio.Caller{GameID: uuid.New()}, cfg.ID, "COINS_CREDITED")
	require.NoError(t, err)
	require.NoError(t, b.svc.Delete(b.ctx, b.sc, cfg.ID))

	require.Equal(t, []string{"webhook_config.create", "webhook_config.update", "webhook_config.update", "webhook_config.update",
		"webhook_secret.rotate", "webhook_delivery.resend", "webhook_config.recover", "webhook_config.test", "webhook_config.delete"}, b.actions())
	all := b.entries.Entries()
	for _, e := range all {
		require.Equal(t, b.sc.StudioID, e.StudioID)
		require.Equal(t, "test", e.Environment)
		require.Equal(t, b.actor, e.Actor)
		for k, v := range e.Details {
			require.NotContains(t, v, "hunter2", k)
			require.NotContains(t, v, cfg.Secret, k)
			require.NotContains(t, v, rotated.Secret, k)
		}
	}
	require.Equal(t, map[string]string{"url": "https://hooks.example.com/in", "active": "true", "events": "COINS_CREDITED"}, all[0].Details)
	require.Equal(t, cfg.ID.String(), all[0].TargetID)
	require.Equal(t, "false", all[2].Details["active"])
	require.Equal(t, map[string]string{"graceMinutes": "90"}, all[4].Details)
	require.Equal(t, "webhook_delivery", all[5].TargetType)
	require.Equal(t, delivery.String(), all[5].TargetID)
}

// A change that fails writes no entry.
func TestAFailedWebhookChangeWritesNoEntry(t *testing.T) {
	t.Parallel()
	b := setupAudit(t)
	url, events := "https://hooks.example.com/in", []string{"COINS_CREDITED"}
	cfg, _, err := b.svc.Configure(b.ctx, b.sc, webhooks.Change{URL: &url, SubscribedEvents: &events})
	require.NoError(t, err)
	other := webhooks.Scope{StudioID: uuid.New(), Environment: studio.Test}
	_, err = b.svc.Update(b.ctx, other, cfg.ID, webhooks.Change{URL: &url})
	require.ErrorIs(t, err, webhooks.ErrConfigNotFound)
	_, err = b.svc.Update(b.ctx, b.sc, cfg.ID, webhooks.Change{SubscribedEvents: &[]string{"NOT_AN_EVENT"}})
	require.Error(t, err)
	require.ErrorIs(t, b.svc.Delete(b.ctx, other, cfg.ID), webhooks.ErrConfigNotFound)
	_, err = b.svc.RotateSecret(b.ctx, other, cfg.ID, time.Minute)
	require.ErrorIs(t, err, webhooks.ErrConfigNotFound)
	_, err = b.svc.Resend(b.ctx, b.sc, uuid.New())
	require.ErrorIs(t, err, webhooks.ErrDeliveryNotFound)
	require.Equal(t, []string{"webhook_config.create"}, b.actions())
}

// The auto-disable rule writes its entry as the service's own, and tells the studio's owners
// once the change committed.
func TestAutoDisableIsAuditedAndTold(t *testing.T) {
	t.Parallel()
	b := setupAudit(t)
	url, events := "https://hooks.example.com/in?token=hunter2", []string{"COINS_CREDITED"}
	cfg, _, err := b.svc.Configure(b.ctx, b.sc, webhooks.Change{URL: &url, SubscribedEvents: &events})
	require.NoError(t, err)
	b.clk.Advance(webhooks.DisableAfter + time.Hour)
	for range webhooks.DisableMinFailed {
		id, err := b.repo.AddDelivery(cfg.ID, webhooksfake.Event{Type: "COINS_CREDITED"})
		require.NoError(t, err)
		require.NoError(t, b.repo.RecordAttempt(b.ctx, id, webhooks.StatusFailed, webhooks.MaxAttempts, nil, nil, b.clk.Now(), nil))
	}
	b.clk.Advance(time.Minute)
	ids, err := b.svc.DisableFailing(context.Background())
	require.NoError(t, err)
	require.Equal(t, []uuid.UUID{cfg.ID}, ids)

	all := b.entries.Entries()
	e := all[len(all)-1]
	require.Equal(t, "webhook_config.disable", e.Action)
	require.Equal(t, audit.System, e.Actor.Kind)
	require.Equal(t, b.sc.StudioID, e.StudioID)
	require.Equal(t, cfg.ID.String(), e.TargetID)
	require.Equal(t, webhooks.DisabledReasonFailing, e.Details["reason"])
	require.Len(t, b.notes.sent, 1)
	require.True(t, strings.HasPrefix(b.notes.sent[0], b.sc.StudioID.String()+" Webhook switched off"), b.notes.sent[0])
	require.NotContains(t, b.notes.sent[0], "hunter2")

	// Nothing more to switch off: no entry, no word.
	_, err = b.svc.DisableFailing(context.Background())
	require.NoError(t, err)
	require.Len(t, b.entries.Entries(), len(all))
	require.Len(t, b.notes.sent, 1)
}
