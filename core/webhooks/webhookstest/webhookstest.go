// Package webhookstest is the contract of the webhooks module's storage: one suite of cases
// that every implementation passes, run on the in-memory fake (webhooksfake) and on PostgreSQL
// (adapters/postgres), so that core tests on the fake hold on the database too.
//
// Beside webhooks.Repo it covers the two sides of the outbox the port does not name: where a
// coin event's deliveries come from (Harness.Publish: on PostgreSQL a coin movement, whose
// statement routes the event with webhook_routes; on the fake the rule in Go,
// webhooks.Config.Receives), and the dispatchers' claim (Harness.Claim).
package webhookstest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
)

// Harness is one webhooks storage under test and what makes its events.
type Harness struct {
	Store store.Of[webhooks.Repo]
	// NewGame returns a new studio's id and the id of a game of it.
	NewGame func(t *testing.T) (studioID, gameID uuid.UUID)
	// Publish records a coin event of the game in env, of type typ (a coin credit's:
	// COINS_CREDITED or COINS_REFUNDED) with reason, as a coin movement does: with a delivery to
	// each configuration that takes it. It returns the event's transaction, which its deliveries
	// carry.
	Publish func(t *testing.T, gameID uuid.UUID, env studio.Environment, typ, reason string) uuid.UUID
	// Claim is the outbox's claim: at most n due deliveries, the longest due first, held for
	// lease.
	Claim func(ctx context.Context, n int, lease time.Duration) ([]webhooks.Pending, error)
}

// Run runs every case of the contract, each on a Harness of its own from open.
func Run(t *testing.T, open func(t *testing.T) Harness) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := open(t)
			studioID, gameID := h.NewGame(t)
			c.run(t, bundle{Harness: h, ctx: context.Background(), game: gameID,
				scope: webhooks.Scope{StudioID: studioID, Environment: studio.Test}})
		})
	}
}

// bundle is a case's harness with a game and its studio's test environment.
type bundle struct {
	Harness
	ctx   context.Context
	game  uuid.UUID
	scope webhooks.Scope
}

func (b bundle) repo() webhooks.Repo { return b.Store.Repo() }

// config creates a configuration of scope s at url, subscribed to events and excluding
// reasons, switched on or not.
func (b bundle) config(t *testing.T, s webhooks.Scope, url string, events, excluded []string, active bool) webhooks.Config {
	t.Helper()
	c, created, err := b.repo().InsertConfig(b.ctx, webhooks.Config{StudioID: s.StudioID, Environment: s.Environment,
		URL: url, SubscribedEvents: events, ExcludedReasons: excluded, IsActive: active,
		Sealed: []byte("sealed-" + url), SecretLast4: "abcd"})
	require.NoError(t, err)
	require.True(t, created)
	return c
}

// subscribed creates a configuration of b.scope that takes every COINS_CREDITED event.
func (b bundle) subscribed(t *testing.T) webhooks.Config {
	t.Helper()
	return b.config(t, b.scope, "https://hooks.example.com/a", []string{"COINS_CREDITED"}, []string{}, true)
}

// claim claims every due delivery (at most 10) for a minute.
func (b bundle) claim(t *testing.T) []webhooks.Pending {
	t.Helper()
	claimed, err := b.Claim(b.ctx, 10, time.Minute)
	require.NoError(t, err)
	return claimed
}

// deliveries returns the configurations the deliveries of scope s of transaction tx go to.
func (b bundle) deliveries(t *testing.T, s webhooks.Scope, tx uuid.UUID) []uuid.UUID {
	t.Helper()
	list, _, err := b.repo().ListDeliveries(b.ctx, s, webhooks.DeliveryFilter{Limit: 100})
	require.NoError(t, err)
	out := []uuid.UUID{}
	for _, d := range list {
		if d.TransactionID == tx {
			out = append(out, d.ConfigID)
		}
	}
	return out
}

// delivery publishes a COINS_CREDITED event to scope b.scope, which must have exactly one
// configuration taking it, and returns its delivery.
func (b bundle) delivery(t *testing.T) webhooks.Delivery {
	t.Helper()
	tx := b.Publish(t, b.game, b.scope.Environment, "COINS_CREDITED", "GAME_CREDIT")
	list, _, err := b.repo().ListDeliveries(b.ctx, b.scope, webhooks.DeliveryFilter{Limit: 100})
	require.NoError(t, err)
	for _, d := range list {
		if d.TransactionID == tx {
			return d
		}
	}
	require.FailNow(t, "the event made no delivery")
	return webhooks.Delivery{}
}

