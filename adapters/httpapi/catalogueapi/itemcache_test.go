package catalogueapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// The cache of list items answers json.Marshal of the shape asked for, whatever changed in it,
// and serves an entry (the same bytes, not encoded again) only for an equal shape.
func TestListItemCacheIsTheShapesJSON(t *testing.T) {
	t.Parallel()
	end := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)
	a := RewardShapeA{ID: uuid.New(), Name: "Fish & <Chips>", Description: "d", Type: "COUPON", BrandID: "B", BrandName: "Brand",
		OrganizationID: "B", EndDate: &end, Price: 4750, MaxPrice: 9500, MinPrice: 4750, AvailableQuantity: 7,
		Metadata: RewardMetadata{BrandName: "Brand", CampaignTitle: "t", BrandCategory: []string{"food"},
			CampaignAssets: map[string]string{"hero": "https://cdn.example.com/h.png"}}}
	b := RewardShapeB{ID: a.ID, BrandID: "B", BrandName: "Brand", OrganizationID: "B",
		Metadata:  RewardMetadataB{RewardMetadata: a.Metadata, CampaignExpiryDate: &end},
		Inventory: InventoryBody{AvailableQuantity: 7, Type: "CODE_POOL"}, Price: PriceBody{Amount: 4750, CoinID: uuid.New()}}
	c := newItemCache(1 << 20)
	key := itemKey{reward: a.ID, coin: b.Price.CoinID, lang: "en"}
	check := func(key itemKey, shape any) []byte {
		want, err := json.Marshal(shape)
		require.NoError(t, err)
		got := c.encoded(key, shape)
		require.Equal(t, string(want), string(got))
		return got
	}
	first := check(key, a)
	require.Same(t, &first[0], &c.encoded(key, a)[0], "an equal shape is served from its entry")
	later := end.Add(time.Hour)
	for name, change := range map[string]func(s *RewardShapeA){
		"name":     func(s *RewardShapeA) { s.Name = "Fish" },
		"price":    func(s *RewardShapeA) { s.Price++ },
		"stock":    func(s *RewardShapeA) { s.AvailableQuantity-- },
		"end date": func(s *RewardShapeA) { s.EndDate = &later },
		"no end":   func(s *RewardShapeA) { s.EndDate = nil },
		"assets": func(s *RewardShapeA) {
			s.Metadata.CampaignAssets = map[string]string{"hero": "https://cdn.example.com/x.png"}
		},
		"no assets": func(s *RewardShapeA) { s.Metadata.CampaignAssets = map[string]string{} },
		"category":  func(s *RewardShapeA) { s.Metadata.BrandCategory = []string{"food", "travel"} },
		"terms":     func(s *RewardShapeA) { s.Metadata.TermsAndConditions = strings.Repeat("<", 3) },
	} {
		t.Run(name, func(t *testing.T) {
			changed := a
			change(&changed)
			check(key, changed)
			check(key, a) // and back
		})
	}
	kb := key
	kb.b = true
	check(kb, b)
	b2 := b
	b2.Price.CoinID = uuid.New()
	check(kb, b2)
	b3 := b
	b3.Inventory.AvailableQuantity = 0
	check(kb, b3)
	// A shape of the other kind under a key (never made by listItem) is still its own JSON.
	check(key, b)
}

// The cache drops its entries rather than grow past its limit.
func TestListItemCacheStaysWithinItsLimit(t *testing.T) {
	t.Parallel()
	c := newItemCache(10_000)
	for i := range 1000 {
		s := RewardShapeA{ID: uuid.New(), Name: strings.Repeat("n", i%50)}
		c.encoded(itemKey{reward: s.ID, lang: "fr"}, s)
		require.LessOrEqual(t, c.size, c.limit)
	}
	require.NotEmpty(t, c.entries)
}
