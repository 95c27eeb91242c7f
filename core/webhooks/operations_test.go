package webhooks_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
	"github.com/rewardsco/rewards/core/webhooks/webhooksfake"
)

func TestSignAllVerifiesWithEitherSecret(t *testing.T) {
	t.Parallel()
	body := []byte(`{"event_id":"e"}`)
	header := webhooks.SignAll([]string{"whsec_new", "whsec_old"}, time.Now(), body)
	require.Regexp(t, `^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$`, header)
	require.NoError(t, webhook.ValidatePayload(body, header, "whsec_new"))
	require.NoError(t, webhook.ValidatePayload(body, header, "whsec_old"))
	require.Error(t, webhook.ValidatePayload(body, header, "whsec_other"))
	require.Equal(t, webhooks.Sign("whsec_new", time.Unix(100, 0), body), webhooks.SignAll([]string{"whsec_new"}, time.Unix(100, 0), body))
}

// manualClock is a clock the test sets.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestDisableFailingRule: the rule switches a configuration off only when it has been active
// for the whole window, nothing succeeded in it and DisableMinFailed deliveries failed in it.
func TestDisableFailingRule(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		activeFor time.Duration // before the failures are recorded
		failed    int
		succeeded bool
		disabled  bool
	}{
		{"20 failed in 5 days", webhooks.DisableAfter, webhooks.DisableMinFailed, false, true},
		{"19 failed", webhooks.DisableAfter, webhooks.DisableMinFailed - 1, false, false},
		{"one success in the window", webhooks.DisableAfter, webhooks.DisableMinFailed, true, false},
		{"active for less than the window", webhooks.DisableAfter - time.Hour, webhooks.DisableMinFailed, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			clk := &manualClock{now: time.Now()}
			repo := webhooksfake.New()
			svc, err := webhooks.NewService(memstore.New[webhooks.Repo](&memstore.Runner{}, repo),
				webhooks.Options{SecretKey: make([]byte, 32), RetryDelays: delays, Transport: &scriptedTransport{}, Now: clk.Now, Audit: testAudit()})
			require.NoError(t, err)
			sc := webhooks.Scope{StudioID: uuid.New(), Environment: studio.Test}
			url, events := "https://hooks.example.com/x", []string{"COINS_CREDITED"}
			cfg, _, err := svc.Configure(ctx, sc, webhooks.Change{URL: &url, SubscribedEvents: &events})
			require.NoError(t, err)
			clk.Advance(c.activeFor)
			record := func(status string) {
				id, err := repo.AddDelivery(cfg.ID, webhooksfake.Event{Type: "COINS_CREDITED"})
				require.NoError(t, err)
				require.NoError(t, repo.RecordAttempt(ctx, id, status, webhooks.MaxAttempts, nil, nil, clk.Now(), nil))
			}
			for range c.failed {
				record(webhooks.StatusFailed)
			}
			if c.succeeded {
				record(webhooks.StatusSuccess)
			}
			clk.Advance(time.Minute)
			ids, err := svc.DisableFailing(ctx)
			require.NoError(t, err)
			got, err := svc.Get(ctx, sc, cfg.ID)
			require.NoError(t, err)
			require.Equal(t, !c.disabled, got.IsActive)
			if !c.disabled {
				require.Empty(t, ids)
				require.Empty(t, got.DisabledReason)
				return
			}
			require.Equal(t, []uuid.UUID{cfg.ID}, ids)
			require.Equal(t, webhooks.DisabledReasonFailing, got.DisabledReason)

			// Switched on again, it starts a new window: the same failures do not count.
			on := true
			got, err = svc.Update(ctx, sc, cfg.ID, webhooks.Change{IsActive: &on})
			require.NoError(t, err)
			require.Empty(t, got.DisabledReason)
			clk.Advance(time.Hour)
			ids, err = svc.DisableFailing(ctx)
			require.NoError(t, err)
			require.Empty(t, ids)
		})
	}
}

