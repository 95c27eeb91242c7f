package catalogueapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// benchPage is a page of 20 items of the sizes the bench's seeded catalogue has (e2e/load):
// about 2 kB of texts each, some with characters encoding/json escapes.
func benchPage() []RewardShapeA {
	text := func(n int) string { return strings.Repeat("Redeem at any store & online <b>now</b>. ", n/40+1)[:n] }
	end := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)
	items := make([]RewardShapeA, 20)
	for i := range items {
		items[i] = RewardShapeA{ID: uuid.New(), Name: fmt.Sprintf("Gift card %d", i), Description: text(400), Type: "GIFT_CARD",
			BrandID: "BRAND", BrandName: "Brand", OrganizationID: "BRAND", EndDate: &end, Price: 4750, MaxPrice: 9500, MinPrice: 4750,
			AvailableQuantity: -1, Metadata: RewardMetadata{BrandName: "Brand", BrandLogoImage: "https://cdn.example.com/logo.png",
				CampaignCoverImage: "https://cdn.example.com/cover.png", CampaignTitle: text(40), CampaignSubTitle: text(60),
				CampaignDetails: text(400), TermsAndConditions: text(800), HowToRedeem: text(300), BrandCategory: []string{"food"},
				CampaignAssets: map[string]string{"hero": "https://cdn.example.com/h.png", "icon": "https://cdn.example.com/i.png"}}}
	}
	return items
}

// BenchmarkListPageItems writes the items of a page as the page's encoder did before the cache
// (encoded), and from listItems (cached: every request builds its shapes anew, as the handler does).
func BenchmarkListPageItems(b *testing.B) {
	page := benchPage()
	coin := uuid.New()
	b.Run("encoded", func(b *testing.B) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		for b.Loop() {
			buf.Reset()
			for _, s := range page {
				fresh := s
				if err := enc.Encode(any(fresh)); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.SetBytes(int64(buf.Len()))
	})
	b.Run("cached", func(b *testing.B) {
		var buf bytes.Buffer
		c := newItemCache(4 << 20)
		for b.Loop() {
			buf.Reset()
			for _, s := range page {
				fresh := s
				buf.Write(c.encoded(itemKey{reward: s.ID, coin: coin, lang: "en"}, fresh))
			}
		}
		b.SetBytes(int64(buf.Len()))
	})
}
