package partner

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/payments"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/weburl"
)

// PlaceRequest is a partner's order.
type PlaceRequest struct {
	ClientOrderID string
	BrandCode     string
	Denomination  money.Amount
	Quantity      int
	Customer      orders.Customer
	ReturnURL     string
	QuoteID       string
}

var (
	clientOrderIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	e164                 = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)
	emailPattern         = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)
)

func (r PlaceRequest) validate() error {
	switch {
	case !clientOrderIDPattern.MatchString(r.ClientOrderID):
		return errs.Invalidf("clientOrderId must be 1 to 64 of A-Z a-z 0-9 _ -")
	case r.Quantity < 1 || r.Quantity > MaxQuantity:
		return errs.Invalidf("quantity must be from 1 to %d", MaxQuantity)
	case strings.TrimSpace(r.Customer.Ref) == "" || len(r.Customer.Ref) > 128:
		return errs.Invalidf("customer.ref is required (1 to 128 characters)")
	case r.Customer.Email != "" && (len(r.Customer.Email) > 254 || !emailPattern.MatchString(r.Customer.Email)):
		return errs.Invalidf("customer.email is not an email address")
	case r.Customer.Phone != "" && !e164.MatchString(r.Customer.Phone):
		return errs.Invalidf("customer.phone must be in E.164 form, such as +919876543210")
	}
	// The deployment's scheme rule (https in production) is checked by Place.
	return weburl.Check("returnUrl", r.ReturnURL, true, false)
}

// Place places a partner order, once per clientOrderId: a retry with the same brand,
// denomination and quantity answers the order as it is now (replayed true); another body is
// 422 IDEMPOTENCY_KEY_REUSED. WALLET: the wallet is debited in the order's transaction (too low
// a balance creates nothing), the provider is asked outside it, and the answer within the wait
// is in the result (else TIMEOUT, which a job resolves; FAILED refunds the wallet). CASH: a
// payment session is opened first (PAYMENT_INIT_FAILED keeps nothing), and the order waits
// PENDING_PAYMENT for its payment.
func (s *Service) Place(ctx context.Context, c Caller, r PlaceRequest) (orders.View, bool, error) {
	if err := r.validate(); err != nil {
		return orders.View{}, false, err
	}
	if err := weburl.Check("returnUrl", r.ReturnURL, s.cfg.AllowHTTPURLs, false); err != nil {
		return orders.View{}, false, err
	}
	// A WALLET order is looked up by its clientOrderId only when it is not placed: the insert of
	// its transaction finds an order placed with it (the unique index: ErrClientOrderTaken), and
	// a check that refuses a retry (its quote used or expired since, the stock, the wallet) does
	// not hide the order the first try placed. A new order, nearly every one, saves the round
	// trip. A CASH order opens its payment session before its transaction, so it looks first.
	if c.Settings.Settlement == orders.Cash {
		if v, found, err := s.existing(ctx, c, r); found || err != nil {
			return v, found, err
		}
		return s.place(ctx, c, r)
	}
	v, replayed, err := s.place(ctx, c, r)
	if err != nil {
		if v, found, ferr := s.existing(ctx, c, r); found || ferr != nil {
			return v, found, ferr
		}
	}
	return v, replayed, err
}

// place is Place once the request is known to be new (CASH), or to be placed unless its
// clientOrderId is taken (WALLET).
func (s *Service) place(ctx context.Context, c Caller, r PlaceRequest) (orders.View, bool, error) {
	b, err := s.orderable(ctx, r.BrandCode, r.Denomination)
	if err != nil {
		return orders.View{}, false, err
	}
	amount, quoteID, err := s.price(c, r)
	if err != nil {
		return orders.View{}, false, err
	}
	if err := s.inStock(ctx, c.Environment, b, r.Denomination, r.Quantity); err != nil {
		return orders.View{}, false, err
	}
	now := s.now()
	o := orders.Order{ID: uuid.New(), Channel: orders.Partner, GameID: c.GameID, Environment: c.Environment,
		UserRef: r.Customer.Ref, RewardID: b.RewardID, RewardType: catalogue.GiftCard, Denomination: r.Denomination,
		Quantity: r.Quantity, FaceValue: r.Denomination.Times(int64(r.Quantity)), ProviderProduct: b.ProviderProduct,
		DeadlineAt: now.Add(s.fulfil.Deadline()),
		Partner: &orders.Terms{ClientOrderID: r.ClientOrderID, Customer: r.Customer, Settlement: c.Settings.Settlement,
			Amount: amount, Currency: s.cfg.Currency, BrandCode: b.Code, BrandName: b.Name}}
	if c.Settings.Settlement == orders.Cash {
		err = s.placeCash(ctx, &o, r, quoteID)
	} else {
		o.Status, o.Partner.Payment.Status = orders.Initiated, orders.NotRequired
		err = s.placeWallet(ctx, &o, quoteID)
	}
	if errs.CodeOf(err) == orders.ErrClientOrderTaken.Code {
		// A concurrent placement with the same clientOrderId won; this one rolled back.
		v, found, err := s.existing(ctx, c, r)
		if !found && err == nil {
			err = orders.ErrClientOrderTaken
		}
		return v, found, err
	}
	if err != nil {
		return orders.View{}, false, err
	}
	if o.Status == orders.Processing {
		// Sent to the provider now that it is placed; the answer within the wait is the result.
		return s.fulfil.FulfilSent(ctx, o), false, nil
	}
	v, err := s.view(ctx, o.ID)
	return v, false, err
}

