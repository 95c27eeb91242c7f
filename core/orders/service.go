package orders

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/sealed"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/vouchers"
)

// Reasons of the coin movements a purchase makes.
const (
	ReasonPurchaseDebit = "PURCHASE_DEBIT"
	ReasonRefundCredit  = "REFUND_CREDIT"
)

// Defaults of Config.
const (
	DefaultWait     = 5 * time.Second
	DefaultPoll     = 30 * time.Second
	DefaultDeadline = 24 * time.Hour
	// MaxQuantity is the most units one store purchase buys.
	MaxQuantity = 5
)

// A provider order past its deadline is refunded only on the provider's final word, since the
// provider may still issue it: it is asked again after as long as it has been late, so that the
// waits double from Config.Poll up to MaxLatePoll, until GiveUpAfter past its deadline.
const (
	// MaxLatePoll is the longest wait between two asks about a late order.
	MaxLatePoll = 30 * time.Minute
	// GiveUpAfter is how long past its deadline an order without a final answer is still
	// asked; then it is asked no more and waits for an operator (ErrAwaitingOperator).
	GiveUpAfter = 24 * time.Hour
)

// Config holds the orders module's collaborators and timings.
type Config struct {
	// Box seals codes at rest (the same box as the catalogue's pools, so a pool code moves to its
	// order sealed).
	Box sealed.Box
	// Provider is the live environment's voucher provider; nil when none is configured.
	Provider vouchers.Provider
	// TestProvider is the test environment's voucher provider (a provider's sandbox, or the
	// built-in one): test orders never reach Provider. nil when none is configured.
	TestProvider vouchers.Provider
	// Jobs queues fulfilment jobs.
	Jobs Scheduler
	// Wait is how long a purchase waits for the provider's final answer before answering
	// TIMEOUT; Poll how often a job asks again; Deadline when an unfinished order is late: one
	// the provider never got is then failed and refunded, one it holds is asked less and less
	// often until it answers finally (MaxLatePoll, GiveUpAfter).
	Wait, Poll, Deadline time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// PartnerRefunds gives back what a failed partner order took; nil when partner orders are
	// not served.
	PartnerRefunds Refunder
	// PoolStock, when set, is the catalogue's cache of pool stock on this instance: a purchase
	// from a pool tells it once committed, so this instance's store shows the new count at once.
	PoolStock *catalogue.PoolStock
	// ReadModel and CoinValues, when both are set, plan purchases from memory: the reward as the
	// catalogue's read model has it and the coin's value as this instance keeps it, instead of
	// a round trip to the storage. The purchase's transaction checks first that the
	// catalogue's version and the coin's value are still those (Repo.CheckPlan); when either
	// moved, the transaction rolls back and the purchase is planned again from the storage.
	ReadModel  *catalogue.ReadModel
	CoinValues *coins.Values
}

// Service holds the order use cases.
type Service struct {
	runner    store.Runner
	orders    store.Of[Repo]
	coins     store.Of[coins.Repo]
	catalogue store.Of[catalogue.Repo]
	keeper    *idempotency.Keeper
	cfg       Config
	now       func() time.Time
}

