package vouchers_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/fakes/vouchers"
)

// fake serves a new provider on httptest.
type fake struct {
	t   *testing.T
	p   *vouchers.Provider
	url string
	key string
}

func start(t *testing.T, opts ...vouchers.Option) *fake {
	t.Helper()
	p := vouchers.New(opts...)
	mux := http.NewServeMux()
	p.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &fake{t: t, p: p, url: srv.URL}
}

// call makes a request and decodes a JSON answer into out (when not nil); it returns the status.
func (f *fake) call(method, path string, body any, out any) int {
	f.t.Helper()
	var rd io.Reader
	if body != nil {
		if s, ok := body.(string); ok {
			rd = strings.NewReader(s)
		} else {
			b, err := json.Marshal(body)
			require.NoError(f.t, err)
			rd = bytes.NewReader(b)
		}
	}
	req, err := http.NewRequest(method, f.url+path, rd)
	require.NoError(f.t, err)
	if f.key != "" {
		req.Header.Set(vouchers.APIKeyHeader, f.key)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(f.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(f.t, err)
	if out != nil {
		require.NoError(f.t, json.Unmarshal(raw, out), string(raw))
	}
	return res.StatusCode
}

func (f *fake) order(ref, utid, amount string, quantity int) (int, vouchers.Order) {
	f.t.Helper()
	var o vouchers.Order
	body := `{"externalRefID":"` + ref + `","utid":"` + utid + `","amount":` + amount + `,"quantity":` + itoa(quantity) + `}`
	status := f.call(http.MethodPost, "/vouchers/orders", body, &o)
	return status, o
}

func (f *fake) stock(utid string) vouchers.Stock {
	f.t.Helper()
	var s vouchers.Stock
	require.Equal(f.t, 200, f.call(http.MethodGet, "/vouchers/stock/"+utid, nil, &s))
	return s
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestCatalogue(t *testing.T) {
	t.Parallel()
	f := start(t)
	for _, currency := range []string{"INR", "USD"} {
		var cat vouchers.Catalog
		require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/catalogs?currency="+currency, nil, &cat))
		ordinary, sandbox, fixed, variable := 0, map[string]bool{}, 0, 0
		categories := map[string]bool{}
		for _, b := range cat.Brands {
			require.NotEmpty(t, b.Items, b.BrandKey)
			require.NotEmpty(t, b.BrandName)
			require.NotEmpty(t, b.Terms)
			require.NotEmpty(t, b.HowToRedeem)
			require.NotEmpty(t, b.Countries)
			require.Contains(t, b.ImageURLs["300w-326ppi"], f.url+"/vouchers/images/"+b.BrandKey+".svg")
			if strings.HasPrefix(b.BrandKey, "SANDBOX_") {
				sandbox[b.BrandKey] = true
			} else {
				ordinary++
			}
			for _, c := range b.Categories {
				categories[c] = true
			}
			for _, it := range b.Items {
				require.Equal(t, currency, it.CurrencyCode)
				require.LessOrEqual(t, int64(it.Discount), int64(1000), "discounts are 0 to 10%%")
				switch it.ValueType {
				case vouchers.FixedValue:
					fixed++
					require.NotEmpty(t, it.FaceValues)
					require.Nil(t, it.MinValue)
				case vouchers.VariableValue:
					variable++
					require.Empty(t, it.FaceValues)
					require.Less(t, int64(*it.MinValue), int64(*it.MaxValue))
				default:
					t.Fatalf("value type %q", it.ValueType)
				}
			}
		}
		require.GreaterOrEqual(t, ordinary, 30, currency)
		require.Equal(t, map[string]bool{vouchers.SandboxFail: true, vouchers.SandboxSlow: true,
			vouchers.SandboxSlowFail: true, vouchers.SandboxNoStock: true}, sandbox, currency)
		require.Positive(t, fixed)
		require.Positive(t, variable)
		require.GreaterOrEqual(t, len(categories), 6)
	}

	// The wire carries exact two-decimal numbers.
	res, err := http.Get(f.url + "/vouchers/catalogs?currency=USD")
	require.NoError(t, err)
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Contains(t, string(raw), `"faceValues":[10.99,32.97,65.94]`)
	require.Contains(t, string(raw), `"minValue":2.00,"maxValue":2000.00,"discount":0.50`)

	var all vouchers.Catalog
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/catalogs", nil, &all))
	var gbp vouchers.Catalog
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/catalogs?currency=gbp", nil, &gbp))
	require.NotEmpty(t, gbp.Brands)
	require.Greater(t, len(all.Brands), 34)

	res, err = http.Get(all.Brands[0].ImageURLs["80w-326ppi"])
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	require.Equal(t, "image/svg+xml", res.Header.Get("Content-Type"))
}

func TestOrdersAreIdempotentAndIssueCodesOnce(t *testing.T) {
	t.Parallel()
	f := start(t)
	status, first := f.order("ord-1", "U-AMAZON-INR-F", "500.00", 3)
	require.Equal(t, http.StatusCreated, status)
	require.Equal(t, vouchers.StatusComplete, first.Status)
	require.Len(t, first.Rewards, 3)
	codes := map[string]bool{}
	for _, r := range first.Rewards {
		require.Regexp(t, `^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$`, r.Code)
		require.Regexp(t, `^[0-9]{6}$`, r.Pin)
		require.NotEmpty(t, r.VoucherID)
		require.Equal(t, vouchers.Decimal(50000), r.FaceValue)
		require.Equal(t, "INR", r.CurrencyCode)
		require.WithinDuration(t, time.Now().AddDate(1, 0, 0), r.ExpiresAt, time.Minute)
		codes[r.Code] = true
	}
	require.Len(t, codes, 3, "codes are unique")

	status, again := f.order("ord-1", "U-AMAZON-INR-F", "500", 3)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, first.ReferenceOrderID, again.ReferenceOrderID)
	require.Equal(t, first.Rewards, again.Rewards, "the same codes, never new ones")
	require.Equal(t, 2, again.Placements)

	var got vouchers.Order
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/orders/ord-1", nil, &got))
	require.Equal(t, first.Rewards, got.Rewards)

	var conflict vouchers.APIError
	require.Equal(t, http.StatusConflict, f.call(http.MethodPost, "/vouchers/orders",
		`{"externalRefID":"ord-1","utid":"U-AMAZON-INR-F","amount":500,"quantity":2}`, &conflict))
	require.Equal(t, "EXTERNAL_REF_ID_REUSED", conflict.Code)
	require.Equal(t, http.StatusConflict, f.call(http.MethodPost, "/vouchers/orders",
		`{"externalRefID":"ord-1","utid":"U-AMAZON-INR-F","amount":1000,"quantity":3}`, nil))
	require.Equal(t, http.StatusConflict, f.call(http.MethodPost, "/vouchers/orders",
		`{"externalRefID":"ord-1","utid":"U-AMAZON-INR-F","amount":500,"quantity":3,"currencyCode":"USD"}`, nil))

	_, other := f.order("ord-2", "U-AMAZON-INR-F", "500", 1)
	require.False(t, codes[other.Rewards[0].Code])

	var listed []vouchers.Order
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/orders", nil, &listed))
	require.Len(t, listed, 2, "one order per reference")
	require.Equal(t, "ord-1", listed[0].ExternalRefID)
	require.Equal(t, 2, listed[0].Placements)
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/orders?externalRefID=ord-2", nil, &listed))
	require.Len(t, listed, 1)
	require.Equal(t, other.Rewards, listed[0].Rewards)

	var nf vouchers.APIError
	require.Equal(t, http.StatusNotFound, f.call(http.MethodGet, "/vouchers/orders/nope", nil, &nf))
	require.Equal(t, "ORDER_NOT_FOUND", nf.Code)
}

func TestOrderValidation(t *testing.T) {
	t.Parallel()
	f := start(t)
	for body, code := range map[string]string{
		`{"externalRefID":"a","utid":"U-AMAZON-INR-F","amount":499,"quantity":1}`:         "DENOMINATION_NOT_OFFERED",
		`{"externalRefID":"a","utid":"U-AMAZON-INR-V","amount":10000.01,"quantity":1}`:    "AMOUNT_OUT_OF_RANGE",
		`{"externalRefID":"a","utid":"U-AMAZON-INR-V","amount":9.99,"quantity":1}`:        "AMOUNT_OUT_OF_RANGE",
		`{"externalRefID":"a","utid":"U-NOPE","amount":500,"quantity":1}`:                 "UNKNOWN_UTID",
		`{"externalRefID":"a","utid":"U-AMAZON-INR-F","amount":500,"quantity":101}`:       "INVALID_REQUEST",
		`{"externalRefID":"a","utid":"U-AMAZON-INR-F","amount":500,"currencyCode":"USD"}`: "CURRENCY_MISMATCH",
		`{"externalRefID":"a","utid":"U-AMAZON-INR-F","amount":500.001}`:                  "INVALID_REQUEST",
		`{"externalRefID":"a","utid":"U-AMAZON-INR-F","amount":"500"}`:                    "INVALID_REQUEST",
		`{"externalRefID":"a b","utid":"U-AMAZON-INR-F","amount":500}`:                    "INVALID_REQUEST",
		`{"utid":"U-AMAZON-INR-F","amount":500}`:                                          "INVALID_REQUEST",
		`{"externalRefID":"a","utid":"U-AMAZON-INR-F","amount":-500}`:                     "INVALID_REQUEST",
		`{"externalRefID":"a","utid":"U-AMAZON-INR-F"}`:                                   "INVALID_REQUEST",
	} {
		var e vouchers.APIError
		require.Equal(t, http.StatusBadRequest, f.call(http.MethodPost, "/vouchers/orders", body, &e), body)
		require.Equal(t, code, e.Code, body)
	}
	require.Empty(t, f.p.Orders(), "a refused request creates nothing")
	status, o := f.order("a", "U-AMAZON-INR-V", "1234.56", 1)
	require.Equal(t, http.StatusCreated, status, "the reference is free after refusals")
	require.Equal(t, vouchers.Decimal(123456), o.Rewards[0].FaceValue)
}

func TestStockDecreasesOnIssue(t *testing.T) {
	t.Parallel()
	f := start(t)
	entry := func(utid string, face int64) vouchers.StockEntry {
		for _, e := range f.stock(utid).Stock {
			if e.FaceValue != nil && int64(*e.FaceValue) == face {
				return e
			}
		}
		t.Fatalf("no face value %d in %s", face, utid)
		return vouchers.StockEntry{}
	}
	s := f.stock("U-CROMA-INR-F")
	require.Equal(t, vouchers.FixedValue, s.ValueType)
	require.Len(t, s.Stock, 4)
	require.Nil(t, entry("U-CROMA-INR-F", 100000).Quantity, "unlimited")
	require.Equal(t, int64(5), *entry("U-CROMA-INR-F", 1000000).Quantity)

	status, o := f.order("c1", "U-CROMA-INR-F", "10000", 2)
	require.Equal(t, http.StatusCreated, status)
	require.Equal(t, vouchers.StatusComplete, o.Status)
	require.Equal(t, int64(3), *entry("U-CROMA-INR-F", 1000000).Quantity)
	f.order("c1", "U-CROMA-INR-F", "10000", 2)
	require.Equal(t, int64(3), *entry("U-CROMA-INR-F", 1000000).Quantity, "a replay takes nothing")

	_, o = f.order("c2", "U-CROMA-INR-F", "10000", 4)
	require.Equal(t, vouchers.StatusFailed, o.Status)
	require.Contains(t, o.Reason, "OUT_OF_STOCK")
	require.Empty(t, o.Rewards)
	require.Equal(t, int64(3), *entry("U-CROMA-INR-F", 1000000).Quantity)
	_, o = f.order("c3", "U-CROMA-INR-F", "10000", 3)
	require.Equal(t, vouchers.StatusComplete, o.Status)
	e := entry("U-CROMA-INR-F", 1000000)
	require.Equal(t, int64(0), *e.Quantity)
	require.False(t, e.Available)

	v := f.stock("U-AMAZON-INR-V")
	require.Equal(t, vouchers.VariableValue, v.ValueType)
	require.Len(t, v.Stock, 1)
	require.Nil(t, v.Stock[0].FaceValue)
	require.True(t, v.Stock[0].Available)

	var nf vouchers.APIError
	require.Equal(t, http.StatusNotFound, f.call(http.MethodGet, "/vouchers/stock/U-NOPE", nil, &nf))
	require.Equal(t, "UTID_NOT_FOUND", nf.Code)
}

func TestSandboxBrands(t *testing.T) {
	t.Parallel()
	f := start(t, vouchers.WithSandboxDelay(150*time.Millisecond))
	for _, cur := range []string{"INR", "USD"} {
		face := map[string]string{"INR": "500", "USD": "10"}[cur]

		_, o := f.order("fail-"+cur, "U-SANDBOX_FAIL-"+cur+"-F", face, 1)
		require.Equal(t, vouchers.StatusFailed, o.Status)
		require.NotEmpty(t, o.Reason)
		require.Empty(t, o.Rewards)

		for _, e := range f.stock("U-SANDBOX_NO_STOCK-" + cur + "-F").Stock {
			require.False(t, e.Available)
			require.Equal(t, int64(0), *e.Quantity)
		}
		_, o = f.order("nostock-"+cur, "U-SANDBOX_NO_STOCK-"+cur+"-F", face, 1)
		require.Equal(t, vouchers.StatusFailed, o.Status)
		require.Contains(t, o.Reason, "OUT_OF_STOCK")

		_, slow := f.order("slow-"+cur, "U-SANDBOX_SLOW-"+cur+"-F", face, 2)
		require.Equal(t, vouchers.StatusPending, slow.Status)
		require.Empty(t, slow.Rewards)
		_, slowFail := f.order("slowfail-"+cur, "U-SANDBOX_SLOW_FAIL-"+cur+"-F", face, 1)
		require.Equal(t, vouchers.StatusPending, slowFail.Status)
	}
	settled := func(ref, status string) {
		require.Eventually(t, func() bool {
			var o vouchers.Order
			f.call(http.MethodGet, "/vouchers/orders/"+ref, nil, &o)
			return o.Status == status
		}, 5*time.Second, 20*time.Millisecond, ref)
	}
	settled("slow-INR", vouchers.StatusComplete)
	settled("slowfail-USD", vouchers.StatusFailed)
	settled("slow-USD", vouchers.StatusComplete)
	settled("slowfail-INR", vouchers.StatusFailed)
	var o vouchers.Order
	f.call(http.MethodGet, "/vouchers/orders/slow-INR", nil, &o)
	require.Len(t, o.Rewards, 2)
	_, replay := f.order("slow-INR", "U-SANDBOX_SLOW-INR-F", "500", 2)
	require.Equal(t, o.Rewards, replay.Rewards)

	f.call(http.MethodGet, "/vouchers/orders/slowfail-USD", nil, &o)
	require.Equal(t, vouchers.StatusFailed, o.Status)
	require.Contains(t, o.Reason, "SANDBOX_SLOW_FAIL")
	for _, x := range f.p.Orders() {
		require.NotEqual(t, vouchers.StatusPending, x.Status, x.ExternalRefID)
	}
}

func TestBehaviour(t *testing.T) {
	t.Parallel()
	f := start(t)
	catalog := func() int { return f.call(http.MethodGet, "/vouchers/catalogs?currency=INR", nil, nil) }

	require.Equal(t, 200, f.call(http.MethodPost, "/vouchers/behaviour", `{"failNext":2,"failStatus":503}`, nil))
	var e vouchers.APIError
	require.Equal(t, 503, f.call(http.MethodPost, "/vouchers/orders", `{"externalRefID":"b1","utid":"U-AMAZON-INR-F","amount":500}`, &e))
	require.Equal(t, "FORCED_BY_BEHAVIOUR", e.Code)
	require.Empty(t, f.p.Orders(), "a forced failure does nothing")
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/orders", nil, nil), "inspection is not counted")
	require.Equal(t, 503, catalog())
	require.Equal(t, 200, catalog())

	require.Equal(t, 200, f.call(http.MethodPost, "/vouchers/behaviour", `{"failNext":1}`, nil))
	require.Equal(t, 500, f.call(http.MethodGet, "/vouchers/stock/U-AMAZON-INR-F", nil, nil), "failStatus defaults to 500")
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/stock/U-AMAZON-INR-F", nil, nil))

	require.Equal(t, 200, f.call(http.MethodPost, "/vouchers/behaviour", `{"status":502}`, nil))
	require.Equal(t, 502, catalog())
	require.Equal(t, 502, f.call(http.MethodGet, "/vouchers/orders/x", nil, nil))
	require.Equal(t, 502, catalog())

	require.Equal(t, 200, f.call(http.MethodPost, "/vouchers/behaviour", `{"stallMs":250}`, nil))
	begin := time.Now()
	status, o := f.order("stalled", "U-AMAZON-INR-F", "500", 1)
	require.Equal(t, http.StatusCreated, status)
	require.Equal(t, vouchers.StatusComplete, o.Status)
	require.GreaterOrEqual(t, time.Since(begin), 250*time.Millisecond)

	require.Equal(t, 200, f.call(http.MethodPost, "/vouchers/behaviour", `{}`, nil))
	begin = time.Now()
	require.Equal(t, 200, catalog())
	require.Less(t, time.Since(begin), 250*time.Millisecond)

	require.Equal(t, 400, f.call(http.MethodPost, "/vouchers/behaviour", `{"status":42}`, nil))
	require.Equal(t, 400, f.call(http.MethodPost, "/vouchers/behaviour", `{"failNext":-1}`, nil))
}

func TestAPIKey(t *testing.T) {
	t.Parallel()
	open := start(t)
	require.Equal(t, 200, open.call(http.MethodGet, "/vouchers/catalogs", nil, nil), "no key configured: none needed")
	open.key = "anything"
	require.Equal(t, 200, open.call(http.MethodGet, "/vouchers/catalogs", nil, nil))

	f := start(t, vouchers.WithAPIKey("s3cret"))
	var e vouchers.APIError
	require.Equal(t, 401, f.call(http.MethodGet, "/vouchers/catalogs", nil, &e))
	require.Equal(t, "UNAUTHORIZED", e.Code)
	f.key = "wrong"
	require.Equal(t, 401, f.call(http.MethodPost, "/vouchers/orders", `{"externalRefID":"k","utid":"U-AMAZON-INR-F","amount":500}`, nil))
	require.Empty(t, f.p.Orders())
	f.key = "s3cret"
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/stock/U-AMAZON-INR-F", nil, nil))
	f.key = ""
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/orders", nil, nil), "inspection needs no key")
	require.Equal(t, 200, f.call(http.MethodPost, "/vouchers/behaviour", `{}`, nil), "nor does behaviour")
}

// With an image base, the catalogue names logos there, and Images serves them under any
// prefix (as a service serving them itself would), logos only: never the catalogue or orders.
func TestImageBaseNamesLogosThatImagesServes(t *testing.T) {
	t.Parallel()
	p := vouchers.New(vouchers.WithImageBase("https://rewards.example.com/fakes/"))
	api := http.NewServeMux()
	p.Register(api)
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	f := &fake{t: t, p: p, url: srv.URL}
	var cat vouchers.Catalog
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/catalogs?currency=INR", nil, &cat))
	logo := cat.Brands[0].ImageURLs["300w-326ppi"]
	require.Equal(t, "https://rewards.example.com/fakes/vouchers/images/"+cat.Brands[0].BrandKey+".svg?w=300", logo)

	images := httptest.NewServer(http.StripPrefix("/fakes", p.Images()))
	t.Cleanup(images.Close)
	res, err := http.Get(images.URL + strings.TrimPrefix(logo, "https://rewards.example.com"))
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	require.Equal(t, "image/svg+xml", res.Header.Get("Content-Type"))
	require.Contains(t, string(body), "<svg")
	for _, path := range []string{"/fakes/vouchers/images/NOPE.svg", "/fakes/vouchers/catalogs", "/fakes/vouchers/orders"} {
		res, err := http.Get(images.URL + path)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, 404, res.StatusCode, path)
	}
}

// Every call to the API is logged with its answer, forced failures and refused keys included, so
// that a test can require that a service never called the provider; inspection, behaviour and
// logos are not calls to the provider.
func TestCallsAreLogged(t *testing.T) {
	t.Parallel()
	f := start(t, vouchers.WithAPIKey("s3cret"))
	f.key = "s3cret"
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/catalogs?currency=INR", nil, nil))
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/stock/U-AMAZON-INR-F", nil, nil))
	status, _ := f.order("log-1", "U-AMAZON-INR-F", "500", 1)
	require.Equal(t, http.StatusCreated, status)
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/orders/log-1", nil, nil))
	require.Equal(t, 200, f.call(http.MethodPost, "/vouchers/behaviour", `{"failNext":1}`, nil))
	require.Equal(t, 500, f.call(http.MethodGet, "/vouchers/orders/log-1", nil, nil))
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/orders", nil, nil))
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/images/AMAZON.svg", nil, nil))
	f.key = "wrong"
	require.Equal(t, 401, f.call(http.MethodGet, "/vouchers/stock/U-AMAZON-INR-F", nil, nil))

	want := []vouchers.Call{
		{Method: "GET", Path: "/vouchers/catalogs?currency=INR", Status: 200},
		{Method: "GET", Path: "/vouchers/stock/U-AMAZON-INR-F", Status: 200},
		{Method: "POST", Path: "/vouchers/orders", Status: 201},
		{Method: "GET", Path: "/vouchers/orders/log-1", Status: 200},
		{Method: "GET", Path: "/vouchers/orders/log-1", Status: 500},
		{Method: "GET", Path: "/vouchers/stock/U-AMAZON-INR-F", Status: 401},
	}
	require.Equal(t, want, f.p.Calls())
	var listed []vouchers.Call
	require.Equal(t, 200, f.call(http.MethodGet, "/vouchers/calls", nil, &listed))
	require.Equal(t, want, listed, "GET /vouchers/calls lists what Calls returns, and is no call itself")
	require.Equal(t, "GET /vouchers/stock/U-AMAZON-INR-F 401", listed[5].String())
}