// existing returns the order a clientOrderId already placed, checking that the request is the same.
func (s *Service) existing(ctx context.Context, c Caller, r PlaceRequest) (orders.View, bool, error) {
	o, err := s.orders.Repo().FindByClientOrderID(ctx, c.GameID, c.Environment, r.ClientOrderID)
	if errs.CodeOf(err) == orders.ErrOrderNotFound.Code {
		return orders.View{}, false, nil
	}
	if err != nil {
		return orders.View{}, false, err
	}
	if o.Partner.BrandCode != r.BrandCode || o.Denomination != r.Denomination || o.Quantity != r.Quantity {
		return orders.View{}, false, errs.New(errs.Unprocessable, "IDEMPOTENCY_KEY_REUSED",
			"this clientOrderId was used for another order (another brand, denomination or quantity)")
	}
	v, err := s.fulfil.Open(o)
	return v, true, err
}

// placeWallet places a WALLET order: it is stored with its wallet debited, PROCESSING with no
// job: Place sends it once placed (FulfilSent), which hands it to a job only when it is not
// final within the wait.
func (s *Service) placeWallet(ctx context.Context, po *orders.Order, quoteID string) error {
	o, err := s.wallet.PlaceWalletOrder(ctx, *po, quoteID)
	if err == nil {
		*po = o
	}
	if errs.CodeOf(err) == ErrInsufficientBalance.Code {
		// Rolled back; the balance, read now, is for the message only.
		bal, berr := s.partner.Repo().Wallet(ctx, po.GameID, po.Environment)
		if berr != nil {
			return ErrInsufficientBalance
		}
		return ErrInsufficientBalance.Withf("studio wallet balance too low: the order costs %s %s and the wallet holds %s",
			po.Partner.Amount, s.cfg.Currency, bal)
	}
	return err
}

// placeCash opens the order's payment session and records the order PENDING_PAYMENT with a
// look at its payment queued for when the session expires.
func (s *Service) placeCash(ctx context.Context, o *orders.Order, r PlaceRequest, quoteID string) error {
	pay := s.payments(o.Environment)
	if pay == nil {
		return fmt.Errorf("%w: no payment provider is configured for the %s environment", ErrPaymentInit, o.Environment)
	}
	returnURL := r.ReturnURL
	if returnURL == "" {
		returnURL = s.cfg.ReturnURL
	}
	expires := s.now().Add(s.cfg.SessionTTL).UTC().Truncate(time.Second)
	sess, err := pay.CreateSession(ctx, payments.SessionRequest{OrderID: o.ID.String(), Amount: o.Partner.Amount,
		Currency: s.cfg.Currency, Description: fmt.Sprintf("%s gift card %s × %d", o.Partner.BrandName, o.Denomination, o.Quantity),
		ReturnURL: returnURL, ExpiresAt: expires,
		Customer: payments.Customer{Ref: r.Customer.Ref, Email: r.Customer.Email, Phone: r.Customer.Phone}})
	if err != nil {
		// The provider's own words (URLs, addresses) are for the log, never for the partner.
		return fmt.Errorf("%w: %w", ErrPaymentInit, err)
	}
	o.Status = orders.PendingPayment
	o.Partner.Payment = orders.Payment{Status: orders.PaymentPending, Provider: pay.Name(), SessionID: sess.ID,
		PayerToken: sess.PayerToken, ExpiresAt: &expires, ReturnURL: r.ReturnURL}
	err = s.runner.InTx(ctx, func(t store.Tx) error {
		if err := s.useQuote(ctx, t, quoteID, o.ID); err != nil {
			return err
		}
		if _, err := s.orders.WithTx(t).Insert(ctx, *o, "payment session opened"); err != nil {
			return err
		}
		return s.cfg.Jobs.ScheduleReconcile(ctx, t, o.ID, expires.Add(time.Second))
	})
	if err != nil {
		// Nobody was given the session: end it so that it cannot be paid.
		_, _ = pay.ExpireSession(context.WithoutCancel(ctx), sess.ID)
	}
	return err
}