func (b bundle) record(t *testing.T, id uuid.UUID, status string) {
	t.Helper()
	code := 500
	if status == webhooks.StatusSuccess {
		code = 200
	}
	require.NoError(t, b.repo().RecordAttempt(b.ctx, id, status, 1, &code, nil, time.Now(), nil))
}

func (b bundle) inTx(t *testing.T, fn func(r webhooks.Repo) error) {
	t.Helper()
	require.NoError(t, b.Store.InTx(b.ctx, fn))
}

type contractCase struct {
	name string
	run  func(t *testing.T, b bundle)
}

var cases = []contractCase{
	{"RoutingTakesActiveSubscribedUnexcludedConfigurationsOfTheGamesScope", func(t *testing.T, b bundle) {
		credited := []string{"COINS_CREDITED"}
		all := b.config(t, b.scope, "https://hooks.example.com/all", credited, []string{}, true)
		noPromo := b.config(t, b.scope, "https://hooks.example.com/no-promo", credited, []string{"PROMO"}, true)
		refunds := b.config(t, b.scope, "https://hooks.example.com/refunds", []string{"COINS_REFUNDED"}, []string{"PROMO"}, true)
		b.config(t, b.scope, "https://hooks.example.com/off", credited, []string{}, false)
		live := webhooks.Scope{StudioID: b.scope.StudioID, Environment: studio.Live}
		liveAll := b.config(t, live, "https://hooks.example.com/live", credited, []string{}, true)
		otherStudio, _ := b.NewGame(t)
		other := webhooks.Scope{StudioID: otherStudio, Environment: studio.Test}
		b.config(t, other, "https://hooks.example.com/other-studio", credited, []string{}, true)
		switchedOff := b.config(t, b.scope, "https://hooks.example.com/switched-off", credited, []string{}, true)
		switchedOff.IsActive = false
		_, err := b.repo().UpdateConfig(b.ctx, switchedOff, time.Now())
		require.NoError(t, err)

		for _, tc := range []struct {
			env         studio.Environment
			typ, reason string
			want        []uuid.UUID
		}{
			{studio.Test, "COINS_CREDITED", "GAME_CREDIT", []uuid.UUID{all.ID, noPromo.ID}},
			{studio.Test, "COINS_CREDITED", "PROMO", []uuid.UUID{all.ID}},
			{studio.Test, "COINS_REFUNDED", "PURCHASE_REFUND", []uuid.UUID{refunds.ID}},
			{studio.Test, "COINS_REFUNDED", "PROMO", []uuid.UUID{}},
			{studio.Live, "COINS_CREDITED", "PROMO", []uuid.UUID{liveAll.ID}},
		} {
			tx := b.Publish(t, b.game, tc.env, tc.typ, tc.reason)
			var got []uuid.UUID
			for _, s := range []webhooks.Scope{b.scope, live, other} {
				got = append(got, b.deliveries(t, s, tx)...)
			}
			require.ElementsMatch(t, tc.want, got, "%s %s %s", tc.env, tc.typ, tc.reason)

			// The storage routes as the rule in Go does.
			e := webhooks.Event{StudioID: b.scope.StudioID, Environment: tc.env, Type: tc.typ, Reason: tc.reason}
			var byRule []uuid.UUID
			for _, s := range []webhooks.Scope{b.scope, live, other} {
				configs, err := b.repo().ListConfigs(b.ctx, s)
				require.NoError(t, err)
				for _, c := range configs {
					if c.Receives(e) {
						byRule = append(byRule, c.ID)
					}
				}
			}
			require.ElementsMatch(t, byRule, got, "webhooks.Config.Receives for %s %s %s", tc.env, tc.typ, tc.reason)
		}
	}},
	{"DeletedConfigurationTakesNoMoreEventsAndLosesItsDeliveries", func(t *testing.T, b bundle) {
		c := b.subscribed(t)
		d := b.delivery(t)
		require.NoError(t, b.repo().DeleteConfig(b.ctx, b.scope, c.ID))
		_, err := b.repo().FindDelivery(b.ctx, b.scope, d.ID)
		require.ErrorIs(t, err, webhooks.ErrDeliveryNotFound)
		tx := b.Publish(t, b.game, studio.Test, "COINS_CREDITED", "GAME_CREDIT")
		require.Empty(t, b.deliveries(t, b.scope, tx))
	}},
	{"DeliveryIsClaimedByOneDispatcherOnly", func(t *testing.T, b bundle) {
		b.subscribed(t)
		want := []uuid.UUID{b.delivery(t).ID, b.delivery(t).ID, b.delivery(t).ID}
		var mu sync.Mutex
		var wg sync.WaitGroup
		var got []uuid.UUID
		for range 4 {
			wg.Go(func() {
				claimed, err := b.Claim(b.ctx, 2, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				for _, p := range claimed {
					got = append(got, p.DeliveryID)
				}
			})
		}
		wg.Wait()
		require.ElementsMatch(t, want, got, "each delivery claimed once")
		require.Empty(t, b.claim(t), "claimed deliveries are held until their lease ends")
	}},
	{"ClaimCarriesTheEventAndTheSecrets", func(t *testing.T, b bundle) {
		c := b.subscribed(t)
		d := b.delivery(t)
		claimed := b.claim(t)
		require.Len(t, claimed, 1)
		p := claimed[0]
		require.Equal(t, d.ID, p.DeliveryID)
		require.Equal(t, c.ID, p.ConfigID)
		require.Equal(t, webhooks.StatusPending, p.Status)
		require.Equal(t, c.URL, p.URL)
		require.True(t, p.ConfigActive)
		require.Equal(t, c.Sealed, p.Sealed)
		require.Equal(t, d.EventID.String(), p.Payload.EventID)
		require.Equal(t, "COINS_CREDITED", p.Payload.EventType)
		require.Equal(t, "GAME_CREDIT", p.Payload.Reason)
		require.Equal(t, b.game.String(), p.Payload.AppID)
		require.EqualValues(t, 1, p.Payload.Sequence)
	}},
	{"FinishedDeliveryIsNeverChangedAgain", func(t *testing.T, b bundle) {
		b.subscribed(t)
		d := b.delivery(t)
		b.record(t, d.ID, webhooks.StatusSuccess)
		b.record(t, d.ID, webhooks.StatusFailed)
		p, err := b.repo().PendingDelivery(b.ctx, d.ID)
		require.NoError(t, err)
		require.Equal(t, webhooks.StatusSuccess, p.Status)
		require.Equal(t, 1, p.AttemptNumber)
		require.Empty(t, b.claim(t), "a finished delivery is not due")
	}},
	{"ResendAddsOneDeliveryOfTheSameEvent", func(t *testing.T, b bundle) {
		c := b.subscribed(t)
		d := b.delivery(t)
		b.record(t, d.ID, webhooks.StatusFailed)
		var again uuid.UUID
		b.inTx(t, func(r webhooks.Repo) (err error) {
			again, err = r.Resend(b.ctx, d.ID)
			return err
		})
		require.NotEqual(t, d.ID, again)
		found, err := b.repo().FindDelivery(b.ctx, b.scope, again)
		require.NoError(t, err)
		require.Equal(t, webhooks.Found{ID: again, EventID: d.EventID, ConfigID: c.ID, ConfigActive: true}, found)
		list, total, err := b.repo().ListDeliveries(b.ctx, b.scope, webhooks.DeliveryFilter{Status: webhooks.StatusPending, Limit: 10})
		require.NoError(t, err)
		require.EqualValues(t, 1, total)
		require.Equal(t, again, list[0].ID)
		require.Equal(t, d.TransactionID, list[0].TransactionID)
		err = b.Store.InTx(b.ctx, func(r webhooks.Repo) error {
			_, err := r.Resend(b.ctx, uuid.New())
			return err
		})
		require.ErrorIs(t, err, webhooks.ErrDeliveryNotFound)
	}},
	{"RecoverSendsEachFailedEventOnceOldestFirst", func(t *testing.T, b bundle) {
		c := b.subscribed(t)
		var failed []webhooks.Delivery
		for range 3 {
			d := b.delivery(t)
			b.record(t, d.ID, webhooks.StatusFailed)
			failed = append(failed, d)
		}
		b.record(t, b.delivery(t).ID, webhooks.StatusSuccess)
		recover := func(since time.Time, limit int) int {
			var n int
			b.inTx(t, func(r webhooks.Repo) (err error) {
				n, err = r.Recover(b.ctx, c.ID, since, time.Now(), limit)
				return err
			})
			return n
		}
		require.Equal(t, 0, recover(failed[2].EventCreatedAt.Add(time.Second), 10), "no failed event since then")
		require.Equal(t, 2, recover(failed[0].EventCreatedAt, 2), "at most the limit")
		pending, _, err := b.repo().ListDeliveries(b.ctx, b.scope, webhooks.DeliveryFilter{Status: webhooks.StatusPending, Limit: 10})
		require.NoError(t, err)
		var events []uuid.UUID
		for _, d := range pending {
			events = append(events, d.EventID)
		}
		require.ElementsMatch(t, []uuid.UUID{failed[0].EventID, failed[1].EventID}, events, "the oldest first")
		require.Equal(t, 1, recover(failed[0].EventCreatedAt, 10), "the one left")
		require.Equal(t, 0, recover(failed[0].EventCreatedAt, 10), "each once")
		stats, err := b.repo().Stats(b.ctx, b.scope)
		require.NoError(t, err)
		require.Equal(t, webhooks.Stats{Total: 7, Delivered: 1, Failed: 3}, stats)
	}},
	{"RotatedSecretKeepsThePreviousOneForTheGrace", func(t *testing.T, b bundle) {
		c := b.subscribed(t)
		d := b.delivery(t)
		first := time.Now().Add(24 * time.Hour).Truncate(time.Microsecond)
		rotated, err := b.repo().RotateSecret(b.ctx, b.scope, c.ID, []byte("second"), "2222", first)
		require.NoError(t, err)
		require.Equal(t, []byte("second"), rotated.Sealed)
		require.Equal(t, "2222", rotated.SecretLast4)
		require.Equal(t, c.Sealed, rotated.PreviousSealed)
		require.True(t, first.Equal(*rotated.PreviousExpiresAt))
		p, err := b.repo().PendingDelivery(b.ctx, d.ID)
		require.NoError(t, err)
		require.Equal(t, []byte("second"), p.Sealed)
		require.Equal(t, c.Sealed, p.PreviousSealed, "the attempt signs with both")
		require.True(t, first.Equal(*p.PreviousExpiresAt))

		later := first.Add(time.Hour)
		again, err := b.repo().RotateSecret(b.ctx, b.scope, c.ID, []byte("third"), "3333", later)
		require.NoError(t, err)
		require.Equal(t, []byte("second"), again.PreviousSealed, "the secret before is dropped")
		require.True(t, later.Equal(*again.PreviousExpiresAt))
		_, err = b.repo().RotateSecret(b.ctx, webhooks.Scope{StudioID: uuid.New(), Environment: studio.Test}, c.ID, []byte("x"), "xxxx", later)
		require.ErrorIs(t, err, webhooks.ErrConfigNotFound, "another studio's configuration")
	}},
	{"StatsCountTheScopesDeliveries", func(t *testing.T, b bundle) {
		b.subscribed(t)
		b.config(t, webhooks.Scope{StudioID: b.scope.StudioID, Environment: studio.Live}, "https://hooks.example.com/live",
			[]string{"COINS_CREDITED"}, []string{}, true)
		b.Publish(t, b.game, studio.Live, "COINS_CREDITED", "GAME_CREDIT")
		b.record(t, b.delivery(t).ID, webhooks.StatusSuccess)
		b.record(t, b.delivery(t).ID, webhooks.StatusSuccess)
		b.record(t, b.delivery(t).ID, webhooks.StatusFailed)
		b.record(t, b.delivery(t).ID, webhooks.StatusRetrying)
		b.delivery(t)
		stats, err := b.repo().Stats(b.ctx, b.scope)
		require.NoError(t, err)
		require.Equal(t, webhooks.Stats{Total: 5, Delivered: 2, Failed: 1}, stats)
		require.Equal(t, "40.00", stats.SuccessRate())
		_, total, err := b.repo().ListDeliveries(b.ctx, b.scope, webhooks.DeliveryFilter{Status: webhooks.StatusRetrying, Limit: 10})
		require.NoError(t, err)
		require.EqualValues(t, 1, total)
		empty, err := b.repo().Stats(b.ctx, webhooks.Scope{StudioID: uuid.New(), Environment: studio.Test})
		require.NoError(t, err)
		require.Equal(t, webhooks.Stats{}, empty)
	}},
}