// TestRotationGraceEndsOnTheClock: within the grace an attempt carries the new and the old
// signature; after it, the new one only; a rotation refuses a grace beyond MaxGrace.
func TestRotationGraceEndsOnTheClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &manualClock{now: time.Now()}
	repo, tr := webhooksfake.New(), &scriptedTransport{}
	svc, err := webhooks.NewService(memstore.New[webhooks.Repo](&memstore.Runner{}, repo),
		webhooks.Options{SecretKey: make([]byte, 32), RetryDelays: delays, Transport: tr, Now: clk.Now, Audit: testAudit()})
	require.NoError(t, err)
	sc := webhooks.Scope{StudioID: uuid.New(), Environment: studio.Test}
	url, events := "https://hooks.example.com/x", []string{"COINS_CREDITED"}
	cfg, _, err := svc.Configure(ctx, sc, webhooks.Change{URL: &url, SubscribedEvents: &events})
	require.NoError(t, err)

	_, err = svc.RotateSecret(ctx, sc, cfg.ID, webhooks.MaxGrace+time.Minute)
	require.Error(t, err)
	_, err = svc.RotateSecret(ctx, webhooks.Scope{StudioID: uuid.New(), Environment: studio.Test}, cfg.ID, time.Hour)
	require.ErrorIs(t, err, webhooks.ErrConfigNotFound)
	rotated, err := svc.RotateSecret(ctx, sc, cfg.ID, time.Hour)
	require.NoError(t, err)
	require.Equal(t, clk.Now().Add(time.Hour).Truncate(time.Microsecond), rotated.PreviousExpiresAt.Truncate(time.Microsecond))

	send := func() webhooks.Request {
		id, err := repo.AddDelivery(cfg.ID, webhooksfake.Event{Type: "COINS_CREDITED"})
		require.NoError(t, err)
		_, err = svc.Deliver(ctx, id)
		require.NoError(t, err)
		return tr.requests[len(tr.requests)-1]
	}
	r := send()
	sig := r.Headers["X-Service-Signature"]
	require.NoError(t, webhook.ValidatePayloadIgnoringTolerance(r.Body, sig, rotated.Secret))
	require.NoError(t, webhook.ValidatePayloadIgnoringTolerance(r.Body, sig, cfg.Secret))

	clk.Advance(time.Hour)
	r = send()
	sig = r.Headers["X-Service-Signature"]
	require.NoError(t, webhook.ValidatePayloadIgnoringTolerance(r.Body, sig, rotated.Secret))
	require.Error(t, webhook.ValidatePayloadIgnoringTolerance(r.Body, sig, cfg.Secret), "the grace is over")
}

// TestRecoverAndResend: a recover takes each FAILED delivery of events since the time once;
// a resend adds a delivery of the same event; both refuse an inactive configuration, and a
// resend another scope's delivery.
func TestRecoverAndResend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500)
	old, _ := b.queue(t)
	failed := func(id uuid.UUID) {
		for range webhooks.MaxAttempts {
			_, err := b.svc.Deliver(ctx, id)
			require.NoError(t, err)
		}
		require.Equal(t, webhooks.StatusFailed, b.delivery(t, id).Status)
	}
	failed(old)
	since := time.Now()
	time.Sleep(time.Millisecond)
	recent, _ := b.queue(t)
	failed(recent)
	b.queue(t) // pending: not recovered

	n, err := b.svc.Recover(ctx, b.scope, b.config.ID, since)
	require.NoError(t, err)
	require.Equal(t, 1, n, "only the failed delivery of an event since then")
	n, err = b.svc.Recover(ctx, b.scope, b.config.ID, since)
	require.NoError(t, err)
	require.Zero(t, n, "taken once")
	_, err = b.svc.Recover(ctx, b.scope, b.config.ID, time.Now().Add(time.Hour))
	require.ErrorIs(t, err, errs.ErrInvalid)
	_, err = b.svc.Recover(ctx, webhooks.Scope{StudioID: uuid.New(), Environment: studio.Test}, b.config.ID, since)
	require.ErrorIs(t, err, webhooks.ErrConfigNotFound)

	again, err := b.svc.Resend(ctx, b.scope, old)
	require.NoError(t, err)
	require.Equal(t, b.delivery(t, old).EventID, b.delivery(t, again).EventID)
	require.Equal(t, webhooks.StatusPending, b.delivery(t, again).Status)
	_, err = b.svc.Resend(ctx, webhooks.Scope{StudioID: uuid.New(), Environment: studio.Test}, old)
	require.ErrorIs(t, err, webhooks.ErrDeliveryNotFound)

	off := false
	_, err = b.svc.Update(ctx, b.scope, b.config.ID, webhooks.Change{IsActive: &off})
	require.NoError(t, err)
	_, err = b.svc.Resend(ctx, b.scope, old)
	require.ErrorIs(t, err, webhooks.ErrConfigInactive)
	_, err = b.svc.Recover(ctx, b.scope, b.config.ID, time.Time{})
	require.ErrorIs(t, err, webhooks.ErrConfigInactive)
}
