package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/app"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

// storeBundle is the service on a private PostgreSQL with a game whose player holds 500 coins
// and a coupon of 300 coins with codes in its pool.
type storeBundle struct {
	t       *testing.T
	m       app.Modules
	srv     *httptest.Server
	clock   *clock
	client  *http.Client
	key     string
	game    uuid.UUID
	coupon  uuid.UUID
	scripty uuid.UUID
	token   string
	pool    *pgxpool.Pool
	player  uuid.UUID
}

const storeOrigin = "https://play.example.com"

func setupStore(t *testing.T) *storeBundle {
	t.Helper()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	clk := &clock{now: time.Now()}
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	t.Cleanup(srv.Close)
	m, err := app.NewModules(postgres.NewDB(pool), jobs.New(pool, jobs.Options{}), app.External{
		SecretKey: "test-secret-key-test-secret-key-0123456789", PlayerTokenTTL: time.Hour, Currency: "INR", Now: clk.Now,
		PublicURL: srv.URL,
	})
	require.NoError(t, err)
	srv.Config.Handler = app.NewServer(m, app.ServerConfig{Log: slog.New(slog.DiscardHandler), Currency: "INR", PublicURL: srv.URL,
		Hosts: httpapi.Hosts{Live: []string{"live.localhost"}, Dev: []string{"127.0.0.1"}}, AdminToken: adminToken,
		Ready: func(ctx context.Context) error { return pool.Ping(ctx) }}).Handler()
	b := &storeBundle{t: t, m: m, srv: srv, clock: clk, pool: pool,
		client: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 30 * time.Second}}
	s, err := m.Studios.CreateStudio(ctx, "Store Studio")
	require.NoError(t, err)
	g, err := m.Studios.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Store Game"})
	require.NoError(t, err)
	b.game, b.key = g.ID, g.TestKey
	_, err = m.Studios.SetAllowedOrigins(ctx, g.ID, studio.Origins{Test: []string{storeOrigin}}, map[studio.Environment]bool{studio.Test: true})
	require.NoError(t, err)
	coin, err := m.Coins.CreateCoin(ctx, coins.Coin{GameID: g.ID, Name: "Gems", ImageURL: "https://cdn.example.com/g.png", CoinsPerUnit: 1})
	require.NoError(t, err)
	_, err = m.Catalogue.PutBrand(ctx, catalogue.Brand{Code: "HOUSE", Name: "House", IsActive: true})
	require.NoError(t, err)
	coupon, err := m.Catalogue.CreateReward(ctx, catalogue.NewReward{Reward: catalogue.Reward{Type: catalogue.Coupon, BrandCode: "HOUSE",
		Name: "House coupon", IsActive: true, MRP: money.Amount(500_00), SellingPrice: money.Amount(300_00), HowToRedeem: "Show it at the till."}})
	require.NoError(t, err)
	_, _, err = m.Catalogue.AddCodes(ctx, coupon.ID, []catalogue.Code{{Code: "HOUSE-1", Pin: "1111"}, {Code: "HOUSE-2"}, {Code: "HOUSE-3"}})
	require.NoError(t, err)
	scripty, err := m.Catalogue.CreateReward(ctx, catalogue.NewReward{Reward: catalogue.Reward{Type: catalogue.Coupon, BrandCode: "HOUSE",
		Name: `<script>alert("x")</script> Deal`, IsActive: true, MRP: money.Amount(20_00), SellingPrice: money.Amount(10_00)}, SharedCode: "SHARED"})
	require.NoError(t, err)
	b.coupon, b.scripty = coupon.ID, scripty.ID
	require.NoError(t, m.CatalogueReads.Refresh(ctx))
	created, err := m.Players.CreateWithUUID(ctx, studio.Caller{GameID: g.ID, StudioID: s.ID, Environment: studio.Test}, "shopper")
	require.NoError(t, err)
	_, _, err = m.Coins.Distribute(ctx, coins.Movement{GameID: g.ID, Environment: studio.Test, PlayerID: created.ID, UserUUID: "shopper",
		CoinID: coin.ID, Amount: 500})
	require.NoError(t, err)
	tok, err := m.Players.FederatedLogin(ctx, studio.Caller{GameID: g.ID, StudioID: s.ID, Environment: studio.Test}, "shopper")
	require.NoError(t, err)
	b.token, b.player = tok.AccessToken, created.ID
	return b
}