// NewService returns a Service over the orders storage and the coins and catalogue modules'
// storage, which a purchase changes in the same transactions.
func NewService(runner store.Runner, orderStore store.Of[Repo], coinStore store.Of[coins.Repo], cat store.Of[catalogue.Repo],
	keeper *idempotency.Keeper, cfg Config) *Service {
	if cfg.Wait <= 0 {
		cfg.Wait = DefaultWait
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = DefaultDeadline
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Service{runner: runner, orders: orderStore, coins: coinStore, catalogue: cat, keeper: keeper, cfg: cfg, now: now}
}

// Purchase is a player's request to buy a reward with coins.
type Purchase struct {
	Caller   studio.Caller
	Player   players.Player
	RewardID uuid.UUID
	CoinID   uuid.UUID
	// Denomination is the face value wanted; nil when the reward has one only.
	Denomination *money.Amount
	Quantity     int
	// AddressID is the 1-based position of one of the player's addresses (physical goods).
	AddressID string
	// IdempotencyKey, when set, makes the purchase happen at most once per player.
	IdempotencyKey string
}

// purchaseRequest is what two purchases with one idempotency key must share.
type purchaseRequest struct {
	RewardID     uuid.UUID     `json:"rewardId"`
	CoinID       uuid.UUID     `json:"coinId"`
	Denomination *money.Amount `json:"denomination"`
	Quantity     int           `json:"quantity"`
	AddressID    string        `json:"addressId"`
}

// plan is what a purchase will do, decided before its transaction.
type plan struct {
	reward  catalogue.Reward
	face    money.Amount
	price   int64 // coins for all units
	address *players.Address
	// fromMemory: planned from the read model at catalogue version, which the transaction checks.
	fromMemory bool
	version    int64
}

// ErrPlanMoved means the catalogue or the coin moved between a purchase's plan from memory and
// its transaction (Repo.CheckPlan), which rolled back: the purchase is planned again from the
// storage.
var ErrPlanMoved = errors.New("the catalogue or the coin changed since the purchase was planned")

// Buy spends a player's coins on a reward. In one transaction it debits the coins
// (PURCHASE_DEBIT, a COINS_DEBITED event), creates the order and, for a coupon, takes its codes
// (from the pool with SKIP LOCKED, or the shared code) and finishes it SUCCESS; a physical good
// finishes SUCCESS too. A gift card or credit is stored PROCESSING and sent to the voucher
// provider after the transaction, with the order id as the provider's idempotent reference; Buy
// waits up to Config.Wait for the final answer and otherwise answers with the order TIMEOUT,
// which a job resolves (handOver; the Scheduler recovers an order whose process died before).
// A refusal fails the order and refunds the coins in one transaction. The boolean result
// reports a replay of an earlier purchase with the same idempotency key (the order as it is
// now).
func (s *Service) Buy(ctx context.Context, p Purchase) (View, bool, error) {
	if p.Quantity == 0 {
		p.Quantity = 1
	}
	if p.Quantity < 1 || p.Quantity > MaxQuantity {
		return View{}, false, errs.Invalidf("quantity must be from 1 to %d", MaxQuantity)
	}
	var pl plan
	var coin coins.Coin
	fromMemory := true
	req := idempotency.Request{
		Key: idempotency.Key{GameID: p.Caller.GameID, Environment: string(p.Caller.Environment),
			Scope: "player:" + p.Player.ID.String(), Key: p.IdempotencyKey},
		Op:   "orders.purchase",
		Body: purchaseRequest{RewardID: p.RewardID, CoinID: p.CoinID, Denomination: p.Denomination, Quantity: p.Quantity, AddressID: p.AddressID},
		// The checks that ask the provider run outside the transaction, and not on a replay.
		Prepare: func(ctx context.Context) (err error) {
			pl, coin, err = s.plan(ctx, p, fromMemory)
			return err
		},
		// Planned from memory that the transaction found stale (nothing committed): planned
		// again from the storage.
		Again: func(err error) bool {
			again := fromMemory && errors.Is(err, ErrPlanMoved)
			if again {
				// The coin's value may be what moved: read it again from now on.
				s.cfg.CoinValues.Forget(p.CoinID)
			}
			fromMemory = false
			return again
		},
	}
	// The answer is what the transaction left (no read after it); a replay reads the order as it
	// is now.
	var placed View
	id, replayed, err := idempotency.Do(ctx, s.keeper, req, func(ctx context.Context, t store.Tx) (uuid.UUID, error) {
		var err error
		placed, err = s.place(ctx, t, p, pl, coin)
		return placed.ID, err
	})
	if s.cfg.PoolStock != nil && !replayed && pl.reward.ID != uuid.Nil && pl.reward.IsPool() {
		s.cfg.PoolStock.Changed(pl.reward.ID)
	}
	if err != nil {
		return View{}, replayed, err
	}
	if replayed {
		v, err := s.view(ctx, id)
		return v, true, err
	}
	if pl.reward.ProviderProductID != "" {
		// The provider's answer within the wait goes in the response.
		placed = s.fulfilPlaced(ctx, placed)
	}
	return placed, false, nil
}

// plan checks a purchase against the catalogue before any transaction: the reward (visible to
// the game, not expired), the coin, the face value, the address, the provider's stock. With
// fromMemory it reads the reward and the coin from memory where it can (fromMemory); a refusal is
// the storage's to make, since memory may be a moment behind it, so a plan from memory that
// refuses is made again from the storage.
func (s *Service) plan(ctx context.Context, p Purchase, fromMemory bool) (plan, coins.Coin, error) {
	if listed, coin, version, ok := s.fromMemory(ctx, p, fromMemory); ok {
		if pl, err := s.check(ctx, p, listed, coin); err == nil {
			pl.fromMemory, pl.version = true, version
			return pl, coin, nil
		}
	}
	listed, coin, err := s.fromStorage(ctx, p)
	if err != nil {
		return plan{}, coin, err
	}
	pl, err := s.check(ctx, p, listed, coin)
	return pl, coin, err
}

// check is plan's checks of the reward as listed, priced in coin.
func (s *Service) check(ctx context.Context, p Purchase, listed catalogue.Listed, coin coins.Coin) (plan, error) {
	r := listed.Reward
	pl := plan{reward: r}
	switch {
	case p.Denomination != nil:
		if !r.OffersFace(*p.Denomination) {
			return plan{}, ErrDenominationNotAvailable
		}
		pl.face = *p.Denomination
	case len(r.Faces()) == 1:
		pl.face = r.Faces()[0]
	default:
		return plan{}, errs.Invalidf("denomination is required: this reward offers several values")
	}
	pl.price = money.MulSat(r.CoinPrice(pl.face, coin.CoinsPerUnit, listed.Override), int64(p.Quantity))
	if r.Type == catalogue.Physical {
		i, err := strconv.Atoi(p.AddressID)
		if p.AddressID == "" || err != nil || i < 1 || i > len(p.Player.Addresses) {
			return plan{}, ErrAddressRequired
		}
		a := p.Player.Addresses[i-1]
		pl.address = &a
	}
	if r.ProviderProductID != "" {
		provider := s.Provider(p.Caller.Environment)
		if provider == nil {
			return plan{}, ErrOutOfStock.Withf("no voucher provider is configured")
		}
		levels, err := provider.Stock(ctx, r.ProviderProductID)
		if err != nil {
			return plan{}, fmt.Errorf("stock of %s: %w", r.ProviderProductID, err)
		}
		if !inStock(levels, r, pl.face, p.Quantity) {
			return plan{}, ErrOutOfStock
		}
	}
	return pl, nil
}

// fromMemory reads a purchase's reward, as the game's players see it, from the catalogue's read
// model, and its coin's value from this instance's coin values, with the catalogue version they
// were read at; ok is false when it cannot (use false, no read model or coin values, no
// snapshot loaded yet, a reward the snapshot does not show, a failed read): the purchase is then
// planned from the storage, which also tells an expired reward from an unknown one.
func (s *Service) fromMemory(ctx context.Context, p Purchase, use bool) (listed catalogue.Listed, coin coins.Coin, version int64, ok bool) {
	if !use || s.cfg.ReadModel == nil || s.cfg.CoinValues == nil {
		return listed, coin, 0, false
	}
	snap := s.cfg.ReadModel.Loaded(ctx)
	if snap == nil {
		return listed, coin, 0, false
	}
	n, err := s.cfg.CoinValues.CoinsPerUnit(ctx, s.coins.Repo(), p.Caller.GameID, p.CoinID)
	if err != nil {
		return listed, coin, 0, false
	}
	listed, err = snap.Get(catalogue.ListQuery{GameID: p.Caller.GameID, CoinID: p.CoinID, CoinsPerUnit: n, Now: s.now()}, p.RewardID)
	if err != nil {
		return listed, coin, 0, false
	}
	return listed, coins.Coin{ID: p.CoinID, GameID: p.Caller.GameID, CoinsPerUnit: n}, snap.Version(), true
}

// fromStorage reads a purchase's reward, as the game's players see it, and its coin in one
// round trip: ErrRewardExpired for a reward whose end date has passed.
func (s *Service) fromStorage(ctx context.Context, p Purchase) (catalogue.Listed, coins.Coin, error) {
	cat := s.catalogue.Repo()
	listed, coin, err := cat.GetVisibleWithCoin(ctx, catalogue.ListQuery{GameID: p.Caller.GameID, CoinID: p.CoinID, Now: s.now()}, p.RewardID)
	if errs.CodeOf(err) == catalogue.ErrRewardNotFound.Code {
		if r, gerr := cat.GetReward(ctx, p.RewardID); gerr == nil && r.IsActive && r.EndDate != nil && !r.EndDate.After(s.now()) {
			return listed, coin, ErrRewardExpired
		}
	}
	return listed, coin, err
}

// Provider is the voucher provider of env, nil when none is configured: the test environment
// has its own (a provider's sandbox or the built-in one) and never reaches the live one, so that
// a test key can never turn test coins into real gift cards.
func (s *Service) Provider(env studio.Environment) vouchers.Provider {
	if env == studio.Live {
		return s.cfg.Provider
	}
	return s.cfg.TestProvider
}

// inStock reports whether the provider can issue quantity cards of face value f.
func inStock(levels []vouchers.Stock, r catalogue.Reward, f money.Amount, quantity int) bool {
	lv, found := vouchers.LevelOf(levels, f, r.ValueType == catalogue.Range)
	return found && lv.Covers(quantity)
}

// place is the purchase's transaction; it returns the order as the transaction leaves it, with
// its codes opened and the balance after the debit. An order the provider sends queues no job
// here: the purchase sends it once this commits, and only an order still unfinished after the
// wait is handed to a job (handOver).
func (s *Service) place(ctx context.Context, t store.Tx, p Purchase, pl plan, coin coins.Coin) (View, error) {
	repo, cat := s.orders.WithTx(t), s.catalogue.WithTx(t)
	// A plan from memory is checked first: when it no longer holds, the transaction fails with
	// ErrPlanMoved, and the purchase is planned again from the storage (Again), so that any
	// refusal is the storage's.
	if pl.fromMemory {
		if err := repo.CheckPlan(ctx, p.Caller.GameID, coin.ID, coin.CoinsPerUnit, pl.version); err != nil {
			return View{}, err
		}
	}
	if err := repo.LockPlayerReward(ctx, p.Caller.GameID, p.Player.ID, p.RewardID); err != nil {
		return View{}, err
	}
	if pl.reward.PurchaseCooldown > 0 {
		last, err := repo.LastPurchase(ctx, p.Player.ID, p.RewardID)
		if err != nil {
			return View{}, err
		}
		now := s.now()
		if next, in := pl.reward.NextPurchaseAt(last, now); in {
			return View{}, ErrCooldown.WithRetryAfter(next.Sub(now))
		}
	}
	now := s.now()
	o := Order{
		ID: uuid.New(), Channel: Store, GameID: p.Caller.GameID, Environment: p.Caller.Environment, PlayerID: p.Player.ID,
		UserRef: p.Player.StudioRef(), RewardID: p.RewardID, RewardType: pl.reward.Type, CoinID: coin.ID, Status: Initiated,
		Denomination: pl.face, Quantity: p.Quantity, FaceValue: pl.face.Times(int64(p.Quantity)), CoinsSpent: pl.price,
		ProviderProduct: pl.reward.ProviderProductID, Address: pl.address, DeadlineAt: now.Add(s.cfg.Deadline),
	}
	// A coupon's codes are taken with the debit: a pool's codes name their order, which needs no
	// row yet, and a refused debit leaves them as they were.
	charge := Charge{Debit: s.movement(o, pl.price, ReasonPurchaseDebit)}
	coupon := o.ProviderProduct == "" && (pl.reward.Type == catalogue.Coupon || pl.reward.IsPool())
	if coupon {
		charge.Coupon = &CouponTake{RewardID: pl.reward.ID, OrderID: o.ID, Quantity: o.Quantity, Shared: pl.reward.HasSharedCode}
	}
	charged, err := repo.Charge(ctx, charge)
	if err != nil {
		return View{}, err
	}
	o.DebitTxID = &charged.Debit.ID
	// The order is created at the transaction's time, which the debit answered.
	o.CreatedAt = charged.Debit.CreatedAt
	var codes []SealedCode
	if coupon {
		if codes, err = couponCodes(charge.Coupon, charged.Codes, o.Denomination); err != nil {
			return View{}, err
		}
	}
	// The order is stored as this transaction leaves it, in one write: SUCCESS for what is
	// delivered here (a coupon's codes, which roll everything back when there are none left; a
	// physical good), PROCESSING for what the provider sends (SentStep), which is sent once this
	// commits (fulfilPlaced).
	then := Step{To: Success, Reason: "delivered at purchase"}
	if o.ProviderProduct != "" {
		then = SentStep
	}
	if o, err = repo.Insert(ctx, o, "coins debited", then); err != nil {
		return View{}, err
	}
	if coupon {
		o.Codes = codes
		if err := repo.AddCodes(ctx, o.ID, o.Codes); err != nil {
			return View{}, err
		}
	}
	if o.ProviderProduct == "" {
		// Counted for the catalogue's trending orders.
		if err := cat.RecordOrder(ctx, o.RewardID, s.now()); err != nil {
			return View{}, err
		}
	}
	if err := repo.SpendBudget(ctx, o.GameID, o.Environment, now, o.FaceValue); err != nil {
		return View{}, err
	}
	return s.open(o, map[uuid.UUID]int64{o.CoinID: charged.Debit.BalanceAfter})
}

// sentReason is the reason of an order's move to PROCESSING.
const sentReason = "sent to the voucher provider"

// SentStep is the move to PROCESSING of an order that the transaction creating it marks as sent
// to the voucher provider (Repo.Insert), which its caller then sends (fulfilPlaced, FulfilSent).
var SentStep = Step{To: Processing, Reason: sentReason}

func (s *Service) movement(o Order, amount int64, reason string) coins.Movement {
	return coins.Movement{GameID: o.GameID, Environment: o.Environment, PlayerID: o.PlayerID, UserUUID: o.UserRef,
		CoinID: o.CoinID, Amount: amount, Reason: reason, ReferenceID: o.ID.String()}
}

// couponCodes are an order's codes from what its charge took: the shared code once per unit,
// or one pool code per unit (fewer is OUT_OF_STOCK, which rolls the whole purchase back).
func couponCodes(take *CouponTake, taken []catalogue.SealedCode, value money.Amount) ([]SealedCode, error) {
	if take.Shared {
		if len(taken) == 0 {
			return nil, catalogue.ErrRewardNotFound.Withf("this coupon has no shared code")
		}
		out := make([]SealedCode, take.Quantity)
		for i := range out {
			out[i] = SealedCode{Code: taken[0].Code, Value: value}
		}
		return out, nil
	}
	if len(taken) < take.Quantity {
		return nil, ErrOutOfStock
	}
	out := make([]SealedCode, len(taken))
	for i, c := range taken {
		out[i] = SealedCode{Code: c.Code, Pin: c.Pin, Value: value, Expiry: c.Expiry}
	}
	return out, nil
}

// ErrMovedElsewhere means another worker moved the order first; the transaction rolls back.
var ErrMovedElsewhere = errors.New("the order was moved by another worker")

// errLost is ErrMovedElsewhere, as the steps here name it.
var errLost = ErrMovedElsewhere

func errMoved(moved bool) error {
	if moved {
		return nil
	}
	return errLost
}

// fail moves an order to FAILED and refunds its coins (REFUND_CREDIT, a COINS_REFUNDED event)
// in one transaction.
func (s *Service) fail(ctx context.Context, o Order, from Status, reason string) error {
	if o.Channel == Partner {
		return s.runner.InTx(ctx, func(t store.Tx) error {
			moved, err := s.orders.WithTx(t).Move(ctx, o.ID, from, Failed, reason, nil)
			if err != nil || !moved {
				return errors.Join(err, errMoved(moved))
			}
			if s.cfg.PartnerRefunds == nil {
				return errors.New("partner orders are not served: nothing can refund one")
			}
			return s.cfg.PartnerRefunds.RefundFailed(ctx, t, o, reason)
		})
	}
	return s.runner.InTx(ctx, func(t store.Tx) error {
		refund, err := s.coins.WithTx(t).ApplyMovement(ctx, s.movement(o, o.CoinsSpent, ReasonRefundCredit), coins.Credit, coins.EventRefunded)
		if err != nil {
			return err
		}
		repo := s.orders.WithTx(t)
		moved, err := repo.Move(ctx, o.ID, from, Failed, reason, &refund.ID)
		if err != nil {
			return err
		}
		if err := errMoved(moved); err != nil {
			return err
		}
		// A refunded purchase gives its share of the day's budget back.
		return repo.ReturnBudget(ctx, o.GameID, o.Environment, o.CreatedAt, o.FaceValue)
	})
}

// FulfilWithin places an order the provider fulfils (or asks again) and waits up to
// Config.Wait for the final answer, for a caller that answers with the order: a failure to get
// one is the job's to resolve, not the caller's error.
func (s *Service) FulfilWithin(ctx context.Context, id uuid.UUID) {
	waitCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.Wait)
	defer cancel()
	_, _ = s.advance(waitCtx, id)
}

