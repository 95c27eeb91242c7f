// Package vouchers is a fake voucher provider speaking the Tango-RaaS-style JSON API that
// adapters/vouchers speaks, under the prefix /vouchers. It keeps its orders and stock in memory,
// issues random unique codes, and can be told to fail, answer a given status, or stall. It logs
// every call to its API (catalogue, stock, orders placed and read), so that a test can tell that
// a service never called it at all, not only that it placed no order.
//
// Authentication is the header X-Api-Key. Without a key configured (WithAPIKey;
// FAKE_VOUCHER_API_KEY in fakes/cmd/fakes) any key, or none, is accepted; with one, anything
// else is 401.
//
// Amounts are JSON numbers in units of the currency with at most two decimals (500.00, 10.99);
// a discount is a percentage with at most two decimals (2.5 means 2.5 %). Errors are
// {httpCode, code, message}.
//
//	GET  /vouchers/catalogs?currency=INR   {catalogName, brands: [Brand]}: every brand with its
//	                                       items in currency (every currency without it); a brand
//	                                       with no item in the currency is left out
//	GET  /vouchers/stock/{utid}            {utid, currencyCode, valueType, stock: [{faceValue,
//	                                       available, quantity}]}: one entry per face value of a
//	                                       FIXED_VALUE item, one with faceValue null for a
//	                                       VARIABLE_VALUE item; quantity null means unlimited;
//	                                       404 UTID_NOT_FOUND
//	POST /vouchers/orders                  {externalRefID, utid, amount, quantity?, currencyCode?}
//	                                       → 201 Order; the same externalRefID again with the same
//	                                       body → 200 and the same Order, codes included; with
//	                                       another body → 409 EXTERNAL_REF_ID_REUSED
//	GET  /vouchers/orders/{externalRefID}  Order, or 404 ORDER_NOT_FOUND
//	GET  /vouchers/orders                  inspection: every Order, oldest first;
//	                                       ?externalRefID= narrows to one
//	GET  /vouchers/calls                   inspection: every Call to the catalogue, stock and
//	                                       order endpoints (inspection aside), oldest first,
//	                                       whatever it answered (forced failures and 401s
//	                                       included)
//	POST /vouchers/behaviour               {failNext?, failStatus?, status?, stallMs?}; {} resets
//	GET  /vouchers/images/{brandKey}.svg   a generated logo, what the catalogue's imageUrls name
//	                                       (under the address the request came to, or the
//	                                       base WithImageBase gives; Images serves them
//	                                       anywhere)
//
//	Brand  {brandKey, brandName, description, imageUrls: {"80w-326ppi": url, "130w-326ppi",
//	       "200w-326ppi", "300w-326ppi"}, websiteUrl, terms, howToRedeem, categories, countries,
//	       status, items: [Item]}
//	Item   {utid, rewardName, currencyCode, valueType: FIXED_VALUE|VARIABLE_VALUE, faceValues
//	       (FIXED_VALUE, ascending), minValue, maxValue (VARIABLE_VALUE), discount, status}
//	Order  {referenceOrderID, externalRefID, utid, brandKey, rewardName, currencyCode, amount,
//	       quantity, status: PENDING|COMPLETE|FAILED, reason (FAILED), createdAt, placements,
//	       rewards: [{voucherId, code, pin, faceValue, currencyCode, expiresAt}]}
//	Call   {method, path (with its query), status}
//
// An order needs externalRefID (1–128 of A–Z a–z 0–9 . _ : -), the utid of an item, quantity 1–100
// (default 1), an amount that is one of a FIXED_VALUE item's faceValues (else 400
// DENOMINATION_NOT_OFFERED) or within a VARIABLE_VALUE item's range (else 400
// AMOUNT_OUT_OF_RANGE), and currencyCode, when given, the item's (else 400 CURRENCY_MISMATCH).
// A request refused with a 4xx creates nothing. An order of an ordinary brand is COMPLETE at
// once with one reward per unit of quantity: a random unique code and PIN, a voucherId, the face
// value, and an expiry a year ahead. A quantity-limited face value loses what is issued; an order
// for more than is left is FAILED with reason OUT_OF_STOCK and takes nothing. placements counts
// the requests that answered with the order, so a test can see retries met one order. The
// sandbox brands (SandboxFail, SandboxSlow, SandboxSlowFail, SandboxNoStock) force outcomes; the
// delay of the slow ones is 10 s unless WithSandboxDelay says otherwise.
//
// Behaviour applies to every endpoint above but the behaviour, inspection and image ones:
// failNext makes the next n requests answer failStatus (default 500) without doing anything;
// status makes every other request answer that status without doing anything; stallMs holds
// every answer this long, after the request has done its work (an order placed by a request whose
// client gave up while it stalled exists all the same, as at a real provider).
package vouchers

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math/big"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rewardsco/rewards/fakes/internal/behave"
)