// page is an answer of the store.
type page struct {
	status int
	header http.Header
	body   string
}

func (b *storeBundle) send(method, path, cookie string, form url.Values, header map[string]string) page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.srv.URL+path, body)
	require.NoError(b.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: "rewards_store", Value: cookie})
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := b.client.Do(req)
	require.NoError(b.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(b.t, err)
	return page{status: res.StatusCode, header: res.Header, body: string(raw)}
}

func (b *storeBundle) get(path, cookie string) page {
	return b.send(http.MethodGet, path, cookie, nil, nil)
}

// link asks for a store link as the game client does.
func (b *storeBundle) link() (string, time.Time) {
	b.t.Helper()
	res := b.send(http.MethodPost, "/player/store-session", "", nil, map[string]string{"x-api-key": b.key, "Authorization": "Bearer " + b.token})
	require.Equal(b.t, http.StatusCreated, res.status, res.body)
	var out struct {
		URL       string    `json:"url"`
		ExpiresAt time.Time `json:"expiresAt"`
	}
	require.NoError(b.t, json.Unmarshal([]byte(res.body), &out))
	require.True(b.t, strings.HasPrefix(out.URL, b.srv.URL+"/store/enter?code="), out.URL)
	return strings.TrimPrefix(out.URL, b.srv.URL), out.ExpiresAt
}

// enter opens a link and returns the session cookie it set.
func (b *storeBundle) enter() string {
	b.t.Helper()
	link, _ := b.link()
	res := b.get(link, "")
	require.Equal(b.t, http.StatusSeeOther, res.status, res.body)
	return sessionCookie(b.t, res)
}

func sessionCookie(t *testing.T, res page) string {
	t.Helper()
	for _, c := range (&http.Response{Header: res.header}).Cookies() {
		if c.Name == "rewards_store" {
			return c.Value
		}
	}
	t.Fatalf("no store cookie in %v", res.header)
	return ""
}

var balancePattern = regexp.MustCompile(`<strong id="balance">([0-9,]+)</strong>`)

func balanceOf(t *testing.T, res page) string {
	t.Helper()
	m := balancePattern.FindStringSubmatch(res.body)
	require.NotNil(t, m, res.body)
	return m[1]
}

// The link opens the store once, within 60 s, for a player who may still shop; the cookie it
// sets is HttpOnly and Lax, and the session ends at the next request once the player deletes
// its account.
func TestStoreEntryLink(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	link, exp := b.link()
	code := strings.TrimPrefix(link, "/store/enter?code=")
	require.GreaterOrEqual(t, len(code), 32)
	require.WithinDuration(t, b.clock.Now().Add(60*time.Second), exp, 2*time.Second)

	res := b.get(link, "")
	require.Equal(t, http.StatusSeeOther, res.status)
	require.Equal(t, "/store/rewards", res.header.Get("Location"), "the default landing page")
	require.Equal(t, "no-store", res.header.Get("Cache-Control"))
	set := res.header.Get("Set-Cookie")
	require.Contains(t, set, "HttpOnly")
	require.Contains(t, set, "SameSite=Lax")
	require.NotContains(t, set, "Secure", "a plain-http run")
	cookie := sessionCookie(t, res)
	require.NotContains(t, cookie, code)

	again := b.get(link, "")
	require.Equal(t, http.StatusGone, again.status, "a link opens once")
	require.Empty(t, again.header.Values("Set-Cookie"))
	require.Contains(t, again.body, "This link has expired")

	forged := b.get("/store/enter?code="+strings.Repeat("A", 52), "")
	require.Equal(t, http.StatusGone, forged.status)
	require.Empty(t, forged.header.Values("Set-Cookie"))

	late, _ := b.link()
	b.clock.Advance(61 * time.Second)
	res = b.get(late, "")
	require.Equal(t, http.StatusGone, res.status, "a link lives 60 s")
	require.Empty(t, res.header.Values("Set-Cookie"))

	home := b.get("/store", cookie)
	require.Equal(t, http.StatusOK, home.status, home.body)
	require.Equal(t, "500", balanceOf(t, home))

	b.clock.Advance(24*time.Hour + time.Minute)
	res = b.get("/store", cookie)
	require.Equal(t, http.StatusSeeOther, res.status, "a session lasts 24 h")
	b.clock.Advance(-24*time.Hour - time.Minute)

	// A link the player had not opened yet when it deleted its account opens nothing, and
	// the session it had ends at the next request.
	pending, _ := b.link()
	res = b.send(http.MethodDelete, "/player/me", "", nil, map[string]string{"x-api-key": b.key, "Authorization": "Bearer " + b.token})
	require.Equal(t, http.StatusOK, res.status, res.body)
	res = b.get("/store", cookie)
	require.Equal(t, http.StatusSeeOther, res.status)
	require.Equal(t, "/store/signed-out", res.header.Get("Location"))
	require.Contains(t, res.header.Get("Set-Cookie"), "Max-Age=0", "the dead cookie is cleared")
	res = b.get(pending, "")
	require.Equal(t, http.StatusGone, res.status)
	require.Empty(t, res.header.Values("Set-Cookie"))
	res = b.send(http.MethodPost, "/player/store-session", "", nil, map[string]string{"x-api-key": b.key, "Authorization": "Bearer " + b.token})
	require.Equal(t, http.StatusForbidden, res.status, res.body)
}