// FulfilSent is fulfilPlaced for a partner order (no balance): o was marked PROCESSING by
// the transaction that placed it (SentStep), which has committed.
func (s *Service) FulfilSent(ctx context.Context, o Order) View {
	v, err := s.open(o, nil)
	if err != nil {
		s.handOver(ctx, o)
		return View{Order: o}
	}
	return s.fulfilPlaced(ctx, v)
}

// fulfilPlaced sends an order that the purchase's transaction marked PROCESSING to the provider
// and waits up to Config.Wait for the final answer, like FulfilWithin, but from the order in
// hand rather than read again; it returns the order as it then is, balance included. An order
// not final by then is handed to a job (handOver): on time, the order costs no job at all.
func (s *Service) fulfilPlaced(ctx context.Context, v View) View {
	waitCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.Wait)
	defer cancel()
	o := v.Order
	if _, err := s.step(waitCtx, &o, true); err != nil || !o.Status.Final() {
		// The job resolves it; the answer is the order as it was sent, or TIMEOUT.
		s.handOver(ctx, o)
		if err != nil {
			return v
		}
	}
	if o.Status == Failed {
		// Refunded: the order as stored (its refund) and the player's balance now.
		if out, err := s.view(ctx, o.ID); err == nil {
			return out
		}
		return v
	}
	out, err := s.open(o, map[uuid.UUID]int64{o.CoinID: v.Balance})
	if err != nil {
		return v
	}
	return out
}

