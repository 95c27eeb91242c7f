package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestStoreInABrowser opens the player's store as a game's web view would (a phone-sized
// Chromium, 390 × 844) and uses it as a player: open the link, read the balance, search, buy a
// coupon and see its code, buy a gift card the provider fulfils late and watch its page turn
// from pending to the code, tap buy twice and get one order, and fail to buy what the balance
// cannot pay, with the reason shown and nothing taken. A screenshot of each step is kept in
// the test's artifact directory (go test -artifacts).
func TestStoreInABrowser(t *testing.T) {
	t.Parallel() // each test runs its own stack
	s := startStack(t, map[string]string{
		"REWARDS_VOUCHER_BASE_URL":      "http://fakes:9090/vouchers",
		"REWARDS_TEST_VOUCHER_BASE_URL": "http://fakes:9090/vouchers",
		"REWARDS_VOUCHER_WAIT":          "1s",
		"REWARDS_VOUCHER_POLL":          "1s",
	})
	s.syncCatalogue(t)
	tn := s.newTenant("Web View Studio")
	require.Equal(t, 201, s.asPlayer(tn, "", "POST", "/player/create-with-uuid", map[string]any{"uuid": "web-player"}).Status)
	token := str(s.asPlayer(tn, "", "POST", "/player/login/federatedByStudio", map[string]any{"uuid": "web-player"}).Body["access_token"])
	player := webhookTenant{tenant: tn, token: token}
	require.Equal(t, 201, s.asPlayer(tn, token, "POST", "/coins/"+tn.CoinID+"/distribute", map[string]any{"amount": 5000}).Status)
	r := s.admin("PUT", "/admin/v1/catalogue/brands/HOUSE_CAFE", map[string]any{"name": "House Cafe", "categories": []string{}})
	require.Equal(t, 201, r.Status, string(r.Raw))
	r = s.admin("POST", "/admin/v1/catalogue/rewards", map[string]any{"type": "COUPON", "brandCode": "HOUSE_CAFE",
		"name": "Cafe coupon", "description": "A coffee on the house", "mrp": 100, "sellingPrice": 50, "howToRedeem": "Show the code at the counter."})
	require.Equal(t, 201, r.Status, string(r.Raw))
	coupon := str(r.Body["id"])
	r = s.admin("POST", "/admin/v1/catalogue/rewards/"+coupon+"/codes", map[string]any{"codes": []map[string]any{
		{"code": "CAFE-1", "pin": "1111"}, {"code": "CAFE-2", "pin": "2222"}, {"code": "CAFE-3", "pin": "3333"}}})
	require.Equal(t, 201, r.Status, string(r.Raw))
	r = s.admin("POST", "/admin/v1/catalogue/rewards", map[string]any{"type": "COUPON", "brandCode": "HOUSE_CAFE",
		"name": "Cafe for a year", "mrp": 2000, "sellingPrice": 1000, "sharedCode": "YEAR"})
	require.Equal(t, 201, r.Status, string(r.Raw))
	dear := str(r.Body["id"])
	slow, _ := s.giftCard(t, player, "SANDBOX_SLOW", 100)

	link := s.asPlayer(tn, token, "POST", "/player/store-session", nil)
	require.Equal(t, 201, link.Status, string(link.Raw))
	_, path, ok := strings.Cut(str(link.Body["url"]), "/store/enter?")
	require.True(t, ok, "the link opens the store: %s", link.Body["url"])

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(findChromium(t)),
		chromedp.NoSandbox, // tests may run as root
		chromedp.Flag("headless", "new"),
		chromedp.WindowSize(390, 844),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel := context.WithTimeout(bctx, 3*time.Minute)
	defer cancel()
	dir := t.ArtifactDir()
	step := 0
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		require.NoError(t, err)
		step++
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepathName(step, name)), png, 0o644))
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(sel))
		require.NoError(t, err, sel)
		return strings.TrimSpace(v)
	}
	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, actions...), what)
	}
	orders := func() int {
		t.Helper()
		r := s.asPlayer(tn, token, "GET", "/player/orders?limit=100", nil, "x-language", "en")
		require.Equal(t, 200, r.Status, string(r.Raw))
		var page struct {
			Total int `json:"total"`
		}
		require.NoError(t, json.Unmarshal(r.Raw, &page), string(r.Raw))
		return page.Total
	}

	// Open the link: the store lands on the rewards list with the balance on top.
	do("open the link", chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.svc.BaseURL+"/store/enter?"+path), chromedp.WaitVisible(`ul.cards`))
	require.Equal(t, "5,000", text(`#balance`))
	shot("list")

	// Search, and open the coupon from the results.
	do("search", chromedp.Click(`nav.tabs a[href="/store/search"]`), chromedp.WaitVisible(`#q`),
		chromedp.SendKeys(`#q`, "cafe coupon"), chromedp.Submit(`#q`), chromedp.WaitVisible(`p.count`))
	require.Contains(t, text(`ul.cards`), "Cafe coupon")
	shot("search")
	do("open the coupon", chromedp.Click(`a.card[href="/store/rewards/`+coupon+`"]`), chromedp.WaitVisible(`#buy`))
	require.Equal(t, "Cafe coupon", text(`h1`))
	require.Equal(t, "500", text(`#price`), "50.00 INR at 10 coins a rupee")
	shot("coupon")

	// Buy it and see its code.
	do("buy the coupon", chromedp.Click(`#buy`), chromedp.WaitVisible(`article.order code.value`))
	require.Equal(t, "Delivered", text(`#status`))
	require.True(t, strings.HasPrefix(text(`article.order code.value`), "CAFE-"))
	require.Equal(t, "4,500", text(`#balance`))
	shot("coupon-code")

	// A gift card the provider fulfils late: the order's page says it is on its way, then shows
	// the code without a tap.
	do("open the gift card", chromedp.Navigate(s.svc.BaseURL+"/store/rewards/"+slow), chromedp.WaitVisible(`#buy`))
	do("choose 100", chromedp.Click(`input[name="denomination"][value="100.00"]`))
	shot("gift-card")
	do("buy the gift card", chromedp.Click(`#buy`), chromedp.WaitVisible(`article.order`))
	require.Equal(t, "On its way", text(`#status`))
	shot("gift-card-pending")
	do("wait for the code", chromedp.WaitVisible(`article.order code.value`))
	require.Equal(t, "Delivered", text(`#status`))
	require.NotEmpty(t, text(`article.order code.value`))
	shot("gift-card-code")

	// Tap buy twice: one order.
	before := orders()
	do("open the coupon again", chromedp.Navigate(s.svc.BaseURL+"/store/rewards/"+coupon), chromedp.WaitVisible(`#buy`))
	do("double tap", chromedp.DoubleClick(`#buy`), chromedp.WaitVisible(`article.order code.value`))
	require.Equal(t, before+1, orders(), "a double tap buys once")
	shot("double-tap")

	// Not enough coins: the reason, and the balance as it was.
	balance := text(`#balance`)
	do("open the dear coupon", chromedp.Navigate(s.svc.BaseURL+"/store/rewards/"+dear), chromedp.WaitVisible(`#buy`))
	do("try to buy it", chromedp.Click(`#buy`), chromedp.WaitVisible(`#refusal`))
	require.Contains(t, text(`#refusal`), "You don't have enough Gems")
	require.Contains(t, text(`#refusal`), "Nothing was taken")
	require.Equal(t, balance, text(`#balance`))
	require.Equal(t, before+1, orders(), "nothing bought")
	shot("not-enough")

	do("orders", chromedp.Click(`nav.tabs a[href="/store/orders"]`), chromedp.WaitVisible(`ul.orders`))
	shot("orders")
	t.Logf("%d screenshots in %s", step, dir)
}

func filepathName(step int, name string) string {
	return string(rune('0'+step/10)) + string(rune('0'+step%10)) + "-" + name + ".png"
}
