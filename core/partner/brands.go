package partner

import (
	"context"
	"fmt"
	"strings"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/vouchers"
)

// Brands returns a page of the gift cards partners buy and the total.
func (s *Service) Brands(ctx context.Context, search string, limit, offset int) ([]Brand, int64, error) {
	return s.partner.Repo().Brands(ctx, BrandQuery{Search: strings.TrimSpace(search), Limit: limit, Offset: offset})
}

// Brand returns one gift card by its brand code, or ErrBrandUnknown.
func (s *Service) Brand(ctx context.Context, code string) (Brand, error) {
	b, found, err := s.partner.Repo().Brand(ctx, code)
	if err != nil {
		return Brand{}, err
	}
	if !found {
		return Brand{}, ErrBrandUnknown
	}
	return b, nil
}

// Stock says whether a denomination of a brand can be bought now, and how many are left.
func (s *Service) Stock(ctx context.Context, c Caller, code string, d money.Amount) (Stock, error) {
	b, err := s.Brand(ctx, code)
	if err != nil {
		return Stock{}, err
	}
	if !b.Offers(d) {
		return Stock{}, ErrDenominationNotAvailable
	}
	st := Stock{BrandCode: b.Code, Denomination: d}
	provider, cached := s.fulfil.Provider(c.Environment), s.cfg.StockTest
	if c.Environment == studio.Live {
		cached = s.cfg.StockLive
	}
	if cached != nil {
		provider = cached
	}
	if provider == nil {
		return st, nil
	}
	lv, found, err := levelAt(ctx, provider, b, d)
	if err != nil {
		return Stock{}, err
	}
	if found {
		st.Available, st.Quantity = lv.Covers(1), lv.Quantity
	}
	return st, nil
}

// levelAt returns a voucher provider's stock level of a brand's denomination; found is false
// when the provider lists none.
func levelAt(ctx context.Context, provider vouchers.Provider, b Brand, d money.Amount) (lv vouchers.Stock, found bool, err error) {
	levels, err := provider.Stock(ctx, b.ProviderProduct)
	if err != nil {
		return vouchers.Stock{}, false, fmt.Errorf("stock of %s: %w", b.ProviderProduct, err)
	}
	lv, found = vouchers.LevelOf(levels, d, b.ValueType == Dynamic)
	return lv, found, nil
}

// orderable returns the brand of code when it sells face value d.
func (s *Service) orderable(ctx context.Context, code string, d money.Amount) (Brand, error) {
	b, err := s.Brand(ctx, code)
	if errs.CodeOf(err) == ErrBrandUnknown.Code {
		return Brand{}, ErrBrandNotFound
	}
	if err != nil {
		return Brand{}, err
	}
	if !b.Offers(d) {
		return Brand{}, ErrDenominationNotAvailable
	}
	return b, nil
}

// inStock checks the stock of the environment's voucher provider (the test environment's never
// is the live one).
func (s *Service) inStock(ctx context.Context, env studio.Environment, b Brand, d money.Amount, quantity int) error {
	provider := s.fulfil.Provider(env)
	if provider == nil {
		return ErrOutOfStock.Withf("no voucher provider is configured")
	}
	lv, found, err := levelAt(ctx, provider, b, d)
	if err != nil {
		return err
	}
	if found && lv.Covers(quantity) {
		return nil
	}
	return ErrOutOfStock
}