// handOver queues the fulfilment job of an order its placing process sent but could not see
// final within the wait, due when the wait after its placing ends. Should the process die
// before, or the queueing fail, the Scheduler's recovery queues it (Scheduler): every open order
// of the provider ends up with one job.
func (s *Service) handOver(ctx context.Context, o Order) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handOverTimeout)
	defer cancel()
	_ = s.runner.InTx(ctx, func(t store.Tx) error {
		return s.cfg.Jobs.ScheduleFulfilment(ctx, t, o.ID, o.CreatedAt.Add(s.cfg.Wait))
	})
}

// handOverTimeout bounds handOver's transaction.
const handOverTimeout = 5 * time.Second

// Wait is how long a purchase waits for the provider.
func (s *Service) Wait() time.Duration { return s.cfg.Wait }

// Deadline is how long the provider has to finish an order before it is late.
func (s *Service) Deadline() time.Duration { return s.cfg.Deadline }

// Fulfil advances an order the provider fulfils, for its job: it returns how long to wait
// before asking again, or zero when the order is final. An order still without a final answer
// GiveUpAfter past its deadline is ErrAwaitingOperator: its job ends, and an operator resolves
// it with the provider.
func (s *Service) Fulfil(ctx context.Context, id uuid.UUID) (time.Duration, error) {
	return s.advance(ctx, id)
}

