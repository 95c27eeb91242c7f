package webhooks_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
)

// memRepo is an in-memory webhooks.Repo holding configurations and deliveries.
type memRepo struct {
	mu         sync.Mutex
	configs    map[uuid.UUID]webhooks.Config
	deliveries map[uuid.UUID]*delivery
}

type delivery struct {
	configID uuid.UUID
	status   string
	attempt  int
	code     *int
	msg      *string
	next     *time.Time
	payload  webhooks.Payload
}

func newMemRepo() *memRepo {
	return &memRepo{configs: map[uuid.UUID]webhooks.Config{}, deliveries: map[uuid.UUID]*delivery{}}
}

func (m *memRepo) InTx(_ context.Context, fn func(webhooks.Repo) error) error { return fn(m) }
func (m *memRepo) Repo() webhooks.Repo                                        { return m }

func (m *memRepo) InsertConfig(_ context.Context, c webhooks.Config) (webhooks.Config, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, x := range m.configs {
		if x.StudioID == c.StudioID && x.Environment == c.Environment && x.URL == c.URL {
			return x, false, nil
		}
	}
	c.ID, c.CreatedAt = uuid.New(), time.Now()
	stored := c
	stored.Secret = ""
	m.configs[c.ID] = stored
	return stored, true, nil
}

func (m *memRepo) GetConfigByURL(_ context.Context, s webhooks.Scope, url string) (webhooks.Config, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, x := range m.configs {
		if x.StudioID == s.StudioID && x.Environment == s.Environment && x.URL == url {
			return x, nil
		}
	}
	return webhooks.Config{}, webhooks.ErrConfigNotFound
}

func (m *memRepo) GetConfig(_ context.Context, s webhooks.Scope, id uuid.UUID) (webhooks.Config, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.configs[id]
	if !ok || c.StudioID != s.StudioID || c.Environment != s.Environment {
		return webhooks.Config{}, webhooks.ErrConfigNotFound
	}
	return c, nil
}

func (m *memRepo) ListConfigs(context.Context, webhooks.Scope) ([]webhooks.Config, error) {
	return nil, errors.New("not used")
}

func (m *memRepo) UpdateConfig(_ context.Context, c webhooks.Config) (webhooks.Config, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.configs[c.ID] = c
	return c, nil
}

func (m *memRepo) DeleteConfig(context.Context, webhooks.Scope, uuid.UUID) error {
	return errors.New("not used")
}

func (m *memRepo) PendingDelivery(_ context.Context, id uuid.UUID) (webhooks.Pending, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.deliveries[id]
	if !ok {
		return webhooks.Pending{}, webhooks.ErrDeliveryGone
	}
	c := m.configs[d.configID]
	return webhooks.Pending{DeliveryID: id, Status: d.status, AttemptNumber: d.attempt, URL: c.URL, ConfigActive: c.IsActive,
		Sealed: c.Sealed, Payload: d.payload}, nil
}

func (m *memRepo) RecordAttempt(_ context.Context, id uuid.UUID, status string, attemptNo int, code *int, msg *string, _ time.Time, next *time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.deliveries[id]
	if d.status == webhooks.StatusSuccess || d.status == webhooks.StatusFailed {
		return nil
	}
	d.status, d.attempt, d.code, d.msg, d.next = status, attemptNo, code, msg, next
	return nil
}

func (m *memRepo) ListDeliveries(context.Context, webhooks.Scope, webhooks.DeliveryFilter) ([]webhooks.Delivery, int64, error) {
	return nil, 0, errors.New("not used")
}

func (m *memRepo) Stats(context.Context, webhooks.Scope) (webhooks.Stats, error) {
	return webhooks.Stats{}, errors.New("not used")
}

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
	repo      *memRepo
	transport *scriptedTransport
	config    webhooks.Config
	scope     webhooks.Scope
}

var delays = []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second}

func setup(t *testing.T, answers ...int) bundle {
	t.Helper()
	repo := newMemRepo()
	tr := &scriptedTransport{answers: answers}
	svc, err := webhooks.NewService(repo, webhooks.Options{SecretKey: make([]byte, 32), RetryDelays: delays, Transport: tr})
	require.NoError(t, err)
	sc := webhooks.Scope{StudioID: uuid.New(), Environment: studio.Test}
	url, events := "https://hooks.example.com/x", []string{"COINS_CREDITED"}
	c, created, err := svc.Configure(context.Background(), sc, webhooks.Change{URL: &url, SubscribedEvents: &events})
	require.NoError(t, err)
	require.True(t, created)
	return bundle{svc: svc, repo: repo, transport: tr, config: c, scope: sc}
}

