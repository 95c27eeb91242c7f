package webhooks_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
	"github.com/rewardsco/rewards/core/webhooks/webhooksfake"
)

// scriptedTransport answers with the statuses it is given, in order, then 200; it keeps
// every request.
type scriptedTransport struct {
	mu       sync.Mutex
	answers  []int
	requests []webhooks.Request
}

func (s *scriptedTransport) CheckURL(string) error { return nil }

func (s *scriptedTransport) Send(_ context.Context, r webhooks.Request) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
	if len(s.answers) == 0 {
		return 200, nil
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	if a == 0 {
		return 0, errors.New("connection refused")
	}
	return a, nil
}

type bundle struct {
	svc       *webhooks.Service
	repo      *webhooksfake.Repo
	transport *scriptedTransport
	config    webhooks.Config
	scope     webhooks.Scope
}

var delays = []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second}

func setup(t *testing.T, answers ...int) bundle {
	t.Helper()
	repo := webhooksfake.New()
	tr := &scriptedTransport{answers: answers}
	svc, err := webhooks.NewService(memstore.New[webhooks.Repo](&memstore.Runner{}, repo), webhooks.Options{SecretKey: make([]byte, 32), RetryDelays: delays, Transport: tr, Audit: testAudit()})
	require.NoError(t, err)
	sc := webhooks.Scope{StudioID: uuid.New(), Environment: studio.Test}
	url, events := "https://hooks.example.com/x", []string{"COINS_CREDITED"}
	c, created, err := svc.Configure(context.Background(), sc, webhooks.Change{URL: &url, SubscribedEvents: &events})
	require.NoError(t, err)
	require.True(t, created)
	return bundle{svc: svc, repo: repo, transport: tr, config: c, scope: sc}
}

// queue records a coin event delivered to the bundle's configuration, and returns the
// delivery and the event.
func (b bundle) queue(t *testing.T) (uuid.UUID, webhooksfake.Event) {
	t.Helper()
	e := webhooksfake.Event{ID: uuid.New(), Type: "COINS_CREDITED", UserUUID: "u1", Delta: 5, NewBalance: 5, Reason: "GAME_CREDIT"}
	id, err := b.repo.AddDelivery(b.config.ID, e)
	require.NoError(t, err)
	return id, e
}

// delivery returns the stored delivery.
func (b bundle) delivery(t *testing.T, id uuid.UUID) webhooks.Delivery {
	t.Helper()
	d, ok := b.repo.Delivery(id)
	require.True(t, ok, "delivery %s exists", id)
	return d
}

func TestSignatureVerifiesWithStripe(t *testing.T) {
	t.Parallel()
	body := []byte(`{"event_id":"e"}`)
	secret := "whsec_c2VjcmV0"
	header := webhooks.Sign(secret, time.Now(), body)
	require.NoError(t, webhook.ValidatePayload(body, header, secret))
	require.Error(t, webhook.ValidatePayload(body, header, "whsec_other"))
	require.Error(t, webhook.ValidatePayload([]byte(`{"event_id":"f"}`), header, secret))
	require.Error(t, webhook.ValidatePayload(body, webhooks.Sign(secret, time.Now().Add(-10*time.Minute), body), secret), "stale timestamps are refused")
}

func TestDeliverRetriesThenSucceeds(t *testing.T) {
	t.Parallel()
	b := setup(t, 500, 0)
	id, event := b.queue(t)
	ctx := context.Background()

	a, err := b.svc.Deliver(ctx, id)
	require.NoError(t, err)
	require.Equal(t, time.Second, a.RetryAfter)
	d := b.delivery(t, id)
	require.Equal(t, webhooks.StatusRetrying, d.Status)
	require.Equal(t, 500, *d.HTTPStatusCode)
	require.NotNil(t, d.NextRetryAt)

	a, err = b.svc.Deliver(ctx, id)
	require.NoError(t, err)
	require.Equal(t, 2*time.Second, a.RetryAfter)
	d = b.delivery(t, id)
	require.Nil(t, d.HTTPStatusCode, "no answer: no status code")
	require.Equal(t, "connection refused", *d.ErrorMessage)

	a, err = b.svc.Deliver(ctx, id)
	require.NoError(t, err)
	require.True(t, a.Delivered)
	require.Zero(t, a.RetryAfter)
	d = b.delivery(t, id)
	require.Equal(t, webhooks.StatusSuccess, d.Status)
	require.Equal(t, 3, d.AttemptNumber)
	require.Nil(t, d.NextRetryAt)

	// Every attempt carried the same event id, its attempt number and a valid signature.
	require.Len(t, b.transport.requests, 3)
	for i, r := range b.transport.requests {
		require.Equal(t, event.ID.String(), r.Headers["X-Service-Event-Id"])
		require.Equal(t, []string{"1", "2", "3"}[i], r.Headers["X-Service-Attempt"])
		require.NoError(t, webhook.ValidatePayload(r.Body, r.Headers["X-Service-Signature"], b.config.Secret))
	}
	// A finished delivery is never sent again.
	_, err = b.svc.Deliver(ctx, id)
	require.NoError(t, err)
	require.Len(t, b.transport.requests, 3)
}