// advance moves a provider order one step: an INITIATED order is marked PROCESSING and placed
// with the provider; a PROCESSING or TIMEOUT one is asked for its state (placed again if the
// provider never saw it: the reference makes that safe). An issued order succeeds with its
// codes, late or not; a refused one fails and is refunded, as does one the provider never got
// by its deadline; one still pending, or not answered, is TIMEOUT and asked again (step). Every
// move is conditional on the state read, so the purchase's own wait and the job never apply one
// twice.
func (s *Service) advance(ctx context.Context, id uuid.UUID) (time.Duration, error) {
	o, err := s.orders.Repo().Get(ctx, id)
	if err != nil {
		return 0, err
	}
	if o.Status.Final() || o.ProviderProduct == "" {
		return 0, nil
	}
	if s.Provider(o.Environment) == nil {
		return s.cfg.Poll, fmt.Errorf("no voucher provider is configured for the %s environment", o.Environment)
	}
	fresh := o.Status == Initiated
	if fresh {
		moved, err := s.move(ctx, o.ID, Initiated, Processing, sentReason)
		if err != nil {
			return 0, err
		}
		if !moved {
			return s.cfg.Poll, nil
		}
		o.Status = Processing
	}
	return s.step(ctx, &o, fresh)
}

// step asks the provider about a PROCESSING or TIMEOUT order (placing it at once when fresh: it
// was never sent) and applies the answer, leaving o as it then is: SUCCESS with its codes,
// FAILED, or TIMEOUT. It returns how long to wait before asking again, zero when o is final. A
// final move is made in one transaction.
//
// The deadline alone fails nothing the provider holds: a pending answer, or none, past the
// deadline only makes the next ask later (latePoll), since the provider may still issue the
// order, and a refund then would pay for a card nobody receives.
func (s *Service) step(ctx context.Context, o *Order, fresh bool) (time.Duration, error) {
	var res vouchers.Result
	var err error
	if fresh {
		// Never sent before: place it straight away (placing is idempotent by reference).
		res, err = s.send(ctx, *o)
	} else {
		res, err = s.ask(ctx, *o)
	}
	switch {
	case err == nil && res.Status == vouchers.Issued:
		codes, derr := s.deliver(ctx, *o, res.Vouchers)
		if derr == nil {
			o.Status, o.Codes = Success, codes
		}
		return s.settled(derr)
	case err == nil && res.Status == vouchers.Refused:
		reason := refusal(res.Reason)
		ferr := s.fail(ctx, *o, o.Status, reason)
		if ferr == nil {
			o.Status, o.FailureReason = Failed, reason
		}
		return s.settled(ferr)
	}
	next, late := s.cfg.Poll, s.now().Sub(o.DeadlineAt)
	var giveUp error
	switch {
	case late >= GiveUpAfter:
		next, giveUp = 0, fmt.Errorf("%s order %s (%s) has had no final answer from the voucher provider for %s past its deadline %s (last answer: %s): %w",
			o.Channel, o.ID, o.Environment, late.Round(time.Second), o.DeadlineAt.Format(time.RFC3339), answer(res, err), ErrAwaitingOperator)
	case late > 0:
		next = s.latePoll(late)
	}
	if o.Status == Processing {
		if _, merr := s.move(context.WithoutCancel(ctx), o.ID, Processing, Timeout, "no final answer yet; asking again"); merr != nil {
			return 0, merr
		}
		o.Status = Timeout
	}
	return next, giveUp
}

