package app_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	paystripe "github.com/rewardsco/rewards/adapters/payments/stripe"
	"github.com/rewardsco/rewards/app"
	"github.com/rewardsco/rewards/core/payments"
	fakestripe "github.com/rewardsco/rewards/fakes/stripe"
)

// countingPayments counts the provider's session reads.
type countingPayments struct {
	payments.Provider
	reads atomic.Int64
}

func (c *countingPayments) GetSession(ctx context.Context, id string) (payments.Session, error) {
	c.reads.Add(1)
	return c.Provider.GetSession(ctx, id)
}

// A partner polling a PENDING_PAYMENT order makes the service ask the provider at most once per
// 10 s per order, however often it reads.
func TestPendingPaymentReadsAreThrottled(t *testing.T) {
	t.Parallel()
	var counter *countingPayments
	p := setupPartnerWith(t, "USD", time.Minute, func(ext *app.External, fakesURL string) {
		counter = &countingPayments{Provider: paystripe.New(paystripe.Config{SecretKey: "sk_test_x", WebhookSecret: fakestripe.DefaultWebhookSecret, BaseURL: fakesURL + "/stripe"})}
		ext.TestPayments = counter
	})
	g := p.game("CASH", 0)
	tok := p.token(g.key, "")
	r := p.order(tok, orderBody("poll-1", "AMAZON", 25, 1))
	require.Equal(t, 201, r.Status, string(r.Raw))
	id := data(r)["orderId"].(string)
	before := counter.reads.Load()
	for range 30 {
		got := p.as(tok, "GET", "/partner/v1/gift-cards/orders/"+id, nil)
		require.Equal(t, 200, got.Status)
		require.Equal(t, "PENDING_PAYMENT", data(got)["status"])
	}
	require.Equal(t, int64(1), counter.reads.Load()-before, "30 reads asked the provider more than once")
}