// A player blocked in the storage (by another instance, or an operator) is signed out once
// this instance's lookup of it is older than authcache.TTL (a second), and its links open
// nothing.
func TestStoreBlockedPlayerIsSignedOut(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	cookie := b.enter()
	require.Equal(t, http.StatusOK, b.get("/store/orders", cookie).status)
	link, _ := b.link()
	_, err := b.pool.Exec(context.Background(), "UPDATE players SET is_blocked = true WHERE id = $1", b.player)
	require.NoError(t, err)
	time.Sleep(1100 * time.Millisecond)
	res := b.get("/store/orders", cookie)
	require.Equal(t, http.StatusSeeOther, res.status)
	require.Equal(t, "/store/signed-out", res.header.Get("Location"))
	res = b.get(link, "")
	require.Equal(t, http.StatusGone, res.status, "a blocked player's link opens nothing")
	require.Empty(t, res.header.Values("Set-Cookie"))
}

var denominationPattern = regexp.MustCompile(`name="denomination" value="([^"]+)"`)

var keyPattern = regexp.MustCompile(`name="idempotencyKey" value="([^"]+)"`)

// buyForm is the buy form of a reward's page as rendered for the session.
func (b *storeBundle) buyForm(cookie string, reward uuid.UUID) url.Values {
	b.t.Helper()
	res := b.get("/store/rewards/"+reward.String(), cookie)
	require.Equal(b.t, http.StatusOK, res.status, res.body)
	m := keyPattern.FindStringSubmatch(res.body)
	require.NotNil(b.t, m, "a signed-in reward page has a buy form")
	form := url.Values{"idempotencyKey": {m[1]}}
	if d := denominationPattern.FindStringSubmatch(res.body); d != nil {
		form.Set("denomination", d[1])
	}
	return form
}

func (b *storeBundle) orderCount() int {
	b.t.Helper()
	var n int
	require.NoError(b.t, b.pool.QueryRow(context.Background(), "SELECT count(*) FROM orders WHERE player_id = $1", b.player).Scan(&n))
	return n
}

// Every page sends the security headers; frame-ancestors is the game's allowedOrigins of the
// session's environment; a page with codes is never cached; assets are kept a year.
func TestStoreHeaders(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	cookie := b.enter()
	for _, path := range []string{"/store", "/store/rewards", "/store/search?q=house", "/store/rewards/" + b.coupon.String(), "/store/orders"} {
		res := b.get(path, cookie)
		require.Equal(t, http.StatusOK, res.status, path)
		require.Equal(t, "text/html; charset=utf-8", res.header.Get("Content-Type"), path)
		require.Equal(t, "default-src 'self'; img-src 'self' https: data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors "+storeOrigin,
			res.header.Get("Content-Security-Policy"), path)
		require.Equal(t, "nosniff", res.header.Get("X-Content-Type-Options"), path)
		require.Equal(t, "same-origin", res.header.Get("Referrer-Policy"), path)
	}
	res := b.send(http.MethodPost, "/store/rewards/"+b.coupon.String()+"/purchase", cookie, b.buyForm(cookie, b.coupon), nil)
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	order := b.get(res.header.Get("Location"), cookie)
	require.Equal(t, http.StatusOK, order.status)
	require.Equal(t, "no-store", order.header.Get("Cache-Control"), "a page with a code")
	require.Contains(t, order.body, "HOUSE-")

	css := regexp.MustCompile(`href="(/store/assets/store\.[0-9a-f]{12}\.css)"`).FindStringSubmatch(order.body)
	require.NotNil(t, css, "the stylesheet's name carries its content's hash")
	asset := b.get(css[1], "")
	require.Equal(t, http.StatusOK, asset.status)
	require.Equal(t, "public, max-age=31536000, immutable", asset.header.Get("Cache-Control"))
	require.Contains(t, asset.header.Get("Content-Type"), "text/css")
}

