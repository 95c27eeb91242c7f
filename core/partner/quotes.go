package partner

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/sealed"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// quote is what a quoteId seals.
type quote struct {
	GameID       uuid.UUID          `json:"g"`
	Environment  studio.Environment `json:"e"`
	Brand        string             `json:"b"`
	Denomination money.Amount       `json:"d"`
	Quantity     int                `json:"q"`
	Amount       money.Amount       `json:"a"`
	ExpiresAt    int64              `json:"x"`
	// ID makes the quote single use; Discount is the partner's discount it was priced at (a
	// change of discount expires it).
	ID       string    `json:"i"`
	Discount money.Pct `json:"p"`
}

// Preview prices an order: faceValue = denomination × quantity, amount = faceValue less the
// partner's discount, rounded half up to the cent, held by a quote for QuoteLifetime.
func (s *Service) Preview(ctx context.Context, c Caller, code string, d money.Amount, quantity int) (Preview, error) {
	if quantity < 1 || quantity > MaxQuantity {
		return Preview{}, errs.Invalidf("quantity must be from 1 to %d", MaxQuantity)
	}
	b, err := s.orderable(ctx, code, d)
	if err != nil {
		return Preview{}, err
	}
	face, amount := Price(d, quantity, c.Settings.DiscountPct)
	p := Preview{Brand: b, Denomination: d, Quantity: quantity, FaceValue: face, Settlement: c.Settings.Settlement,
		Amount: amount, Currency: s.cfg.Currency, ExpiresAt: s.now().Add(QuoteLifetime).UTC().Truncate(time.Second)}
	p.QuoteID = encodeQuote(s.cfg.Box, quote{GameID: c.GameID, Environment: c.Environment, Brand: b.Code, Denomination: d,
		Quantity: quantity, Amount: amount, ExpiresAt: p.ExpiresAt.Unix(), ID: uuid.NewString(), Discount: c.Settings.DiscountPct})
	return p, nil
}

// encodeQuote seals a quote into its id: only this service can make or read one.
func encodeQuote(box sealed.Box, q quote) string {
	raw, _ := json.Marshal(q)
	return base64.RawURLEncoding.EncodeToString(box.Seal(string(raw)))
}

// price is what an order pays: its quote's amount when it names a valid one, else today's price.
// The quote's id (quoteID) is "" when the order names none; the order's transaction records
// its use (single use).
func (s *Service) price(c Caller, r PlaceRequest) (amount money.Amount, quoteID string, err error) {
	_, amount = Price(r.Denomination, r.Quantity, c.Settings.DiscountPct)
	if r.QuoteID == "" {
		return amount, "", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(r.QuoteID)
	if err != nil {
		return 0, "", ErrQuoteMismatch
	}
	plain, err := s.cfg.Box.Open(raw)
	var q quote
	if err != nil || json.Unmarshal([]byte(plain), &q) != nil || q.ID == "" {
		return 0, "", ErrQuoteMismatch
	}
	if q.GameID != c.GameID || q.Environment != c.Environment || q.Brand != r.BrandCode || q.Denomination != r.Denomination || q.Quantity != r.Quantity {
		return 0, "", ErrQuoteMismatch
	}
	if !s.now().Before(time.Unix(q.ExpiresAt, 0)) {
		return 0, "", ErrQuoteExpired
	}
	if q.Discount != c.Settings.DiscountPct {
		return 0, "", ErrQuoteExpired.Withf("the quote was issued before the partner's discount changed; ask for a new preview")
	}
	return q.Amount, q.ID, nil
}

// useQuote records, in the order's transaction, that the order used its quote: a quote used
// before is ErrQuoteUsed.
func (s *Service) useQuote(ctx context.Context, t store.Tx, quoteID string, orderID uuid.UUID) error {
	if quoteID == "" {
		return nil
	}
	fresh, err := s.partner.WithTx(t).UseQuote(ctx, quoteID, orderID)
	if err != nil {
		return err
	}
	if !fresh {
		return ErrQuoteUsed
	}
	return nil
}
