package storepage_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/storepage"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
)

// shelf is a catalogue of a few items, as the pages read it.
type shelf struct {
	rewards  map[uuid.UUID]catalogue.Reward
	products []catalogue.Product
}

func (s shelf) GetReward(_ context.Context, id uuid.UUID) (catalogue.Reward, error) {
	r, ok := s.rewards[id]
	if !ok {
		return catalogue.Reward{}, catalogue.ErrRewardNotFound
	}
	return r, nil
}

func (s shelf) Products(_ context.Context, ids []string) ([]catalogue.Product, error) {
	var out []catalogue.Product
	for _, p := range s.products {
		for _, id := range ids {
			if p.ID == id {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

func get(t *testing.T, srv *httptest.Server, method, path string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, res.Header, string(body)
}

// Every active reward and product has a page that shows what it is; anything else is a 404
// page; text from the catalogue is shown as text, never as markup, and the page runs no script.
func TestPages(t *testing.T) {
	t.Parallel()
	card, withdrawn, coupon, scripted := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	srv := httptest.NewServer(storepage.New(storepage.Config{Currency: "INR", Catalogue: shelf{
		rewards: map[uuid.UUID]catalogue.Reward{
			card: {ID: card, Type: catalogue.GiftCard, Name: "Amazon Gift Card (INR)", IsActive: true, ValueType: catalogue.Fixed,
				Denominations: []money.Amount{100_00, 500_00}, CoverImage: "https://img.example.com/amazon.svg",
				HowToRedeem: "Enter the code at checkout.", Description: `<script>alert("x")</script>`},
			scripted:  {ID: scripted, Type: catalogue.Coupon, Name: `<script>alert(1)</script> Deal`, IsActive: true, MRP: 10_00, SellingPrice: 5_00},
			withdrawn: {ID: withdrawn, Type: catalogue.GiftCard, Name: "Gone", IsActive: false},
			coupon:    {ID: coupon, Type: catalogue.Coupon, Name: "20% off shoes", IsActive: true, MRP: 1000_00, SellingPrice: 800_00},
		},
		products: []catalogue.Product{{ID: "sku-1", Name: "Headphones", BrandName: "Acme", ImageURL: "https://img.example.com/h.png",
			MRP: 2000_00, DiscountedListingPrice: 1500_00, IsActive: true}, {ID: "sku-old", Name: "Old", IsActive: false}},
	}}))
	t.Cleanup(srv.Close)

	status, h, body := get(t, srv, http.MethodGet, "/store/rewards/"+card.String()+"?utm_source=game")
	require.Equal(t, 200, status)
	require.Equal(t, "text/html; charset=utf-8", h.Get("Content-Type"))
	require.Equal(t, "default-src 'self'; img-src 'self' https: data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
		h.Get("Content-Security-Policy"), "without a session no one may frame the page")
	require.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
	require.Equal(t, "same-origin", h.Get("Referrer-Policy"))
	require.Contains(t, body, "<h1>Amazon Gift Card (INR)</h1>")
	require.Contains(t, body, "100.00, 500.00 INR")
	require.Contains(t, body, `src="https://img.example.com/amazon.svg"`)
	require.Contains(t, body, "Enter the code at checkout.")
	require.NotContains(t, body, "<script>", "catalogue text is escaped")

	status, _, body = get(t, srv, http.MethodGet, "/store/rewards/"+scripted.String())
	require.Equal(t, 200, status)
	require.NotContains(t, body, "<script>alert", "a reward's name is text, never markup")
	require.Contains(t, body, "&lt;script&gt;alert(1)&lt;/script&gt; Deal")

	status, _, body = get(t, srv, http.MethodGet, "/store/rewards/"+coupon.String())
	require.Equal(t, 200, status)
	require.Contains(t, body, "800.00 INR")
	require.Contains(t, body, "<s>1000.00 INR</s>")

	status, _, body = get(t, srv, http.MethodGet, "/store/rewards/sku-1")
	require.Equal(t, 200, status)
	require.Contains(t, body, "Headphones")
	require.Contains(t, body, "1500.00 INR")

	status, _, _ = get(t, srv, http.MethodHead, "/store/rewards/sku-1")
	require.Equal(t, 200, status)
	for _, path := range []string{"/store/rewards/" + withdrawn.String(), "/store/rewards/" + uuid.NewString(), "/store/rewards/sku-old",
		"/store/rewards/", "/store/rewards/sku-1/more", "/store/other/sku-1"} {
		status, h, body := get(t, srv, http.MethodGet, path)
		require.Equal(t, 404, status, path)
		require.Equal(t, "text/html; charset=utf-8", h.Get("Content-Type"), path)
		require.True(t, strings.Contains(body, "not available"), path)
	}
	status, h, _ = get(t, srv, http.MethodPost, "/store/rewards/sku-1")
	require.Equal(t, 405, status)
	require.Equal(t, "GET, HEAD", h.Get("Allow"))
}