// Value types of an item.
const (
	FixedValue    = "FIXED_VALUE"
	VariableValue = "VARIABLE_VALUE"
)

// Statuses of an order.
const (
	StatusPending  = "PENDING"
	StatusComplete = "COMPLETE"
	StatusFailed   = "FAILED"
)

// APIKeyHeader is the header that carries the API key.
const APIKeyHeader = "X-Api-Key"

// cents is an amount in hundredths of a unit. The fake keeps its own arithmetic rather than
// the service's (core/money), so that a mistake there cannot be agreed with here.
type cents int64

// String writes c with two decimals: 500.00.
func (c cents) String() string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// parseCents reads "500", "500.5" or "500.50".
func parseCents(s string) (cents, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 2 {
		return 0, fmt.Errorf("%s has more than two decimals", s)
	}
	frac += strings.Repeat("0", 2-len(frac))
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", s, err)
	}
	return cents(n), nil
}

// Decimal is an amount (hundredths of a unit) or a percentage (hundredths of a percent) that is a
// JSON number with two decimals on the wire: 500.00, 2.50.
type Decimal cents

// MarshalJSON writes the number with two decimals.
func (d Decimal) MarshalJSON() ([]byte, error) { return []byte(cents(d).String()), nil }

// UnmarshalJSON reads a non-negative JSON number with at most two decimals, exactly.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if !decimalRE.MatchString(s) {
		return fmt.Errorf("%s is not a non-negative number with at most two decimals", s)
	}
	a, err := parseCents(s)
	if err != nil {
		return err
	}
	*d = Decimal(a)
	return nil
}

var decimalRE = regexp.MustCompile(`^[0-9]{1,13}(\.[0-9]{1,2})?$`)

// Brand is a brand of the catalogue with its items.
type Brand struct {
	BrandKey    string            `json:"brandKey"`
	BrandName   string            `json:"brandName"`
	Description string            `json:"description"`
	ImageURLs   map[string]string `json:"imageUrls"`
	WebsiteURL  string            `json:"websiteUrl"`
	Terms       string            `json:"terms"`
	HowToRedeem string            `json:"howToRedeem"`
	Categories  []string          `json:"categories"`
	Countries   []string          `json:"countries"`
	Status      string            `json:"status"`
	Items       []Item            `json:"items"`
}

// Item is one card of a brand, in one currency.
type Item struct {
	UTID         string `json:"utid"`
	RewardName   string `json:"rewardName"`
	CurrencyCode string `json:"currencyCode"`
	// ValueType is FixedValue or VariableValue.
	ValueType string `json:"valueType"`
	// FaceValues are the denominations of a FIXED_VALUE item, ascending.
	FaceValues []Decimal `json:"faceValues,omitempty"`
	// MinValue and MaxValue bound a VARIABLE_VALUE item.
	MinValue *Decimal `json:"minValue,omitempty"`
	MaxValue *Decimal `json:"maxValue,omitempty"`
	// Discount is the percentage off face value the buyer gets.
	Discount Decimal `json:"discount"`
	Status   string  `json:"status"`
}

// Catalog is the answer of GET /vouchers/catalogs.
type Catalog struct {
	CatalogName string  `json:"catalogName"`
	Brands      []Brand `json:"brands"`
}

