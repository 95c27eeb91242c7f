// Package partnertest is the contract of the partner module's storage, partner.Repo and
// partner.WalletOrders: one suite of cases that every implementation passes, run on the
// in-memory fake (partnerfake) and on PostgreSQL (adapters/postgres), so that a wallet, a quote,
// a token or a provider event behaves the same on both.
//
// A refusal is looked for in the outcome of the transaction or the placement (store.Tx), where
// both sides put it, with a check that nothing of it was kept.
package partnertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/payments"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/store/contract"
	"github.com/rewardsco/rewards/core/studio"
)

// Harness is one partner storage under test, the orders storage its WALLET orders are stored
// in (on the same Runner), and the rows of other modules its tables refer to.
type Harness struct {
	Runner  store.Runner
	Partner store.Of[partner.Repo]
	Wallet  partner.WalletOrders
	Orders  store.Of[orders.Repo]
	// NewGame returns a new game of a new studio.
	NewGame func(t *testing.T) studio.Game
	// NewKey issues an API key of the game's env and returns its hash.
	NewKey func(t *testing.T, gameID uuid.UUID, env studio.Environment) []byte
	// RevokeKeys revokes every API key of the game's env.
	RevokeKeys func(t *testing.T, gameID uuid.UUID, env studio.Environment)
	// NewBrand adds a brand whose gift card partners buy, of FIXED denominations 100 and 500,
	// and returns the card's reward id.
	NewBrand func(t *testing.T, code, name string) uuid.UUID
}

// Run runs every case of the contract, each on a Harness of its own from open.
func Run(t *testing.T, open func(t *testing.T) Harness) {
	contract.Run(t, func(t *testing.T) bundle { return setup(t, open) }, cases)
}

// bundle is a case's harness with a game and a gift card its orders buy.
type bundle struct {
	Harness
	ctx    context.Context
	game   studio.Game
	reward uuid.UUID
}

func setup(t *testing.T, open func(t *testing.T) Harness) bundle {
	h := open(t)
	b := bundle{Harness: h, ctx: context.Background(), game: h.NewGame(t)}
	b.reward = h.NewBrand(t, "CONTRACT", "Contract Card")
	return b
}

// credit funds the test wallet once per reference, as Service.Credit does; credited is false
// when the reference was seen.
func (b bundle) credit(amount money.Amount, reference string) (credited bool, err error) {
	err = b.Partner.InTx(b.ctx, func(r partner.Repo) error {
		bal, err := r.LockWallet(b.ctx, b.game.ID, studio.Test)
		if err != nil {
			return err
		}
		seen, err := r.CreditExists(b.ctx, b.game.ID, studio.Test, reference)
		if err != nil || seen {
			return err
		}
		_, err = r.Apply(b.ctx, partner.Entry{GameID: b.game.ID, Environment: studio.Test, Kind: partner.Credit, Amount: amount,
			BalanceAfter: bal + amount, Reference: reference})
		credited = err == nil
		return err
	})
	return credited, err
}

// fund credits the test wallet with amount, once.
func (b bundle) fund(t *testing.T, amount money.Amount) {
	t.Helper()
	credited, err := b.credit(amount, "seed")
	require.NoError(t, err)
	require.True(t, credited)
}

// place places a WALLET order that must be placed.
func (b bundle) place(t *testing.T, clientOrderID string, amount money.Amount, quoteID string) orders.Order {
	t.Helper()
	o, err := b.Wallet.PlaceWalletOrder(b.ctx, b.order(clientOrderID, amount), quoteID)
	require.NoError(t, err)
	return o
}