// latePoll is how long to wait before asking again about an order late by late (0 < late <
// GiveUpAfter): as long as it has been late, so that each wait doubles the lateness, from Poll
// up to MaxLatePoll, and never past GiveUpAfter, when it is asked a last time.
func (s *Service) latePoll(late time.Duration) time.Duration {
	return min(max(late, s.cfg.Poll), MaxLatePoll, GiveUpAfter-late)
}

// answer says what the provider last answered about an order that is not final, for the
// operator.
func answer(res vouchers.Result, err error) string {
	if err != nil {
		return err.Error()
	}
	return string(res.Status)
}

// neverReached is the reason of an order that never reached the provider before its deadline.
const neverReached = "never reached the provider before the deadline"

// providerCode is the leading UPPER_SNAKE code of a provider's refusal text, if it has one.
var providerCode = regexp.MustCompile(`^[A-Z][A-Z0-9_]{1,63}\b`)

// refusal is the failure reason of an order the provider refused: its code at most, never its
// free text, which may carry addresses or internals and reaches partners and players.
func refusal(reason string) string {
	if reason == neverReached {
		return reason // ours, not the provider's
	}
	if code := providerCode.FindString(reason); code != "" {
		return "refused by the voucher provider (" + code + ")"
	}
	return "refused by the voucher provider"
}