func TestDeliverDeadLettersAfterFiveAttempts(t *testing.T) {
	t.Parallel()
	b := setup(t, 503, 503, 503, 503, 503, 503)
	id, _ := b.queue(t)
	var waits []time.Duration
	for i := 0; i < 5; i++ {
		a, err := b.svc.Deliver(context.Background(), id)
		require.NoError(t, err)
		if a.RetryAfter > 0 {
			waits = append(waits, a.RetryAfter)
		}
	}
	require.Equal(t, delays, waits)
	d := b.delivery(t, id)
	require.Equal(t, webhooks.StatusFailed, d.Status)
	require.Equal(t, 5, d.AttemptNumber)
	require.Nil(t, d.NextRetryAt)
	_, err := b.svc.Deliver(context.Background(), id)
	require.NoError(t, err)
	require.Len(t, b.transport.requests, 5, "no sixth attempt")
}

func TestDeliverSkipsInactiveAndGone(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id, _ := b.queue(t)
	off := false
	_, err := b.svc.Update(ctx, b.scope, b.config.ID, webhooks.Change{IsActive: &off})
	require.NoError(t, err)
	_, err = b.svc.Deliver(ctx, id)
	require.NoError(t, err)
	require.Empty(t, b.transport.requests)
	require.Equal(t, webhooks.StatusFailed, b.delivery(t, id).Status)

	require.NoError(t, b.svc.Delete(ctx, b.scope, b.config.ID))
	_, exists := b.repo.Delivery(id)
	require.False(t, exists, "deleting a configuration deletes its deliveries")
	_, err = b.svc.Deliver(ctx, id)
	require.NoError(t, err, "a delivery whose configuration was deleted is simply dropped")
	require.Empty(t, b.transport.requests)
	require.ErrorIs(t, b.svc.Delete(ctx, b.scope, b.config.ID), webhooks.ErrConfigNotFound)
}

func TestConfigureValidatesAndScopes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	url := b.config.URL
	events := []string{"COINS_DEBITED"}
	c, created, err := b.svc.Configure(ctx, b.scope, webhooks.Change{URL: &url, SubscribedEvents: &events})
	require.NoError(t, err)
	require.False(t, created, "the same URL updates")
	require.Equal(t, b.config.ID, c.ID)
	require.Empty(t, c.Secret, "the secret is shown only at creation")
	require.Equal(t, []string{"COINS_DEBITED"}, c.SubscribedEvents)

	bad := []string{"COINS_MINTED"}
	_, _, err = b.svc.Configure(ctx, b.scope, webhooks.Change{URL: &url, SubscribedEvents: &bad})
	require.ErrorIs(t, err, errs.ErrInvalid)
	ftp := "ftp://x.example.com"
	_, _, err = b.svc.Configure(ctx, b.scope, webhooks.Change{URL: &ftp, SubscribedEvents: &events})
	require.ErrorIs(t, err, errs.ErrInvalid)

	caller := studio.Caller{StudioID: b.scope.StudioID, Environment: studio.Test}
	_, err = webhooks.ScopeOf(caller, uuid.NewString())
	require.ErrorIs(t, err, webhooks.ErrStudioMismatch)
	sc, err := webhooks.ScopeOf(caller, b.scope.StudioID.String())
	require.NoError(t, err)
	require.Equal(t, b.scope, sc)
	_, err = b.svc.Get(ctx, webhooks.Scope{StudioID: uuid.New(), Environment: studio.Test}, b.config.ID)
	require.ErrorIs(t, err, webhooks.ErrConfigNotFound)
}