// order is a new WALLET order of the test wallet costing amount.
func (b bundle) order(clientOrderID string, amount money.Amount) orders.Order {
	return orders.Order{ID: uuid.New(), Channel: orders.Partner, GameID: b.game.ID, Environment: studio.Test, UserRef: "u",
		RewardID: b.reward, RewardType: catalogue.GiftCard, Denomination: amount, Quantity: 1, FaceValue: amount,
		ProviderProduct: "P-CONTRACT", Status: orders.Initiated, DeadlineAt: time.Now().Add(time.Hour),
		Partner: &orders.Terms{ClientOrderID: clientOrderID, Customer: orders.Customer{Ref: "u"}, Settlement: orders.Wallet,
			Amount: amount, Currency: "INR", BrandCode: "CONTRACT", BrandName: "Contract Card",
			Payment: orders.Payment{Status: orders.NotRequired}}}
}

func (b bundle) balance(t *testing.T) money.Amount {
	t.Helper()
	bal, err := b.Partner.Repo().Wallet(b.ctx, b.game.ID, studio.Test)
	require.NoError(t, err)
	return bal
}

func (b bundle) entries(t *testing.T) []partner.Entry {
	t.Helper()
	list, err := b.Partner.Repo().Entries(b.ctx, b.game.ID, studio.Test)
	require.NoError(t, err)
	return list
}

// requireNoOrder checks that no order of the game has the clientOrderId.
func (b bundle) requireNoOrder(t *testing.T, clientOrderID string) {
	t.Helper()
	_, err := b.Orders.Repo().FindByClientOrderID(b.ctx, b.game.ID, studio.Test, clientOrderID)
	require.ErrorIs(t, err, orders.ErrOrderNotFound, "order %s must not be kept", clientOrderID)
}

// requireLedgerAddsUp checks the wallet's journal: one sequence of balances from 0, in id
// order, that ends at the balance, never below zero; it returns the debits by order.
func (b bundle) requireLedgerAddsUp(t *testing.T) map[uuid.UUID]money.Amount {
	t.Helper()
	var sum money.Amount
	debits := map[uuid.UUID]money.Amount{}
	for i, e := range b.entries(t) {
		sum += e.Amount
		require.Equal(t, sum, e.BalanceAfter, "entry %d (%s %s) breaks the sequence of balances", i, e.Kind, e.Amount)
		require.GreaterOrEqual(t, e.BalanceAfter, money.Amount(0))
		if e.Kind == partner.Debit {
			require.NotNil(t, e.OrderID)
			debits[*e.OrderID] = -e.Amount
		}
	}
	require.Equal(t, sum, b.balance(t), "the journal sums to the balance")
	return debits
}