// ask reads the provider's state of an order, placing it when the provider never saw it.
func (s *Service) ask(ctx context.Context, o Order) (vouchers.Result, error) {
	res, err := s.Provider(o.Environment).GetOrder(ctx, o.ID.String())
	if errs.CodeOf(err) == vouchers.ErrOrderNotFound.Code {
		if s.now().After(o.DeadlineAt) {
			// Never seen by the provider, and too late to send: it fails and is refunded, and
			// nothing can be issued behind the refund's back.
			return vouchers.Result{Status: vouchers.Refused, Reason: neverReached}, nil
		}
		return s.send(ctx, o)
	}
	return res, err
}

// send sends an order to the provider with its id as the idempotent reference.
func (s *Service) send(ctx context.Context, o Order) (vouchers.Result, error) {
	return s.Provider(o.Environment).PlaceOrder(ctx, vouchers.Order{Reference: o.ID.String(), ProductID: o.ProviderProduct,
		Denomination: o.Denomination, Quantity: o.Quantity})
}

// deliver stores an issued order's codes, sealed, and moves it to SUCCESS; it returns the codes
// stored.
func (s *Service) deliver(ctx context.Context, o Order, issued []vouchers.Voucher) ([]SealedCode, error) {
	codes := make([]SealedCode, len(issued))
	for i, v := range issued {
		codes[i] = SealedCode{Code: s.cfg.Box.Seal(v.Code), ProviderVoucherID: v.ProviderVoucherID, Value: v.Value, Expiry: v.Expiry}
		if v.Pin != "" {
			codes[i].Pin = s.cfg.Box.Seal(v.Pin)
		}
	}
	return codes, s.runner.InTx(ctx, func(t store.Tx) error {
		if err := s.orders.WithTx(t).Advance(ctx, o.ID, o.Status, Success, "issued by the voucher provider"); err != nil {
			return err
		}
		if err := s.orders.WithTx(t).AddCodes(ctx, o.ID, codes); err != nil {
			return err
		}
		return s.catalogue.WithTx(t).RecordOrder(ctx, o.RewardID, s.now())
	})
}

// move changes an order's status and records the transition in one transaction, so that the
// history is in the order of the moves and never misses one.
func (s *Service) move(ctx context.Context, id uuid.UUID, from, to Status, reason string) (moved bool, err error) {
	if !CanMove(from, to) {
		return false, ErrIllegalTransition.Withf("an order cannot move from %s to %s", from, to)
	}
	err = s.runner.InTx(ctx, func(t store.Tx) error {
		moved, err = s.orders.WithTx(t).Move(ctx, id, from, to, reason, nil)
		return err
	})
	return moved, err
}

