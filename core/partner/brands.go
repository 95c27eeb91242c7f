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
	provider := s.fulfil.Provider(c.Environment)
	if cached := map[bool]vouchers.Provider{true: s.cfg.StockLive, false: s.cfg.StockTest}[c.Environment == studio.Live]; cached != nil {
		provider = cached
	}
	if provider == nil {
		return st, nil
	}
	levels, err := provider.Stock(ctx, b.ProviderProduct)
	if err != nil {
		return Stock{}, fmt.Errorf("stock of %s: %w", b.ProviderProduct, err)
	}
	if lv, found := vouchers.LevelOf(levels, d, b.ValueType == Dynamic); found {
		st.Available, st.Quantity = lv.Covers(1), lv.Quantity
	}
	return st, nil
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
	levels, err := provider.Stock(ctx, b.ProviderProduct)
	if err != nil {
		return fmt.Errorf("stock of %s: %w", b.ProviderProduct, err)
	}
	if lv, found := vouchers.LevelOf(levels, d, b.ValueType == Dynamic); found && lv.Covers(quantity) {
		return nil
	}
	return ErrOutOfStock
}