// StockEntry is the stock of one face value; FaceValue is nil for a VARIABLE_VALUE item.
type StockEntry struct {
	FaceValue *Decimal `json:"faceValue"`
	Available bool     `json:"available"`
	// Quantity is how many cards are left; nil means unlimited.
	Quantity *int64 `json:"quantity"`
}

// Stock is the answer of GET /vouchers/stock/{utid}.
type Stock struct {
	UTID         string       `json:"utid"`
	CurrencyCode string       `json:"currencyCode"`
	ValueType    string       `json:"valueType"`
	Stock        []StockEntry `json:"stock"`
}

// OrderRequest is the body of POST /vouchers/orders.
type OrderRequest struct {
	ExternalRefID string  `json:"externalRefID"`
	UTID          string  `json:"utid"`
	Amount        Decimal `json:"amount"`
	Quantity      int     `json:"quantity"`
	CurrencyCode  string  `json:"currencyCode,omitempty"`
}

// Reward is one issued card.
type Reward struct {
	VoucherID    string    `json:"voucherId"`
	Code         string    `json:"code"`
	Pin          string    `json:"pin"`
	FaceValue    Decimal   `json:"faceValue"`
	CurrencyCode string    `json:"currencyCode"`
	ExpiresAt    time.Time `json:"expiresAt"`
}

