package catalogue_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/sealed"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
)

// untouched is a service whose storage panics if reached: the rules below must refuse bad input
// before anything is read or written.
func untouched(t *testing.T) *catalogue.Service {
	t.Helper()
	box, err := sealed.New(bytes.Repeat([]byte{3}, 32))
	require.NoError(t, err)
	run := &memstore.Runner{}
	return catalogue.NewService(run, memstore.New[catalogue.Repo](run, nil), memstore.New[coins.Repo](run, nil),
		memstore.New[studio.Repo](run, nil), catalogue.Config{Currency: "INR", Box: box})
}

func TestBadInputIsRefusedBeforeStorage(t *testing.T) {
	t.Parallel()
	svc := untouched(t)
	ctx := context.Background()
	good := catalogue.Reward{Type: catalogue.GiftCard, BrandCode: "AMAZON", Name: "Amazon", IsActive: true,
		ValueType: catalogue.Fixed, Denominations: []money.Amount{10000}}
	for _, c := range []struct {
		name   string
		change func(*catalogue.NewReward)
	}{
		{"unknown type", func(n *catalogue.NewReward) { n.Type = "VOUCHER" }},
		{"blank name", func(n *catalogue.NewReward) { n.Name = "  " }},
		{"long name", func(n *catalogue.NewReward) { n.Name = strings.Repeat("n", 201) }},
		{"no denominations", func(n *catalogue.NewReward) { n.Denominations = nil }},
		{"repeated denomination", func(n *catalogue.NewReward) { n.Denominations = []money.Amount{100, 100} }},
		{"zero denomination", func(n *catalogue.NewReward) { n.Denominations = []money.Amount{0} }},
		{"range upside down", func(n *catalogue.NewReward) { n.ValueType, n.MinValue, n.MaxValue = catalogue.Range, 500, 100 }},
		{"unknown value type", func(n *catalogue.NewReward) { n.ValueType = "OPEN" }},
		{"discount over 100%", func(n *catalogue.NewReward) { n.DiscountPct = 10001 }},
		{"coupon without mrp", func(n *catalogue.NewReward) { n.Type = catalogue.Coupon }},
		{"selling above mrp", func(n *catalogue.NewReward) { n.Type, n.MRP, n.SellingPrice = catalogue.Coupon, 100, 101 }},
		{"lower-case country", func(n *catalogue.NewReward) { n.Countries = []string{"in"} }},
		{"bad language tag", func(n *catalogue.NewReward) { n.Translations = catalogue.Translations{"hindi language": {Name: "x"}} }},
		{"shared code on a gift card", func(n *catalogue.NewReward) { n.SharedCode = "SAVE10" }},
		{"negative cooldown", func(n *catalogue.NewReward) { n.PurchaseCooldown = -1 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := catalogue.NewReward{Reward: good}
			n.Denominations = append([]money.Amount(nil), good.Denominations...)
			c.change(&n)
			_, err := svc.CreateReward(ctx, n)
			require.ErrorIs(t, err, errs.ErrInvalid)
		})
	}
	_, err := svc.PutCategory(ctx, catalogue.Category{Code: "food", Name: "Food"})
	require.ErrorIs(t, err, errs.ErrInvalid, "codes are upper case")
	_, err = svc.PutBrand(ctx, catalogue.Brand{Code: "AMAZON", Name: ""})
	require.ErrorIs(t, err, errs.ErrInvalid)
	_, _, err = svc.AddCodes(ctx, [16]byte{}, nil)
	require.ErrorIs(t, err, errs.ErrInvalid)
	_, err = svc.PutProduct(ctx, catalogue.Product{ID: "p1", Name: "Shoe", MRP: 100, ListingPrice: 200})
	require.ErrorIs(t, err, errs.ErrInvalid, "listing price above mrp")
	_, err = svc.Search(ctx, catalogue.SearchQuery{Text: "  "}, nil)
	require.ErrorIs(t, err, errs.ErrInvalid)
	_, err = svc.Sync(ctx)
	require.ErrorIs(t, err, catalogue.ErrNoProvider)
}