// settled is a step's answer after a final move: zero when it was made. When another worker
// moved the order first, the order may only have gone to TIMEOUT (the purchase's own wait
// ending), so the job must ask again rather than end; the next step answers zero if the order
// is final by then.
func (s *Service) settled(err error) (time.Duration, error) {
	if errors.Is(err, errLost) {
		return s.cfg.Poll, nil
	}
	return 0, err
}

// view returns an order with its codes opened and the player's balance.
func (s *Service) view(ctx context.Context, id uuid.UUID) (View, error) {
	o, err := s.orders.Repo().Get(ctx, id)
	if err != nil {
		return View{}, err
	}
	return s.openOne(ctx, o)
}

// balances returns a player's balance of every coin of a game.
func (s *Service) balances(ctx context.Context, gameID, playerID uuid.UUID) (map[uuid.UUID]int64, error) {
	funds, err := s.coins.Repo().Funds(ctx, gameID, playerID)
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]int64, len(funds))
	for _, f := range funds {
		out[f.Coin.ID] = f.Balance
	}
	return out, nil
}

func (s *Service) openOne(ctx context.Context, o Order) (View, error) {
	bal, err := s.balances(ctx, o.GameID, o.PlayerID)
	if err != nil {
		return View{}, err
	}
	return s.open(o, bal)
}

// open opens an order's codes; balances are the player's at the time of the answer.
func (s *Service) open(o Order, balances map[uuid.UUID]int64) (View, error) {
	v := View{Order: o, Codes: make([]Code, 0, len(o.Codes))}
	for _, c := range o.Codes {
		code, err := s.cfg.Box.Open(c.Code)
		if err != nil {
			return View{}, fmt.Errorf("open a code of order %s: %w", o.ID, err)
		}
		pin := ""
		if c.Pin != nil {
			if pin, err = s.cfg.Box.Open(c.Pin); err != nil {
				return View{}, fmt.Errorf("open a pin of order %s: %w", o.ID, err)
			}
		}
		v.Codes = append(v.Codes, Code{Code: code, Pin: pin, ProviderVoucherID: c.ProviderVoucherID, Value: c.Value, Expiry: c.Expiry})
	}
	v.Balance = balances[o.CoinID]
	return v, nil
}

// PlayerOrder returns one of the player's orders; another player's is ErrOrderNotFound.
func (s *Service) PlayerOrder(ctx context.Context, playerID, id uuid.UUID) (View, error) {
	o, err := s.orders.Repo().Get(ctx, id)
	if err != nil {
		return View{}, err
	}
	if o.PlayerID != playerID {
		return View{}, ErrOrderNotFound
	}
	return s.openOne(ctx, o)
}

// PlayerOrders returns a page of the player's orders, newest first.
func (s *Service) PlayerOrders(ctx context.Context, playerID uuid.UUID, rewardID *uuid.UUID, limit, offset int) ([]View, int64, error) {
	list, total, err := s.orders.Repo().ListForPlayer(ctx, playerID, rewardID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	out := make([]View, len(list))
	balances := map[uuid.UUID]int64{}
	if len(list) > 0 {
		if balances, err = s.balances(ctx, list[0].GameID, playerID); err != nil {
			return nil, 0, err
		}
	}
	for i, o := range list {
		if out[i], err = s.open(o, balances); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

// Verify reports whether an order of the caller's game and environment succeeded.
func (s *Service) Verify(ctx context.Context, c studio.Caller, id uuid.UUID) (bool, error) {
	o, err := s.orders.Repo().Get(ctx, id)
	if errs.CodeOf(err) == ErrOrderNotFound.Code {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return o.GameID == c.GameID && o.Environment == c.Environment && o.Status == Success, nil
}

// History returns an order with its transitions, for the operator (codes stay sealed).
func (s *Service) History(ctx context.Context, id uuid.UUID) (Order, []Transition, error) {
	o, err := s.orders.Repo().Get(ctx, id)
	if err != nil {
		return Order{}, nil, err
	}
	tr, err := s.orders.Repo().Transitions(ctx, id)
	return o, tr, err
}

// LastPurchase implements catalogue.Cooldowns.
func (s *Service) LastPurchase(ctx context.Context, playerID, rewardID uuid.UUID) (*time.Time, error) {
	return s.orders.Repo().LastPurchase(ctx, playerID, rewardID)
}

// Get returns an order as stored (codes sealed).
func (s *Service) Get(ctx context.Context, id uuid.UUID) (Order, error) {
	return s.orders.Repo().Get(ctx, id)
}

// Open returns an order with its codes opened and no balance: a partner order.
func (s *Service) Open(o Order) (View, error) { return s.open(o, nil) }