// Order is an order as the provider holds it.
type Order struct {
	ReferenceOrderID string  `json:"referenceOrderID"`
	ExternalRefID    string  `json:"externalRefID"`
	UTID             string  `json:"utid"`
	BrandKey         string  `json:"brandKey"`
	RewardName       string  `json:"rewardName"`
	CurrencyCode     string  `json:"currencyCode"`
	Amount           Decimal `json:"amount"`
	Quantity         int     `json:"quantity"`
	// Status is StatusPending, StatusComplete or StatusFailed.
	Status string `json:"status"`
	// Reason says why a FAILED order failed.
	Reason    string    `json:"reason,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	// Placements counts the POST /vouchers/orders requests that answered with this order.
	Placements int `json:"placements"`
	// Rewards are the issued cards, one per unit of quantity, once COMPLETE.
	Rewards []Reward `json:"rewards"`
}

// Call is one request to the provider's API (catalogue, stock, an order placed or read) and the
// status it answered.
type Call struct {
	Method string `json:"method"`
	// Path is the request's path with its query: /vouchers/catalogs?currency=INR.
	Path   string `json:"path"`
	Status int    `json:"status"`
}

// String writes the call as "GET /vouchers/stock/U-AMAZON-INR-F 200".
func (c Call) String() string { return fmt.Sprintf("%s %s %d", c.Method, c.Path, c.Status) }

// APIError is the body of every error answer.
type APIError struct {
	HTTPCode int    `json:"httpCode"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// Behaviour is how the provider answers; the zero value answers normally.
type Behaviour struct {
	// FailNext makes the next FailNext requests answer FailStatus (default 500).
	FailNext   int `json:"failNext"`
	FailStatus int `json:"failStatus"`
	// Status, when set, is the answer to every request.
	Status int `json:"status"`
	// StallMs holds every answer this long.
	StallMs int `json:"stallMs"`
}

// Option configures a Provider.
type Option func(*Provider)

// WithAPIKey makes the provider accept only this X-Api-Key; empty accepts any.
func WithAPIKey(key string) Option { return func(p *Provider) { p.apiKey = key } }

// WithSandboxDelay sets how long SANDBOX_SLOW and SANDBOX_SLOW_FAIL orders stay PENDING
// (default 10 s).
func WithSandboxDelay(d time.Duration) Option { return func(p *Provider) { p.sandboxDelay = d } }

// WithImageBase makes the catalogue's imageUrls start with base (base + "/vouchers/images/…")
// instead of the address the request came to. A service that runs the fake in-process on a
// loopback port it picks anew each time serves Images under base itself, so the addresses it
// syncs outlive the fake's port.
func WithImageBase(base string) Option {
	return func(p *Provider) { p.imageBase = strings.TrimSuffix(base, "/") }
}

// item is a catalogue item with its stock.
type item struct {
	Item
	brandKey string
	faces    []cents
	min, max cents
	// left is the stock of each face value (key 0 for a VARIABLE_VALUE item); a missing key is
	// unlimited.
	left map[cents]int64
}

// order is an order with what is left to do for a PENDING one.
type order struct {
	Order
	settleAt time.Time
	refuse   string
}

// Provider is the fake. Use New.
type Provider struct {
	apiKey       string
	sandboxDelay time.Duration
	imageBase    string

	brands []Brand // immutable after New; ImageURLs are filled per request
	items  map[string]*item

	mu        sync.Mutex
	orders    map[string]*order
	placed    []*order
	codes     map[string]bool
	seq       int
	calls     []Call
	behaviour Behaviour
}

// New returns a provider with the built-in catalogue, full stock and no orders.
func New(opts ...Option) *Provider {
	p := &Provider{sandboxDelay: 10 * time.Second, items: map[string]*item{}, orders: map[string]*order{}, codes: map[string]bool{}}
	for _, o := range opts {
		o(p)
	}
	for _, b := range catalogue {
		brand := Brand{BrandKey: b.key, BrandName: b.name, Description: b.desc, WebsiteURL: b.website,
			Terms: terms(b.name), HowToRedeem: howToRedeem(b.name, b.website), Categories: b.categories,
			Countries: b.countries, Status: "active"}
		for _, s := range b.items {
			it := &item{brandKey: b.key, left: map[cents]int64{}}
			it.CurrencyCode, it.Discount, it.Status = s.currency, Decimal(must(s.discount)), "active"
			if s.fixed != nil {
				it.UTID, it.ValueType = utid(b.key, s.currency, true), FixedValue
				it.RewardName = fmt.Sprintf("%s Gift Card (%s)", b.name, s.currency)
				for _, f := range s.fixed {
					it.faces = append(it.faces, must(f))
					it.FaceValues = append(it.FaceValues, Decimal(must(f)))
				}
			} else {
				it.UTID, it.ValueType = utid(b.key, s.currency, false), VariableValue
				it.RewardName = fmt.Sprintf("%s Gift Card, any value (%s)", b.name, s.currency)
				it.min, it.max = must(s.min), must(s.max)
				lo, hi := Decimal(it.min), Decimal(it.max)
				it.MinValue, it.MaxValue = &lo, &hi
			}
			for f, n := range s.limited {
				it.left[must(f)] = n
			}
			if b.key == SandboxNoStock {
				for _, f := range it.faces {
					it.left[f] = 0
				}
				it.left[0] = 0
			}
			p.items[it.UTID] = it
			brand.Items = append(brand.Items, it.Item)
		}
		p.brands = append(p.brands, brand)
	}
	return p
}

// Register adds the provider's routes to mux.
func (p *Provider) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /vouchers/catalogs", p.api(p.catalog))
	mux.HandleFunc("GET /vouchers/stock/{utid}", p.api(p.stock))
	mux.HandleFunc("POST /vouchers/orders", p.api(p.placeOrder))
	mux.HandleFunc("GET /vouchers/orders/{ref}", p.api(p.getOrder))
	mux.HandleFunc("GET /vouchers/orders", p.listOrders)
	mux.HandleFunc("GET /vouchers/calls", p.listCalls)
	mux.HandleFunc("POST /vouchers/behaviour", p.setBehaviour)
	mux.Handle("GET /vouchers/images/{file}", p.Images())
}

// Images serves the brands' logos alone (no catalogue, orders or behaviour), whatever the
// path's prefix: the last element of the path names the logo ("{brandKey}.svg"), anything else
// is 404. Mount it where WithImageBase points.
func (p *Provider) Images() http.Handler { return http.HandlerFunc(p.image) }

// SetBehaviour replaces the provider's behaviour, as POST /vouchers/behaviour does.
func (p *Provider) SetBehaviour(b Behaviour) {
	p.mu.Lock()
	p.behaviour = b
	p.mu.Unlock()
}

// Orders returns every order placed, oldest first, as GET /vouchers/orders does.
func (p *Provider) Orders() []Order {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Order, 0, len(p.placed))
	for _, o := range p.placed {
		p.settle(o)
		out = append(out, o.Order)
	}
	return out
}