func TestSuccessRate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    webhooks.Stats
		want string
	}{
		{webhooks.Stats{}, "0.00"},
		{webhooks.Stats{Total: 2, Delivered: 1}, "50.00"},
		{webhooks.Stats{Total: 3, Delivered: 2}, "66.67"},
		{webhooks.Stats{Total: 7, Delivered: 7}, "100.00"},
		{webhooks.Stats{Total: 1000, Delivered: 1}, "0.10"},
	} {
		require.Equal(t, c.want, c.s.SuccessRate())
	}
}

func TestUpdateKeepsURLsUnique(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	other, events := "https://hooks.example.com/other", []string{"COINS_DEBITED", "COINS_CREDITED", "COINS_DEBITED"}
	second, created, err := b.svc.Configure(ctx, b.scope, webhooks.Change{URL: &other, SubscribedEvents: &events})
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, []string{"COINS_CREDITED", "COINS_DEBITED"}, second.SubscribedEvents, "events are sorted and counted once")

	taken := b.config.URL
	_, err = b.svc.Update(ctx, b.scope, second.ID, webhooks.Change{URL: &taken})
	require.ErrorIs(t, err, webhooks.ErrURLConflict)
	got, err := b.svc.Get(ctx, b.scope, second.ID)
	require.NoError(t, err)
	require.Equal(t, other, got.URL, "a refused update changes nothing")

	list, err := b.svc.List(ctx, b.scope)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, []uuid.UUID{b.config.ID, second.ID}, []uuid.UUID{list[0].ID, list[1].ID}, "oldest first")
	for _, c := range list {
		require.Empty(t, c.Secret, "reads never show the secret")
	}
	require.Equal(t, "whsec_****"+b.config.Secret[len(b.config.Secret)-4:], list[0].MaskedSecret())
}

func TestDeliveriesAndStats(t *testing.T) {
	t.Parallel()
	b := setup(t, 500, 500, 500, 500, 500)
	ctx := context.Background()
	failing, _ := b.queue(t)
	for i := 0; i < webhooks.MaxAttempts; i++ {
		_, err := b.svc.Deliver(ctx, failing)
		require.NoError(t, err)
	}
	delivered, _ := b.queue(t)
	_, err := b.svc.Deliver(ctx, delivered)
	require.NoError(t, err)
	pending, _ := b.queue(t)

	stats, err := b.svc.Stats(ctx, b.scope)
	require.NoError(t, err)
	require.Equal(t, webhooks.Stats{Total: 3, Delivered: 1, Failed: 1}, stats)
	require.Equal(t, "33.33", stats.SuccessRate())

	page, total, err := b.svc.Deliveries(ctx, b.scope, webhooks.DeliveryFilter{Limit: 2})
	require.NoError(t, err)
	require.EqualValues(t, 3, total)
	require.Len(t, page, 2)
	require.Equal(t, []uuid.UUID{pending, delivered}, []uuid.UUID{page[0].ID, page[1].ID}, "newest first")

	failed, total, err := b.svc.Deliveries(ctx, b.scope, webhooks.DeliveryFilter{Status: webhooks.StatusFailed, Limit: 10})
	require.NoError(t, err)
	require.EqualValues(t, 1, total)
	require.Equal(t, failing, failed[0].ID)

	otherEnv := webhooks.Scope{StudioID: b.scope.StudioID, Environment: studio.Live}
	stats, err = b.svc.Stats(ctx, otherEnv)
	require.NoError(t, err)
	require.Zero(t, stats.Total, "the other environment's deliveries are its own")
}

func TestConfigureCapsConfigurationsPerScope(t *testing.T) {
	t.Parallel()
	b := setup(t) // one configuration already
	ctx := context.Background()
	events := []string{"COINS_CREDITED"}
	configure := func(sc webhooks.Scope, url string) (webhooks.Config, bool, error) {
		return b.svc.Configure(ctx, sc, webhooks.Change{URL: &url, SubscribedEvents: &events})
	}
	for i := 1; i < 10; i++ {
		_, created, err := configure(b.scope, "https://hooks.example.com/"+strconv.Itoa(i))
		require.NoError(t, err)
		require.True(t, created)
	}

	_, _, err := configure(b.scope, "https://hooks.example.com/eleventh")
	require.ErrorIs(t, err, webhooks.ErrConfigLimit)
	require.Equal(t, errs.Invalid, errs.KindOf(err), "a 400")
	list, err := b.svc.List(ctx, b.scope)
	require.NoError(t, err)
	require.Len(t, list, 10, "nothing was created")

	c, created, err := configure(b.scope, b.config.URL)
	require.NoError(t, err, "a configuration the scope has is still updated")
	require.False(t, created)
	require.Equal(t, b.config.ID, c.ID)

	_, created, err = configure(webhooks.Scope{StudioID: b.scope.StudioID, Environment: studio.Live}, "https://hooks.example.com/eleventh")
	require.NoError(t, err, "the other environment has its own ten")
	require.True(t, created)

	require.NoError(t, b.svc.Delete(ctx, b.scope, b.config.ID))
	_, created, err = configure(b.scope, "https://hooks.example.com/eleventh")
	require.NoError(t, err, "a deletion frees a place")
	require.True(t, created)
}