func (b bundle) queue(t *testing.T) uuid.UUID {
	t.Helper()
	id := uuid.New()
	b.repo.deliveries[id] = &delivery{configID: b.config.ID, status: webhooks.StatusPending, payload: webhooks.Payload{
		EventID: uuid.NewString(), EventType: "COINS_CREDITED", Timestamp: time.Now().Format(time.RFC3339Nano),
		AppID: uuid.NewString(), UserUUID: "u1", CoinID: uuid.NewString(), Delta: 5, NewBalance: 5, Reason: "GAME_CREDIT"}}
	return id
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
	id := b.queue(t)
	ctx := context.Background()

	a, err := b.svc.Deliver(ctx, id)
	require.NoError(t, err)
	require.Equal(t, time.Second, a.RetryAfter)
	require.Equal(t, webhooks.StatusRetrying, b.repo.deliveries[id].status)
	require.Equal(t, 500, *b.repo.deliveries[id].code)
	require.NotNil(t, b.repo.deliveries[id].next)

	a, err = b.svc.Deliver(ctx, id)
	require.NoError(t, err)
	require.Equal(t, 2*time.Second, a.RetryAfter)
	require.Nil(t, b.repo.deliveries[id].code, "no answer: no status code")
	require.Equal(t, "connection refused", *b.repo.deliveries[id].msg)

	a, err = b.svc.Deliver(ctx, id)
	require.NoError(t, err)
	require.True(t, a.Delivered)
	require.Zero(t, a.RetryAfter)
	d := b.repo.deliveries[id]
	require.Equal(t, webhooks.StatusSuccess, d.status)
	require.Equal(t, 3, d.attempt)
	require.Nil(t, d.next)

	// Every attempt carried the same event id, its attempt number and a valid signature.
	for i, r := range b.transport.requests {
		require.Equal(t, d.payload.EventID, r.Headers["X-Service-Event-ID"])
		require.Equal(t, []string{"1", "2", "3"}[i], r.Headers["X-Service-Attempt"])
	}
	// A finished delivery is never sent again.
	a, err = b.svc.Deliver(ctx, id)
	require.NoError(t, err)
	require.Len(t, b.transport.requests, 3)
}

func TestDeliverDeadLettersAfterFiveAttempts(t *testing.T) {
	t.Parallel()
	b := setup(t, 503, 503, 503, 503, 503, 503)
	id := b.queue(t)
	var waits []time.Duration
	for i := 0; i < 5; i++ {
		a, err := b.svc.Deliver(context.Background(), id)
		require.NoError(t, err)
		if a.RetryAfter > 0 {
			waits = append(waits, a.RetryAfter)
		}
	}
	require.Equal(t, delays, waits)
	d := b.repo.deliveries[id]
	require.Equal(t, webhooks.StatusFailed, d.status)
	require.Equal(t, 5, d.attempt)
	require.Nil(t, d.next)
	_, err := b.svc.Deliver(context.Background(), id)
	require.NoError(t, err)
	require.Len(t, b.transport.requests, 5, "no sixth attempt")
}

func TestDeliverSkipsInactiveAndGone(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.queue(t)
	off := false
	_, err := b.svc.Update(context.Background(), b.scope, b.config.ID, webhooks.Change{IsActive: &off})
	require.NoError(t, err)
	_, err = b.svc.Deliver(context.Background(), id)
	require.NoError(t, err)
	require.Empty(t, b.transport.requests)
	require.Equal(t, webhooks.StatusFailed, b.repo.deliveries[id].status)
	_, err = b.svc.Deliver(context.Background(), uuid.New())
	require.NoError(t, err, "a delivery whose configuration was deleted is simply dropped")
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
	require.ErrorIs(t, err, webhooks.ErrInvalid)
	ftp := "ftp://x.example.com"
	_, _, err = b.svc.Configure(ctx, b.scope, webhooks.Change{URL: &ftp, SubscribedEvents: &events})
	require.ErrorIs(t, err, webhooks.ErrInvalid)

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
