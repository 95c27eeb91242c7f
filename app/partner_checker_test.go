package app_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/studio"
	fakevouchers "github.com/rewardsco/rewards/fakes/vouchers"
)

// The partner wallet's random-operations checker: workers place WALLET orders of ordinary and
// sandbox brands (some retried with their clientOrderId, some reusing one for another order),
// and credit the wallet (some references twice), while the fake voucher provider fails and stalls
// at random moments and River works the fulfilment jobs. Once every order is final, the wallet
// is recomputed from its journal and from the orders, and checked against the provider.
func TestPartnerRandomOperationsKeepTheWalletTrue(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 1.5)
	ctx := context.Background()
	caller := partner.Caller{GameID: g.id, Environment: studio.Test, Settings: partner.Settings{Enabled: true, Settlement: orders.Wallet, DiscountPct: 150}}
	type card struct {
		brand string
		face  money.Amount
	}
	var cards []card
	for _, code := range []string{"AMAZON", "FLIPKART", "SANDBOX_FAIL", "SANDBOX_SLOW", "SANDBOX_SLOW_FAIL"} {
		b, err := p.m.Partner.Brand(ctx, code)
		require.NoError(t, err, code)
		f := b.MinValue
		if len(b.Denominations) > 0 {
			f = b.Denominations[0]
		}
		cards = append(cards, card{code, f})
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)

	// Chaos: the provider fails the next few calls, or stalls, now and then.
	stop := make(chan struct{})
	var chaos sync.WaitGroup
	chaos.Add(1)
	go func() {
		defer chaos.Done()
		rng := rand.New(rand.NewPCG(seed, 1))
		for {
			select {
			case <-stop:
				p.vouchers.SetBehaviour(fakevouchers.Behaviour{})
				return
			case <-time.After(time.Duration(20+rng.IntN(60)) * time.Millisecond):
			}
			switch rng.IntN(4) {
			case 0:
				p.vouchers.SetBehaviour(fakevouchers.Behaviour{FailNext: 1 + rng.IntN(3), FailStatus: []int{500, 503, 429}[rng.IntN(3)]})
			case 1:
				p.vouchers.SetBehaviour(fakevouchers.Behaviour{StallMs: 100 + rng.IntN(300)})
			default:
				p.vouchers.SetBehaviour(fakevouchers.Behaviour{})
			}
		}
	}()

	const workers, opsPerWorker = 8, 40
	var mu sync.Mutex
	credited := map[string]money.Amount{} // reference → amount, as first credited
	placed := map[string]card{}           // clientOrderId → what it bought
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(w)+2))
			for i := range opsPerWorker {
				switch op := rng.IntN(10); {
				case op < 2: // a credit, sometimes a reference seen before
					ref := fmt.Sprintf("ref-%d-%d", w, i)
					if i > 0 && rng.IntN(3) == 0 {
						ref = fmt.Sprintf("ref-%d-%d", w, rng.IntN(i))
					}
					amount := money.Amount(1000 + rng.IntN(5000)*100)
					_, done, err := p.m.Partner.Credit(ctx, g.id, studio.Test, amount, ref)
					if err != nil {
						t.Errorf("credit %s: %v", ref, err)
						continue
					}
					mu.Lock()
					if _, seen := credited[ref]; seen == done {
						t.Errorf("credit %s: credited=%v although seen=%v", ref, done, seen)
					}
					if done {
						credited[ref] = amount
					}
					mu.Unlock()
				default: // an order, sometimes a retry of an earlier one, sometimes its id reused
					c := cards[rng.IntN(len(cards))]
					id := fmt.Sprintf("o-%d-%d", w, i)
					retry := i > 0 && rng.IntN(4) == 0
					if retry {
						id = fmt.Sprintf("o-%d-%d", w, rng.IntN(i))
						mu.Lock()
						if prev, ok := placed[id]; ok && rng.IntN(3) > 0 {
							c = prev // a true retry; otherwise another order under its id
						}
						mu.Unlock()
					}
					v, replayed, err := p.m.Partner.Place(ctx, caller, partner.PlaceRequest{ClientOrderID: id, BrandCode: c.brand,
						Denomination: c.face, Quantity: 1 + rng.IntN(2), Customer: orders.Customer{Ref: fmt.Sprintf("u%d", w)}})
					mu.Lock()
					prev, had := placed[id]
					switch code := errs.CodeOf(err); {
					case err == nil:
						if had != replayed {
							t.Errorf("order %s: replayed=%v although placed before=%v", id, replayed, had)
						}
						if had && (prev != c || v.Partner.BrandCode != c.brand) {
							t.Errorf("order %s: another order's replay was accepted", id)
						}
						placed[id] = c
					case code == "IDEMPOTENCY_KEY_REUSED":
						if !had {
							t.Errorf("order %s: key reused although never placed", id)
						}
					case code == partner.ErrInsufficientBalance.Code, code == partner.ErrOutOfStock.Code,
						strings.Contains(err.Error(), "voucher provider"), errs.KindOf(err) == errs.Upstream:
						// refused before anything was taken: the stock call may fail under chaos
					default:
						t.Errorf("order %s: %v", id, err)
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	chaos.Wait()

	// Every order reaches a final state by itself (River works the jobs).
	deadline := time.Now().Add(90 * time.Second)
	var list []orders.View
	for {
		var err error
		list, _, err = p.m.Partner.Orders(ctx, caller, "", "", 10000, 0)
		require.NoError(t, err)
		pending := 0
		for _, o := range list {
			if o.Status != orders.Success && o.Status != orders.Failed {
				pending++
			}
		}
		if pending == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "%d orders still not final", pending)
		time.Sleep(200 * time.Millisecond)
	}
	require.Len(t, list, len(placed))

	// The journal adds up, each order has one debit and a refund exactly when FAILED.
	requireLedgerAddsUp(t, p, g)
	// The balance is what was credited less what the orders that did not fail cost.
	var want money.Amount
	for _, a := range credited {
		want += a
	}
	issued := map[string]fakevouchers.Order{}
	for _, po := range p.vouchers.Orders() {
		issued[po.ExternalRefID] = po
	}
	for _, o := range list {
		if o.Status == orders.Success {
			want -= o.Partner.Amount
			require.Len(t, o.Codes, o.Quantity, "order %s", o.ID)
			require.Equal(t, fakevouchers.StatusComplete, issued[o.ID.String()].Status, "order %s succeeded: the provider issued it", o.ID)
		} else {
			require.NotEqual(t, fakevouchers.StatusComplete, issued[o.ID.String()].Status, "order %s failed and was refunded: the provider must not have issued it", o.ID)
		}
		require.Equal(t, placed[o.Partner.ClientOrderID].brand, o.Partner.BrandCode)
	}
	bal, err := p.m.Partner.Wallet(ctx, caller)
	require.NoError(t, err)
	require.Equal(t, want, bal)
	t.Logf("%d credits, %d orders (%d on the provider)", len(credited), len(list), len(issued))
}