func TestDeliveriesRefuseDeepOffsets(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, _, err := b.svc.Deliveries(context.Background(), b.scope, webhooks.DeliveryFilter{Limit: 10, Skip: webhooks.MaxSkip})
	require.NoError(t, err)
	_, _, err = b.svc.Deliveries(context.Background(), b.scope, webhooks.DeliveryFilter{Limit: 10, Skip: webhooks.MaxSkip + 1})
	require.ErrorIs(t, err, errs.ErrInvalid)
}

// stallingTransport holds every request to a URL in stalled until release is closed, and
// answers 200 at once to any other.
type stallingTransport struct {
	stalled  string
	release  chan struct{}
	inFlight atomic.Int64
	sent     atomic.Int64
}

func (s *stallingTransport) CheckURL(string) error { return nil }

func (s *stallingTransport) Send(ctx context.Context, r webhooks.Request) (int, error) {
	s.sent.Add(1)
	if r.URL != s.stalled {
		return 200, nil
	}
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	select {
	case <-s.release:
		return 200, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func TestDeliverCapsAttemptsInFlightPerConfiguration(t *testing.T) {
	t.Parallel()
	repo := webhooksfake.New()
	tr := &stallingTransport{stalled: "https://stalled.example.com/", release: make(chan struct{})}
	svc, err := webhooks.NewService(memstore.New[webhooks.Repo](&memstore.Runner{}, repo), webhooks.Options{SecretKey: make([]byte, 32), RetryDelays: delays, Transport: tr, Audit: testAudit()})
	require.NoError(t, err)
	ctx := context.Background()
	events := []string{"COINS_CREDITED"}
	config := func(url string) webhooks.Config {
		c, _, err := svc.Configure(ctx, webhooks.Scope{StudioID: uuid.New(), Environment: studio.Test}, webhooks.Change{URL: &url, SubscribedEvents: &events})
		require.NoError(t, err)
		return c
	}
	queue := func(c webhooks.Config) uuid.UUID {
		id, err := repo.AddDelivery(c.ID, webhooksfake.Event{Type: "COINS_CREDITED"})
		require.NoError(t, err)
		return id
	}
	stalled, other := config(tr.stalled), config("https://answers.example.com/")

	var wg sync.WaitGroup
	for range webhooks.MaxInFlight {
		id := queue(stalled)
		wg.Go(func() {
			a, err := svc.Deliver(ctx, id)
			assert.NoError(t, err)
			assert.True(t, a.Delivered)
		})
	}
	require.Eventually(t, func() bool { return tr.inFlight.Load() == webhooks.MaxInFlight }, 5*time.Second, time.Millisecond)

	// One more for the stalled configuration: no attempt, nothing recorded, due again later.
	extra := queue(stalled)
	a, err := svc.Deliver(ctx, extra)
	require.NoError(t, err)
	require.True(t, a.Busy)
	require.Positive(t, a.RetryAfter)
	require.EqualValues(t, webhooks.MaxInFlight, tr.sent.Load(), "no request was sent")
	d, _ := repo.Delivery(extra)
	require.Equal(t, webhooks.StatusPending, d.Status)
	require.Zero(t, d.AttemptNumber, "a put-off is not an attempt")

	// Another configuration is not held up.
	a, err = svc.Deliver(ctx, queue(other))
	require.NoError(t, err)
	require.True(t, a.Delivered)

	// Once the receiver answers, the put-off delivery goes out.
	close(tr.release)
	wg.Wait()
	a, err = svc.Deliver(ctx, extra)
	require.NoError(t, err)
	require.True(t, a.Delivered)
	require.Equal(t, 1, a.AttemptNo)
}