// Calls returns every call to the API, oldest first, as GET /vouchers/calls does.
func (p *Provider) Calls() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.calls)
}

// answer is what an API handler answers.
type answer struct {
	status int
	body   any
}

func fail(status int, code, format string, args ...any) answer {
	return answer{status, APIError{HTTPCode: status, Code: code, Message: fmt.Sprintf(format, args...)}}
}

// api wraps a handler with the behaviour and the API key check.
func (p *Provider) api(h func(*http.Request) answer) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		b := &p.behaviour
		forced, stall := behave.Decide(&b.FailNext, b.FailStatus, b.Status, b.StallMs)
		p.mu.Unlock()
		var a answer
		switch {
		case forced != 0:
			a = fail(forced, "FORCED_BY_BEHAVIOUR", "the fake was told to answer %d", forced)
		case p.apiKey != "" && r.Header.Get(APIKeyHeader) != p.apiKey:
			a = fail(http.StatusUnauthorized, "UNAUTHORIZED", "missing or wrong %s", APIKeyHeader)
		default:
			a = h(r)
		}
		p.mu.Lock()
		p.calls = append(p.calls, Call{Method: r.Method, Path: r.URL.RequestURI(), Status: a.status})
		p.mu.Unlock()
		if !behave.Hold(r.Context(), stall) {
			return
		}
		writeJSON(w, a.status, a.body)
	}
}

func (p *Provider) catalog(r *http.Request) answer {
	currency := strings.ToUpper(r.URL.Query().Get("currency"))
	base := p.imageBase
	if base == "" {
		base = baseURL(r)
	}
	out := Catalog{CatalogName: "Fake Vouchers Catalog", Brands: []Brand{}}
	for _, b := range p.brands {
		items := []Item{}
		for _, it := range b.Items {
			if currency == "" || it.CurrencyCode == currency {
				items = append(items, it)
			}
		}
		if len(items) == 0 {
			continue
		}
		b.Items = items
		b.ImageURLs = map[string]string{}
		for _, w := range []string{"80", "130", "200", "300"} {
			b.ImageURLs[w+"w-326ppi"] = fmt.Sprintf("%s/vouchers/images/%s.svg?w=%s", base, b.BrandKey, w)
		}
		out.Brands = append(out.Brands, b)
	}
	return answer{http.StatusOK, out}
}

func (p *Provider) stock(r *http.Request) answer {
	it := p.items[r.PathValue("utid")]
	if it == nil {
		return fail(http.StatusNotFound, "UTID_NOT_FOUND", "no item %q", r.PathValue("utid"))
	}
	out := Stock{UTID: it.UTID, CurrencyCode: it.CurrencyCode, ValueType: it.ValueType, Stock: []StockEntry{}}
	p.mu.Lock()
	defer p.mu.Unlock()
	entry := func(face cents) StockEntry {
		e := StockEntry{Available: true}
		if n, limited := it.left[face]; limited {
			e.Quantity, e.Available = &n, n > 0
		}
		return e
	}
	if it.ValueType == VariableValue {
		out.Stock = append(out.Stock, entry(0))
	}
	for _, f := range it.faces {
		e := entry(f)
		d := Decimal(f)
		e.FaceValue = &d
		out.Stock = append(out.Stock, e)
	}
	return answer{http.StatusOK, out}
}

var refRE = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