// A POST from another site is refused with 403 before anything is bought; the same form from
// the store's own page buys.
func TestStoreCrossSitePostIsRefused(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	cookie := b.enter()
	form := b.buyForm(cookie, b.coupon)
	path := "/store/rewards/" + b.coupon.String() + "/purchase"
	for _, h := range []map[string]string{{"Sec-Fetch-Site": "cross-site"}, {"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "same-site"}} {
		res := b.send(http.MethodPost, path, cookie, form, h)
		require.Equal(t, http.StatusForbidden, res.status, h)
		require.Equal(t, "same-origin", res.header.Get("Referrer-Policy"))
	}
	require.Zero(t, b.orderCount(), "nothing bought")
	require.Equal(t, "500", balanceOf(t, b.get("/store", cookie)))
	res := b.send(http.MethodPost, "/store/profile", cookie, url.Values{"line1": {"x"}}, map[string]string{"Sec-Fetch-Site": "cross-site"})
	require.Equal(t, http.StatusForbidden, res.status, "every POST")

	res = b.send(http.MethodPost, path, cookie, form, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": b.srv.URL})
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	require.Equal(t, 1, b.orderCount())
}

// Without the cookie, the pages of a player's own things send it to a page that says to open
// the store from the game; a reward's page shows the reward without a buy form; a purchase
// buys nothing.
func TestStorePagesWithoutTheCookie(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	for _, path := range []string{"/store", "/store/rewards", "/store/rewards?sort=NEWEST", "/store/search?q=house", "/store/orders",
		"/store/orders/" + uuid.NewString(), "/store/profile"} {
		for _, cookie := range []string{"", "forged-value"} {
			res := b.get(path, cookie)
			require.Equal(t, http.StatusSeeOther, res.status, path)
			require.Equal(t, "/store/signed-out", res.header.Get("Location"), path)
		}
	}
	out := b.get("/store/signed-out", "")
	require.Equal(t, http.StatusOK, out.status)
	require.Contains(t, out.body, "Open the store from the game")

	res := b.get("/store/rewards/"+b.coupon.String(), "")
	require.Equal(t, http.StatusOK, res.status)
	require.Contains(t, res.body, "House coupon")
	require.Contains(t, res.body, "300.00 INR")
	require.NotContains(t, res.body, "<form class=\"buy\"")

	res = b.send(http.MethodPost, "/store/rewards/"+b.coupon.String()+"/purchase", "", url.Values{"idempotencyKey": {uuid.NewString()}}, nil)
	require.Equal(t, http.StatusSeeOther, res.status)
	require.Equal(t, "/store/signed-out", res.header.Get("Location"))
	require.Zero(t, b.orderCount())
	require.Equal(t, http.StatusNotFound, b.get("/store/rewards/"+uuid.NewString(), "").status)
}

// A reward's name holding markup is shown as text on every page that names it.
func TestStoreEscapesCatalogueText(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	cookie := b.enter()
	for _, path := range []string{"/store/rewards", "/store/rewards/" + b.scripty.String(), "/store/search?q=deal"} {
		res := b.get(path, cookie)
		require.Equal(t, http.StatusOK, res.status, path)
		require.Contains(t, res.body, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; Deal", path)
		require.NotContains(t, res.body, "<script>alert", path)
	}
}

// A form sent twice buys once; a purchase the player cannot afford renders the reward's page
// again with the reason and 409, and takes nothing; another player's order is 404.
func TestStorePurchase(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	cookie := b.enter()
	form := b.buyForm(cookie, b.coupon)
	path := "/store/rewards/" + b.coupon.String() + "/purchase"
	first := b.send(http.MethodPost, path, cookie, form, nil)
	require.Equal(t, http.StatusSeeOther, first.status, first.body)
	second := b.send(http.MethodPost, path, cookie, form, nil)
	require.Equal(t, http.StatusSeeOther, second.status, second.body)
	require.Equal(t, first.header.Get("Location"), second.header.Get("Location"), "the same order")
	require.Equal(t, 1, b.orderCount())
	order := b.get(first.header.Get("Location"), cookie)
	require.Contains(t, order.body, "Delivered")
	require.Contains(t, order.body, "Show it at the till.")
	require.Equal(t, "200", balanceOf(t, order))

	refused := b.send(http.MethodPost, path, cookie, b.buyForm(cookie, b.coupon), nil)
	require.Equal(t, http.StatusConflict, refused.status)
	require.Contains(t, refused.body, "You don&#39;t have enough Gems")
	require.Contains(t, refused.body, "Nothing was taken")
	require.Equal(t, "200", balanceOf(t, refused))
	require.Equal(t, 1, b.orderCount())

	require.Equal(t, http.StatusNotFound, b.get("/store/orders/"+uuid.NewString(), cookie).status)
	require.Equal(t, http.StatusNotFound, b.get("/store/rewards/"+uuid.NewString(), cookie).status)
}

// The game's theme colours the pages through its own stylesheet (a value that is not a colour
// is left out); catalogue texts follow ?lang=, kept in a cookie, then Accept-Language; the
// landing page follows the store settings.
func TestStoreThemeLanguageAndLanding(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	ctx := context.Background()
	home := "home"
	for _, bad := range []string{`{"backgroundColor": "red;}</style><script>x</script>"}`, `{"logoUrl": "javascript:alert(1)"}`,
		`{"logo": "http://cdn.example.com/l.png"}`, `{"fontFamily": "x;}body{display:none"}`, `{"textColor": 12}`} {
		_, err := b.m.Players.ChangeStoreSettings(ctx, b.game, players.SettingsChange{Theme: []byte(bad)})
		require.Equal(t, errs.Invalid, errs.KindOf(err), bad)
	}
	_, err := b.m.Players.ChangeStoreSettings(ctx, b.game, players.SettingsChange{DefaultLandingPage: &home,
		Theme: []byte(`{"primaryColor": "#0a7", "fontFamily": "Baloo 2", "brandVoice": "anything the studio's own store reads"}`)})
	require.NoError(t, err)
	// A theme stored before its keys were checked: what breaks the rules is left out.
	_, err = b.pool.Exec(ctx, `UPDATE store_settings SET theme = theme || '{"backgroundColor": "red;}</style>", "logoUrl": "javascript:alert(1)"}' WHERE game_id = $1`, b.game)
	require.NoError(t, err)
	_, err = b.m.Catalogue.ChangeReward(ctx, b.coupon, catalogue.RewardChange{Apply: func(r *catalogue.Reward) {
		r.Translations = catalogue.Translations{"hi": {Name: "घर का कूपन"}}
	}})
	require.NoError(t, err)
	require.NoError(t, b.m.CatalogueReads.Refresh(ctx))

	link, _ := b.link()
	res := b.get(link, "")
	require.Equal(t, "/store", res.header.Get("Location"), "defaultLandingPage home")
	cookie := sessionCookie(t, res)

	page := b.get("/store/rewards", cookie)
	theme := regexp.MustCompile(`href="(/store/theme/[^"]+\.css)"`).FindStringSubmatch(page.body)
	require.NotNil(t, theme, page.body)
	css := b.get(theme[1], "")
	require.Equal(t, http.StatusOK, css.status)
	require.Equal(t, ":root{--accent:#0a7;--font:Baloo 2,system-ui,sans-serif;}\n", css.body, "a colour and a font, nothing that is not one")
	require.NotContains(t, page.body, "javascript:")

	require.Contains(t, page.body, "House coupon")
	hindi := b.send(http.MethodGet, "/store/rewards?lang=hi", cookie, nil, nil)
	require.Contains(t, hindi.body, "घर का कूपन")
	require.Contains(t, hindi.body, `<html lang="hi">`)
	var lang string
	for _, c := range (&http.Response{Header: hindi.header}).Cookies() {
		if c.Name == "rewards_store_lang" {
			lang = c.Value
		}
	}
	require.Equal(t, "hi", lang)
	kept := b.send(http.MethodGet, "/store/rewards", "", nil, map[string]string{"Cookie": "rewards_store=" + cookie + "; rewards_store_lang=hi"})
	require.Contains(t, kept.body, "घर का कूपन", "the language cookie")
	browser := b.send(http.MethodGet, "/store/rewards", cookie, nil, map[string]string{"Accept-Language": "hi-IN,hi;q=0.9,en;q=0.8"})
	require.Contains(t, browser.body, "घर का कूपन", "Accept-Language, by its primary language")
}

// The profile keeps the delivery address of goods when the store sells them, and is 404
// otherwise.
func TestStoreProfile(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	cookie := b.enter()
	require.Equal(t, http.StatusNotFound, b.get("/store/profile", cookie).status, "no goods, no address")
	on := true
	_, err := b.m.Players.ChangeStoreSettings(context.Background(), b.game, players.SettingsChange{GcommerceEnabled: &on})
	require.NoError(t, err)
	time.Sleep(5100 * time.Millisecond) // the pages keep a game's settings for 5 s
	res := b.get("/store/profile", cookie)
	require.Equal(t, http.StatusOK, res.status)
	require.Equal(t, "no-store", res.header.Get("Cache-Control"))
	form := url.Values{"name": {"Asha"}, "line1": {"12 MG Road"}, "city": {"Bengaluru"}, "state": {"Karnataka"}, "pinCode": {"560001"}, "phone": {"+919876543210"}}
	res = b.send(http.MethodPost, "/store/profile", cookie, form, nil)
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	res = b.get(res.header.Get("Location"), cookie)
	require.Contains(t, res.body, "Saved.")
	require.Contains(t, res.body, `value="12 MG Road"`)
	form.Set("pinCode", "12")
	res = b.send(http.MethodPost, "/store/profile", cookie, form, nil)
	require.Equal(t, http.StatusBadRequest, res.status)
	require.Contains(t, res.body, `role="alert"`)
}

// A purchase past the game's daily budget is 429 and one of a reward with nothing left is 409,
// each with the reason in words and nothing taken.
func TestStoreRefusalsSayWhy(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	ctx := context.Background()
	empty, err := b.m.Catalogue.CreateReward(ctx, catalogue.NewReward{Reward: catalogue.Reward{Type: catalogue.Coupon, BrandCode: "HOUSE",
		Name: "Empty coupon", IsActive: true, MRP: money.Amount(20_00), SellingPrice: money.Amount(10_00)}})
	require.NoError(t, err)
	require.NoError(t, b.m.CatalogueReads.Refresh(ctx))
	cookie := b.enter()

	res := b.send(http.MethodPost, "/store/rewards/"+empty.ID.String()+"/purchase", cookie, b.buyForm(cookie, empty.ID), nil)
	require.Equal(t, http.StatusConflict, res.status, res.body)
	require.Contains(t, res.body, "This reward is out of stock right now. Nothing was taken")

	budget := money.Amount(1_00)
	_, err = b.m.Studios.SetPurchaseBudget(ctx, b.game, studio.Budgets{Test: &budget}, map[studio.Environment]bool{studio.Test: true})
	require.NoError(t, err)
	res = b.send(http.MethodPost, "/store/rewards/"+b.coupon.String()+"/purchase", cookie, b.buyForm(cookie, b.coupon), nil)
	require.Equal(t, http.StatusTooManyRequests, res.status, res.body)
	require.Contains(t, res.body, "The store has sold all it can today")
	require.Equal(t, "500", balanceOf(t, res))
	require.Zero(t, b.orderCount())
}

// Another player's order, even of the same game, is 404 to a player.
func TestStoreOrderOfAnotherPlayerIsNotFound(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	cookie := b.enter()
	res := b.send(http.MethodPost, "/store/rewards/"+b.coupon.String()+"/purchase", cookie, b.buyForm(cookie, b.coupon), nil)
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	order := res.header.Get("Location")
	require.Equal(t, http.StatusOK, b.get(order, cookie).status)

	g, err := b.m.Studios.GetGame(context.Background(), b.game)
	require.NoError(t, err)
	caller := studio.Caller{GameID: g.ID, StudioID: g.StudioID, Environment: studio.Test}
	_, err = b.m.Players.CreateWithUUID(context.Background(), caller, "neighbour")
	require.NoError(t, err)
	tok, err := b.m.Players.FederatedLogin(context.Background(), caller, "neighbour")
	require.NoError(t, err)
	b.token = tok.AccessToken
	other := b.enter()
	res = b.get(order, other)
	require.Equal(t, http.StatusNotFound, res.status)
	require.NotContains(t, res.body, "HOUSE-")
	require.NotContains(t, b.get("/store/orders", other).body, "House coupon")
}