var cases = []contract.Case[bundle]{
	{Name: "WalletOrdersNeverOverdrawUnderConcurrency", Run: func(t *testing.T, b bundle) {
		b.fund(t, 100)
		const n = 16
		var (
			wg           sync.WaitGroup
			mu           sync.Mutex
			placed       = map[uuid.UUID]money.Amount{}
			insufficient int
		)
		for i := range n {
			wg.Go(func() {
				o, err := b.Wallet.PlaceWalletOrder(b.ctx, b.order(fmt.Sprintf("c-%d", i), 10), "")
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					placed[o.ID] = o.Partner.Amount
				case errors.Is(err, partner.ErrInsufficientBalance):
					insufficient++
				default:
					t.Errorf("order %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		require.Len(t, placed, 10, "the wallet covers exactly ten orders")
		require.Equal(t, n-10, insufficient)
		require.Zero(t, b.balance(t))
		require.Equal(t, placed, b.requireLedgerAddsUp(t), "one debit of each placed order, none of the others")
		_, total, err := b.Orders.Repo().ListForPartner(b.ctx, b.game.ID, studio.Test, "", "", 50, 0)
		require.NoError(t, err)
		require.EqualValues(t, 10, total, "a refused order is not kept")
	}},
	{Name: "PlacedOrderIsStoredSentWithItsDebit", Run: func(t *testing.T, b bundle) {
		b.fund(t, 100)
		o := b.place(t, "one", 30, "")
		require.Equal(t, orders.Processing, o.Status)
		require.False(t, o.CreatedAt.IsZero())
		got, err := b.Orders.Repo().FindByClientOrderID(b.ctx, b.game.ID, studio.Test, "one")
		require.NoError(t, err)
		require.Equal(t, o.ID, got.ID)
		require.Equal(t, orders.Processing, got.Status)
		steps, err := b.Orders.Repo().Transitions(b.ctx, o.ID)
		require.NoError(t, err)
		require.Len(t, steps, 2)
		require.Equal(t, orders.Initiated, steps[0].To)
		require.Equal(t, partner.WalletDebited, steps[0].Reason)
		require.Equal(t, orders.SentStep.To, steps[1].To)
		require.Equal(t, money.Amount(70), b.balance(t))
		debited, err := b.Partner.Repo().OrderEntryExists(b.ctx, o.ID, partner.Debit)
		require.NoError(t, err)
		require.True(t, debited)
		require.Equal(t, map[uuid.UUID]money.Amount{o.ID: 30}, b.requireLedgerAddsUp(t))
	}},
	{Name: "OrderTheWalletDoesNotCoverKeepsNothing", Run: func(t *testing.T, b bundle) {
		_, err := b.Wallet.PlaceWalletOrder(b.ctx, b.order("no-wallet", 10), "")
		require.ErrorIs(t, err, partner.ErrInsufficientBalance, "a wallet never funded covers nothing")
		b.fund(t, 50)
		_, err = b.Wallet.PlaceWalletOrder(b.ctx, b.order("too-much", 51), "quote-1")
		require.ErrorIs(t, err, partner.ErrInsufficientBalance)
		b.requireNoOrder(t, "no-wallet")
		b.requireNoOrder(t, "too-much")
		require.Equal(t, money.Amount(50), b.balance(t))
		require.Len(t, b.entries(t), 1)
		fresh, err := b.Partner.Repo().UseQuote(b.ctx, "quote-1", uuid.New())
		require.NoError(t, err)
		require.True(t, fresh, "the refused order's use of its quote was not kept")
	}},
	{Name: "QuoteIsUsedOnce", Run: func(t *testing.T, b bundle) {
		b.fund(t, 100)
		first := b.place(t, "first", 10, "quote-1")
		_, err := b.Wallet.PlaceWalletOrder(b.ctx, b.order("second", 10), "quote-1")
		require.ErrorIs(t, err, partner.ErrQuoteUsed)
		b.requireNoOrder(t, "second")
		require.Equal(t, money.Amount(90), b.balance(t))
		require.Equal(t, map[uuid.UUID]money.Amount{first.ID: 10}, b.requireLedgerAddsUp(t))
		fresh, err := b.Partner.Repo().UseQuote(b.ctx, "quote-1", uuid.New())
		require.NoError(t, err)
		require.False(t, fresh)
		fresh, err = b.Partner.Repo().UseQuote(b.ctx, "quote-2", uuid.New())
		require.NoError(t, err)
		require.True(t, fresh)
	}},
	{Name: "TakenClientOrderIDKeepsNothing", Run: func(t *testing.T, b bundle) {
		b.fund(t, 100)
		first := b.place(t, "same", 10, "")
		_, err := b.Wallet.PlaceWalletOrder(b.ctx, b.order("same", 20), "")
		require.ErrorIs(t, err, orders.ErrClientOrderTaken)
		require.Equal(t, money.Amount(90), b.balance(t))
		require.Equal(t, map[uuid.UUID]money.Amount{first.ID: 10}, b.requireLedgerAddsUp(t))
	}},
	{Name: "CreditOncePerReference", Run: func(t *testing.T, b bundle) {
		credited, err := b.credit(40, "ref-1")
		require.NoError(t, err)
		require.True(t, credited)
		credited, err = b.credit(40, "ref-1")
		require.NoError(t, err)
		require.False(t, credited, "the reference was seen")
		// A second credit of a reference that gets past the check fails its transaction.
		err = b.Partner.InTx(b.ctx, func(r partner.Repo) error {
			_, err := r.Apply(b.ctx, partner.Entry{GameID: b.game.ID, Environment: studio.Test, Kind: partner.Credit, Amount: 5,
				BalanceAfter: 45, Reference: "ref-1"})
			return err
		})
		require.Error(t, err)
		require.Equal(t, money.Amount(40), b.balance(t))
		list := b.entries(t)
		require.Len(t, list, 1)
		require.Equal(t, "ref-1", list[0].Reference)
		require.Nil(t, list[0].OrderID)
		other, err := b.Partner.Repo().CreditExists(b.ctx, b.game.ID, studio.Live, "ref-1")
		require.NoError(t, err)
		require.False(t, other, "a reference is the wallet's own")
	}},
	{Name: "RefundOncePerOrder", Run: func(t *testing.T, b bundle) {
		b.fund(t, 100)
		o := b.place(t, "refunded", 30, "")
		refund := func() error {
			return b.Partner.InTx(b.ctx, func(r partner.Repo) error {
				bal, err := r.LockWallet(b.ctx, b.game.ID, studio.Test)
				if err != nil {
					return err
				}
				_, err = r.Apply(b.ctx, partner.Entry{GameID: b.game.ID, Environment: studio.Test, Kind: partner.Refund,
					Amount: 30, BalanceAfter: bal + 30, OrderID: &o.ID})
				return err
			})
		}
		require.NoError(t, refund())
		require.Error(t, refund(), "an order has one refund")
		require.Equal(t, money.Amount(100), b.balance(t))
		done, err := b.Partner.Repo().OrderEntryExists(b.ctx, o.ID, partner.Refund)
		require.NoError(t, err)
		require.True(t, done)
		b.requireLedgerAddsUp(t)
	}},
	{Name: "RolledBackCreditKeepsNothing", Run: func(t *testing.T, b bundle) {
		err := b.Partner.InTx(b.ctx, func(r partner.Repo) error {
			if _, err := r.LockWallet(b.ctx, b.game.ID, studio.Test); err != nil {
				return err
			}
			if _, err := r.Apply(b.ctx, partner.Entry{GameID: b.game.ID, Environment: studio.Test, Kind: partner.Credit, Amount: 5,
				BalanceAfter: 5, Reference: "gone"}); err != nil {
				return err
			}
			return contract.ErrRollback
		})
		require.ErrorIs(t, err, contract.ErrRollback)
		require.Zero(t, b.balance(t))
		require.Empty(t, b.entries(t))
		credited, err := b.credit(5, "gone")
		require.NoError(t, err)
		require.True(t, credited, "the rolled-back credit's reference is free")
	}},
	{Name: "EntriesPageOldestFirst", Run: func(t *testing.T, b bundle) {
		for i := range 5 {
			_, err := b.credit(money.Amount(10*(i+1)), fmt.Sprintf("ref-%d", i))
			require.NoError(t, err)
		}
		all := b.entries(t)
		require.Len(t, all, 5)
		for i, e := range all {
			require.Equal(t, fmt.Sprintf("ref-%d", i), e.Reference)
			require.Equal(t, partner.Credit, e.Kind)
			require.False(t, e.CreatedAt.IsZero())
			if i > 0 {
				require.Greater(t, e.ID, all[i-1].ID)
			}
		}
		got, total, err := b.Partner.Repo().EntriesPage(b.ctx, b.game.ID, studio.Test, 2, 1)
		require.NoError(t, err)
		require.EqualValues(t, 5, total)
		require.Equal(t, all[1:3], got)
		got, total, err = b.Partner.Repo().EntriesPage(b.ctx, b.game.ID, studio.Test, 10, 5)
		require.NoError(t, err)
		require.EqualValues(t, 5, total, "a page past the end still counts the entries")
		require.Empty(t, got)
		got, total, err = b.Partner.Repo().EntriesPage(b.ctx, b.game.ID, studio.Live, 10, 0)
		require.NoError(t, err)
		require.Zero(t, total, "the live wallet is another")
		require.Empty(t, got)
		require.Equal(t, money.Amount(150), b.balance(t))
	}},
	{Name: "ProviderEventIsRecordedOnce", Run: func(t *testing.T, b bundle) {
		o := b.placed(t)
		e := payments.Event{ID: "evt-1", Type: payments.SessionPaid, SessionID: "sess-1"}
		for _, want := range []bool{true, false} {
			fresh, err := b.Partner.Repo().RecordEvent(b.ctx, "cashfree", studio.Test, e, &o.ID)
			require.NoError(t, err)
			require.Equal(t, want, fresh)
		}
		fresh, err := b.Partner.Repo().RecordEvent(b.ctx, "sandbox", studio.Test, e, nil)
		require.NoError(t, err)
		require.True(t, fresh, "an event id is its provider's own")
		err = b.Runner.InTx(b.ctx, func(tx store.Tx) error {
			if _, err := b.Partner.WithTx(tx).RecordEvent(b.ctx, "cashfree", studio.Test, payments.Event{ID: "evt-2", Type: e.Type}, nil); err != nil {
				return err
			}
			return contract.ErrRollback
		})
		require.ErrorIs(t, err, contract.ErrRollback)
		fresh, err = b.Partner.Repo().RecordEvent(b.ctx, "cashfree", studio.Test, payments.Event{ID: "evt-2", Type: e.Type}, nil)
		require.NoError(t, err)
		require.True(t, fresh, "a rolled-back event was not seen")
	}},
	{Name: "PaymentCheckIsClaimedOncePerPeriod", Run: func(t *testing.T, b bundle) {
		o := b.placed(t)
		for _, c := range []struct {
			every time.Duration
			want  bool
		}{{time.Hour, true}, {time.Hour, false}, {0, true}, {time.Hour, false}} {
			claimed, err := b.Partner.Repo().ClaimPaymentCheck(b.ctx, o.ID, c.every)
			require.NoError(t, err)
			require.Equal(t, c.want, claimed, "claim every %s", c.every)
		}
		claimed, err := b.Partner.Repo().ClaimPaymentCheck(b.ctx, uuid.New(), 0)
		require.NoError(t, err)
		require.False(t, claimed, "no such order")
	}},
	{Name: "BrandsByNameThenCode", Run: func(t *testing.T, b bundle) {
		amazon := b.NewBrand(t, "AMAZON", "Amazon Pay")
		b.NewBrand(t, "BOOKS_B", "Book Hub")
		b.NewBrand(t, "BOOKS_A", "Book Hub")
		page := func(search string, limit, offset int) ([]string, int64) {
			t.Helper()
			list, total, err := b.Partner.Repo().Brands(b.ctx, partner.BrandQuery{Search: search, Limit: limit, Offset: offset})
			require.NoError(t, err)
			codes := make([]string, len(list))
			for i, br := range list {
				codes[i] = br.Code
			}
			return codes, total
		}
		codes, total := page("", 10, 0)
		require.Equal(t, []string{"AMAZON", "BOOKS_A", "BOOKS_B", "CONTRACT"}, codes)
		require.EqualValues(t, 4, total)
		codes, total = page("", 2, 1)
		require.Equal(t, []string{"BOOKS_A", "BOOKS_B"}, codes)
		require.EqualValues(t, 4, total)
		codes, total = page("hub", 10, 0)
		require.Equal(t, []string{"BOOKS_A", "BOOKS_B"}, codes, "by name, whatever the case")
		require.EqualValues(t, 2, total)
		codes, _ = page("books_a", 10, 0)
		require.Equal(t, []string{"BOOKS_A"}, codes, "by code")
		codes, total = page("%", 10, 0)
		require.Empty(t, codes, "a wildcard is a character like the others")
		require.Zero(t, total)
		codes, total = page("", 10, 4)
		require.Empty(t, codes)
		require.Zero(t, total, "a page past the last brand counts none")

		br, found, err := b.Partner.Repo().Brand(b.ctx, "AMAZON")
		require.NoError(t, err)
		require.True(t, found)
		require.Equal(t, "Amazon Pay", br.Name)
		require.Equal(t, amazon, br.RewardID)
		require.Equal(t, partner.Fixed, br.ValueType)
		require.Equal(t, []money.Amount{100, 500}, br.Denominations)
		require.NotEmpty(t, br.ProviderProduct)
		_, found, err = b.Partner.Repo().Brand(b.ctx, "amazon")
		require.NoError(t, err)
		require.False(t, found, "a code is found exactly")
	}},
	{Name: "SettingsAndSecrets", Run: func(t *testing.T, b bundle) {
		repo := b.Partner.Repo()
		_, found, err := repo.GetSettings(b.ctx, b.game.ID)
		require.NoError(t, err)
		require.False(t, found)
		put, err := repo.PutSettings(b.ctx, partner.Settings{GameID: b.game.ID, Enabled: true, Settlement: orders.Cash, DiscountPct: 250})
		require.NoError(t, err)
		require.False(t, put.UpdatedAt.IsZero())
		put, err = repo.PutSettings(b.ctx, partner.Settings{GameID: b.game.ID, Enabled: false, Settlement: orders.Wallet, DiscountPct: 100})
		require.NoError(t, err)
		got, found, err := repo.GetSettings(b.ctx, b.game.ID)
		require.NoError(t, err)
		require.True(t, found)
		require.Equal(t, partner.Settings{GameID: b.game.ID, Settlement: orders.Wallet, DiscountPct: 100}, withoutTime(got))
		require.True(t, got.UpdatedAt.Equal(put.UpdatedAt))

		_, found, err = repo.SecretHash(b.ctx, b.game.ID, studio.Live)
		require.NoError(t, err)
		require.False(t, found)
		require.NoError(t, repo.PutSecret(b.ctx, b.game.ID, studio.Live, []byte("h1")))
		require.NoError(t, repo.PutSecret(b.ctx, b.game.ID, studio.Live, []byte("h2")))
		h, found, err := repo.SecretHash(b.ctx, b.game.ID, studio.Live)
		require.NoError(t, err)
		require.True(t, found)
		require.Equal(t, []byte("h2"), h, "the new secret replaces the old")
		_, found, err = repo.SecretHash(b.ctx, b.game.ID, studio.Test)
		require.NoError(t, err)
		require.False(t, found, "each environment has its own")
	}},
	{Name: "TokenIsFoundOnlyWithItsCurrentKeyAndSecret", Run: func(t *testing.T, b bundle) {
		repo := b.Partner.Repo()
		_, err := repo.PutSettings(b.ctx, partner.Settings{GameID: b.game.ID, Enabled: true, Settlement: orders.Wallet, DiscountPct: 100})
		require.NoError(t, err)
		key := b.NewKey(t, b.game.ID, studio.Live)
		require.NoError(t, repo.PutSecret(b.ctx, b.game.ID, studio.Live, []byte("secret-1")))
		expires := time.Now().Add(time.Hour).Truncate(time.Second)
		grant := func(hash string, secret []byte) partner.TokenGrant {
			return partner.TokenGrant{Hash: []byte(hash), GameID: b.game.ID, Environment: studio.Live, ExpiresAt: expires,
				KeyHash: key, SecretHash: secret}
		}
		require.NoError(t, repo.InsertToken(b.ctx, grant("t-1", []byte("secret-1"))))
		require.NoError(t, repo.InsertToken(b.ctx, grant("t-none", nil)))
		rec, err := repo.FindToken(b.ctx, []byte("t-1"))
		require.NoError(t, err)
		require.Equal(t, b.game.ID, rec.GameID)
		require.Equal(t, b.game.StudioID, rec.StudioID)
		require.Equal(t, b.game.Name, rec.GameName)
		require.Equal(t, studio.Live, rec.Environment)
		require.True(t, rec.ExpiresAt.Equal(expires))
		require.NotNil(t, rec.Settings)
		require.Equal(t, partner.Settings{GameID: b.game.ID, Enabled: true, Settlement: orders.Wallet, DiscountPct: 100}, withoutTime(*rec.Settings))
		for name, hash := range map[string]string{"unknown": "t-x", "a live token without a secret": "t-none"} {
			_, err = repo.FindToken(b.ctx, []byte(hash))
			require.ErrorIs(t, err, partner.ErrTokenInvalid, name)
		}

		require.NoError(t, repo.PutSecret(b.ctx, b.game.ID, studio.Live, []byte("secret-2")))
		_, err = repo.FindToken(b.ctx, []byte("t-1"))
		require.ErrorIs(t, err, partner.ErrTokenInvalid, "a rotated secret revokes the token")
		require.NoError(t, repo.InsertToken(b.ctx, grant("t-2", []byte("secret-2"))))
		_, err = repo.FindToken(b.ctx, []byte("t-2"))
		require.NoError(t, err)
		b.RevokeKeys(t, b.game.ID, studio.Live)
		_, err = repo.FindToken(b.ctx, []byte("t-2"))
		require.ErrorIs(t, err, partner.ErrTokenInvalid, "a rotated key revokes the token")

		testKey := b.NewKey(t, b.game.ID, studio.Test)
		require.NoError(t, repo.InsertToken(b.ctx, partner.TokenGrant{Hash: []byte("t-test"), GameID: b.game.ID, Environment: studio.Test,
			ExpiresAt: expires, KeyHash: testKey}))
		rec, err = repo.FindToken(b.ctx, []byte("t-test"))
		require.NoError(t, err, "on test a token needs no secret while none is set")
		require.Equal(t, studio.Test, rec.Environment)
	}},
	{Name: "TokensAreTrimmedDeletedAndPurged", Run: func(t *testing.T, b bundle) {
		repo := b.Partner.Repo()
		key := b.NewKey(t, b.game.ID, studio.Test)
		insert := func(hash string, expires time.Time) {
			t.Helper()
			require.NoError(t, repo.InsertToken(b.ctx, partner.TokenGrant{Hash: []byte(hash), GameID: b.game.ID, Environment: studio.Test,
				ExpiresAt: expires, KeyHash: key}))
		}
		later := time.Now().Add(time.Hour)
		for i := range 4 {
			insert(fmt.Sprintf("t-%d", i), later)
		}
		found := func(hash string) bool {
			t.Helper()
			_, err := repo.FindToken(b.ctx, []byte(hash))
			if errors.Is(err, partner.ErrTokenInvalid) {
				return false
			}
			require.NoError(t, err)
			return true
		}
		require.NoError(t, b.Partner.InTx(b.ctx, func(r partner.Repo) error {
			if err := r.LockTokens(b.ctx, b.game.ID, studio.Test); err != nil {
				return err
			}
			return r.TrimTokens(b.ctx, b.game.ID, studio.Test, 2)
		}))
		require.Equal(t, []bool{false, false, true, true}, []bool{found("t-0"), found("t-1"), found("t-2"), found("t-3")},
			"the two newest are kept")

		insert("old-1", time.Now().Add(-time.Hour))
		insert("old-2", time.Now().Add(-time.Minute))
		n, err := repo.PurgeTokens(b.ctx, 1)
		require.NoError(t, err)
		require.EqualValues(t, 1, n, "at most a batch")
		n, err = repo.PurgeTokens(b.ctx, 10)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		require.True(t, found("t-3"), "a token not expired is kept")

		require.NoError(t, repo.DeleteTokens(b.ctx, b.game.ID, studio.Test))
		require.False(t, found("t-2"))
		require.False(t, found("t-3"))
	}},
}

// placed is a WALLET order placed on a funded wallet.
func (b bundle) placed(t *testing.T) orders.Order {
	t.Helper()
	b.fund(t, 100)
	return b.place(t, "placed", 10, "")
}

func withoutTime(s partner.Settings) partner.Settings {
	s.UpdatedAt = time.Time{}
	return s
}