func (p *Provider) placeOrder(r *http.Request) answer {
	var req OrderRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil {
		return fail(http.StatusBadRequest, "INVALID_REQUEST", "body must be {externalRefID, utid, amount, quantity?, currencyCode?}: %v", err)
	}
	if req.Quantity == 0 {
		req.Quantity = 1
	}
	req.CurrencyCode = strings.ToUpper(req.CurrencyCode)
	if !refRE.MatchString(req.ExternalRefID) {
		return fail(http.StatusBadRequest, "INVALID_REQUEST", "externalRefID must be 1 to 128 of A-Z a-z 0-9 . _ : -")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if o := p.orders[req.ExternalRefID]; o != nil {
		if o.UTID != req.UTID || o.Amount != req.Amount || o.Quantity != req.Quantity ||
			(req.CurrencyCode != "" && req.CurrencyCode != o.CurrencyCode) {
			return fail(http.StatusConflict, "EXTERNAL_REF_ID_REUSED", "externalRefID %q was placed with another utid, amount, quantity or currency", req.ExternalRefID)
		}
		o.Placements++
		p.settle(o)
		return answer{http.StatusOK, o.Order}
	}
	it := p.items[req.UTID]
	amount := cents(req.Amount)
	switch {
	case it == nil:
		return fail(http.StatusBadRequest, "UNKNOWN_UTID", "no item %q", req.UTID)
	case req.Amount <= 0:
		return fail(http.StatusBadRequest, "INVALID_REQUEST", "amount must be positive")
	case req.Quantity < 1 || req.Quantity > 100:
		return fail(http.StatusBadRequest, "INVALID_REQUEST", "quantity must be 1 to 100")
	case req.CurrencyCode != "" && req.CurrencyCode != it.CurrencyCode:
		return fail(http.StatusBadRequest, "CURRENCY_MISMATCH", "item %s is in %s, not %s", it.UTID, it.CurrencyCode, req.CurrencyCode)
	case it.ValueType == FixedValue && !slices.Contains(it.faces, amount):
		return fail(http.StatusBadRequest, "DENOMINATION_NOT_OFFERED", "item %s has no face value %s", it.UTID, amount)
	case it.ValueType == VariableValue && (amount < it.min || amount > it.max):
		return fail(http.StatusBadRequest, "AMOUNT_OUT_OF_RANGE", "item %s takes %s to %s", it.UTID, it.min, it.max)
	}
	p.seq++
	now := time.Now().UTC()
	o := &order{Order: Order{ReferenceOrderID: fmt.Sprintf("RA%s-%06d", now.Format("060102"), p.seq),
		ExternalRefID: req.ExternalRefID, UTID: it.UTID, BrandKey: it.brandKey, RewardName: it.RewardName,
		CurrencyCode: it.CurrencyCode, Amount: req.Amount, Quantity: req.Quantity, CreatedAt: now,
		Placements: 1, Rewards: []Reward{}}}
	p.orders[o.ExternalRefID] = o
	p.placed = append(p.placed, o)
	key := amount
	if it.ValueType == VariableValue {
		key = 0
	}
	switch n, limited := it.left[key]; {
	case it.brandKey == SandboxFail:
		o.Status, o.Reason = StatusFailed, "SANDBOX_FAIL: the provider refused the order"
	case limited && n < int64(req.Quantity):
		o.Status, o.Reason = StatusFailed, fmt.Sprintf("OUT_OF_STOCK: %d left", n)
	default:
		if limited {
			it.left[key] = n - int64(req.Quantity)
		}
		switch it.brandKey {
		case SandboxSlow:
			o.Status, o.settleAt = StatusPending, now.Add(p.sandboxDelay)
		case SandboxSlowFail:
			o.Status, o.settleAt = StatusPending, now.Add(p.sandboxDelay)
			o.refuse = "SANDBOX_SLOW_FAIL: the provider refused the order"
		default:
			p.issue(o)
		}
	}
	return answer{http.StatusCreated, o.Order}
}

func (p *Provider) getOrder(r *http.Request) answer {
	p.mu.Lock()
	defer p.mu.Unlock()
	o := p.orders[r.PathValue("ref")]
	if o == nil {
		return fail(http.StatusNotFound, "ORDER_NOT_FOUND", "no order with externalRefID %q", r.PathValue("ref"))
	}
	p.settle(o)
	return answer{http.StatusOK, o.Order}
}

func (p *Provider) listOrders(w http.ResponseWriter, r *http.Request) {
	ref := r.URL.Query().Get("externalRefID")
	out := []Order{}
	for _, o := range p.Orders() {
		if ref == "" || o.ExternalRefID == ref {
			out = append(out, o)
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (p *Provider) listCalls(w http.ResponseWriter, _ *http.Request) {
	calls := p.Calls()
	if calls == nil {
		calls = []Call{}
	}
	writeJSON(w, http.StatusOK, calls)
}

func (p *Provider) setBehaviour(w http.ResponseWriter, r *http.Request) {
	var b Behaviour
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil || b.FailNext < 0 || b.StallMs < 0 ||
		(b.Status != 0 && (b.Status < 100 || b.Status > 599)) || (b.FailStatus != 0 && (b.FailStatus < 100 || b.FailStatus > 599)) {
		writeJSON(w, http.StatusBadRequest, APIError{HTTPCode: 400, Code: "INVALID_REQUEST",
			Message: "body must be {failNext?, failStatus?, status?, stallMs?} with valid numbers"})
		return
	}
	p.SetBehaviour(b)
	writeJSON(w, http.StatusOK, b)
}

// settle completes a PENDING order whose time has come. The caller holds p.mu.
func (p *Provider) settle(o *order) {
	if o.Status != StatusPending || time.Now().Before(o.settleAt) {
		return
	}
	if o.refuse != "" {
		o.Status, o.Reason = StatusFailed, o.refuse
		it := p.items[o.UTID]
		key := cents(o.Amount)
		if it.ValueType == VariableValue {
			key = 0
		}
		if n, limited := it.left[key]; limited {
			it.left[key] = n + int64(o.Quantity)
		}
		return
	}
	p.issue(o)
}

// issue makes the order's codes. The caller holds p.mu.
func (p *Provider) issue(o *order) {
	expires := time.Now().UTC().Truncate(time.Second).AddDate(1, 0, 0)
	rewards := make([]Reward, 0, o.Quantity)
	for range o.Quantity {
		code := p.unique(func() string {
			c := randomString(codeAlphabet, 16)
			return c[0:4] + "-" + c[4:8] + "-" + c[8:12] + "-" + c[12:16]
		})
		id := p.unique(func() string { return "VCH-" + randomString(hexDigits, 12) })
		rewards = append(rewards, Reward{VoucherID: id, Code: code, Pin: randomString(digits, 6),
			FaceValue: o.Amount, CurrencyCode: o.CurrencyCode, ExpiresAt: expires})
	}
	o.Status, o.Rewards = StatusComplete, rewards
}

const (
	codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	hexDigits    = "0123456789ABCDEF"
	digits       = "0123456789"
)

// unique returns a string of gen never returned before. The caller holds p.mu.
func (p *Provider) unique(gen func() string) string {
	for {
		s := gen()
		if !p.codes[s] {
			p.codes[s] = true
			return s
		}
	}
}

func randomString(alphabet string, n int) string {
	b := make([]byte, n)
	max := big.NewInt(int64(len(alphabet)))
	for i := range b {
		k, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic(err)
		}
		b[i] = alphabet[k.Int64()]
	}
	return string(b)
}

// image draws a plain logo: the brand's initials on a colour of its own.
func (p *Provider) image(w http.ResponseWriter, r *http.Request) {
	file := path.Base(r.URL.Path)
	if r.Method != http.MethodGet && r.Method != http.MethodHead || !strings.HasSuffix(file, ".svg") {
		http.NotFound(w, r)
		return
	}
	key := strings.TrimSuffix(file, ".svg")
	var name string
	for _, b := range p.brands {
		if b.BrandKey == key {
			name = b.BrandName
		}
	}
	if name == "" {
		http.NotFound(w, r)
		return
	}
	hue := 0
	for _, c := range key {
		hue = (hue*31 + int(c)) % 360
	}
	initials := ""
	for _, word := range strings.Fields(name) {
		if len(initials) < 2 {
			initials += strings.ToUpper(word[:1])
		}
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	_, _ = fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 190"><rect width="300" height="190" rx="16" fill="hsl(%d,55%%,42%%)"/>`+
		`<text x="150" y="118" font-family="sans-serif" font-size="72" font-weight="bold" fill="#fff" text-anchor="middle">%s</text></svg>`,
		hue, html.EscapeString(initials))
}

// baseURL is the scheme and host the request came to.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if s := r.Header.Get("X-Forwarded-Proto"); s == "http" || s == "https" {
		scheme = s
	}
	return scheme + "://" + r.Host
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
