// Package vouchers implements the core vouchers.Provider port over the voucher provider's
// Tango-RaaS-style JSON API (the one fakes/vouchers serves; its package doc is the wire format):
//
//	GET  {base}/catalogs?currency=XXX     brands with FIXED_VALUE / VARIABLE_VALUE items
//	GET  {base}/stock/{utid}              stock per face value
//	POST {base}/orders                    {externalRefID, utid, amount, quantity, currencyCode}
//	GET  {base}/orders/{externalRefID}    an order
//
// with the API key in header X-Api-Key. The base URL is the API root, with its path: for the
// fakes, http://localhost:9090/vouchers.
//
// Every call has a timeout (10 s by default). A connection error, a timeout, a 5xx, 408 or 429,
// or an answer cut short is vouchers.ErrUnavailable, wrapped with the detail: the outcome of an
// order is then unknown and must be read again. A 404 on GetOrder is vouchers.ErrOrderNotFound;
// any other 4xx, or an answer that breaks the wire format, is an internal error saying what the
// provider said. Amounts travel as decimal JSON numbers and are converted to and from
// money.Amount exactly, through their text, never through a float.
package vouchers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/rewardsco/rewards/adapters/jsoncall"
	"github.com/rewardsco/rewards/core/money"
	core "github.com/rewardsco/rewards/core/vouchers"
)

// DefaultTimeout bounds each call to the provider unless WithTimeout says otherwise.
const DefaultTimeout = 10 * time.Second

// maxBody bounds what is read of an answer (the catalogue is the largest).
const maxBody = 32 << 20

// Client is the voucher provider's HTTP client. Use New.
type Client struct {
	baseURL string
	apiKey  string
	timeout time.Duration
	http    *http.Client
}

var _ core.Provider = (*Client)(nil)

// Option configures a Client.
type Option func(*Client)

// WithTimeout bounds each call (default DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithHTTPClient sends the calls through hc instead of a default client.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// New returns a client of the provider at baseURL (the API root, e.g.
// http://localhost:9090/vouchers) authenticating with apiKey.
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{baseURL: strings.TrimRight(baseURL, "/"), apiKey: apiKey, timeout: DefaultTimeout, http: &http.Client{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// The wire format.
type (
	wireCatalog struct {
		Brands []wireBrand `json:"brands"`
	}
	wireBrand struct {
		BrandKey    string            `json:"brandKey"`
		BrandName   string            `json:"brandName"`
		Description string            `json:"description"`
		ImageURLs   map[string]string `json:"imageUrls"`
		WebsiteURL  string            `json:"websiteUrl"`
		Terms       string            `json:"terms"`
		HowToRedeem string            `json:"howToRedeem"`
		Categories  []string          `json:"categories"`
		Countries   []string          `json:"countries"`
		Items       []wireItem        `json:"items"`
	}
	wireItem struct {
		UTID         string        `json:"utid"`
		RewardName   string        `json:"rewardName"`
		CurrencyCode string        `json:"currencyCode"`
		ValueType    string        `json:"valueType"`
		FaceValues   []json.Number `json:"faceValues"`
		MinValue     json.Number   `json:"minValue"`
		MaxValue     json.Number   `json:"maxValue"`
		Discount     json.Number   `json:"discount"`
	}
	wireStock struct {
		Stock []struct {
			FaceValue json.Number `json:"faceValue"`
			Available bool        `json:"available"`
			Quantity  *int64      `json:"quantity"`
		} `json:"stock"`
	}
	wireOrderRequest struct {
		ExternalRefID string      `json:"externalRefID"`
		UTID          string      `json:"utid"`
		Amount        json.Number `json:"amount"`
		Quantity      int         `json:"quantity"`
		CurrencyCode  string      `json:"currencyCode,omitempty"`
	}
	wireOrder struct {
		ExternalRefID string `json:"externalRefID"`
		Status        string `json:"status"`
		Reason        string `json:"reason"`
		Rewards       []struct {
			VoucherID string      `json:"voucherId"`
			Code      string      `json:"code"`
			Pin       string      `json:"pin"`
			FaceValue json.Number `json:"faceValue"`
			ExpiresAt string      `json:"expiresAt"`
		} `json:"rewards"`
	}
)

// Catalogue implements core.Provider: the brands with at least one product in currency, each
// with its products in currency only.
func (c *Client) Catalogue(ctx context.Context, currency string) ([]core.Brand, error) {
	currency = strings.ToUpper(currency)
	var cat wireCatalog
	if err := c.do(ctx, http.MethodGet, "/catalogs?currency="+url.QueryEscape(currency), nil, &cat); err != nil {
		return nil, err
	}
	brands := []core.Brand{}
	for _, wb := range cat.Brands {
		b := core.Brand{Code: wb.BrandKey, Name: wb.BrandName, Description: wb.Description, LogoURL: logo(wb.ImageURLs),
			WebsiteURL: wb.WebsiteURL, Terms: wb.Terms, HowToRedeem: wb.HowToRedeem,
			Categories: wb.Categories, Countries: wb.Countries}
		for _, wi := range wb.Items {
			if !strings.EqualFold(wi.CurrencyCode, currency) {
				continue
			}
			p, err := product(wi)
			if err != nil {
				return nil, fmt.Errorf("voucher provider: brand %s: %w", wb.BrandKey, err)
			}
			b.Products = append(b.Products, p)
		}
		if len(b.Products) > 0 {
			brands = append(brands, b)
		}
	}
	return brands, nil
}

func product(wi wireItem) (core.Product, error) {
	p := core.Product{ID: wi.UTID, Name: wi.RewardName, Currency: strings.ToUpper(wi.CurrencyCode)}
	d, err := jsoncall.Amount(wi.Discount)
	if err != nil || d > 100_00 {
		return p, fmt.Errorf("item %s: discount %q is not a percentage with at most two decimals", wi.UTID, wi.Discount)
	}
	p.DiscountPct = money.Pct(d)
	switch wi.ValueType {
	case "FIXED_VALUE":
		p.ValueType = core.Fixed
		for _, f := range wi.FaceValues {
			a, err := jsoncall.Amount(f)
			if err != nil || a <= 0 {
				return p, fmt.Errorf("item %s: face value %q is not a positive amount with at most two decimals", wi.UTID, f)
			}
			p.Denominations = append(p.Denominations, a)
		}
		slices.Sort(p.Denominations)
		p.Denominations = slices.Compact(p.Denominations)
		if len(p.Denominations) == 0 {
			return p, fmt.Errorf("item %s: FIXED_VALUE without faceValues", wi.UTID)
		}
	case "VARIABLE_VALUE":
		p.ValueType = core.Variable
		if p.MinValue, err = jsoncall.Amount(wi.MinValue); err != nil {
			return p, fmt.Errorf("item %s: minValue: %w", wi.UTID, err)
		}
		if p.MaxValue, err = jsoncall.Amount(wi.MaxValue); err != nil {
			return p, fmt.Errorf("item %s: maxValue: %w", wi.UTID, err)
		}
		if p.MinValue <= 0 || p.MaxValue < p.MinValue {
			return p, fmt.Errorf("item %s: range %s to %s is not a positive range", wi.UTID, p.MinValue, p.MaxValue)
		}
	default:
		return p, fmt.Errorf("item %s: unknown valueType %q", wi.UTID, wi.ValueType)
	}
	return p, nil
}

// logoSizes are the image keys a logo is taken from, best first.
var logoSizes = []string{"300w-326ppi", "200w-326ppi", "130w-326ppi", "80w-326ppi"}

func logo(urls map[string]string) string {
	for _, k := range logoSizes {
		if u := urls[k]; u != "" {
			return u
		}
	}
	keys := make([]string, 0, len(urls))
	for k := range urls {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) > 0 {
		return urls[keys[0]]
	}
	return ""
}

// Stock implements core.Provider. A VARIABLE product has one entry, Denomination 0, that
// stands for every value of its range.
func (c *Client) Stock(ctx context.Context, productID string) ([]core.Stock, error) {
	var ws wireStock
	if err := c.do(ctx, http.MethodGet, "/stock/"+url.PathEscape(productID), nil, &ws); err != nil {
		return nil, err
	}
	out := make([]core.Stock, 0, len(ws.Stock))
	for _, e := range ws.Stock {
		s := core.Stock{Available: e.Available, Quantity: e.Quantity}
		if e.FaceValue != "" {
			a, err := jsoncall.Amount(e.FaceValue)
			if err != nil {
				return nil, fmt.Errorf("voucher provider: stock of %s: face value: %w", productID, err)
			}
			s.Denomination = a
		}
		if s.Quantity != nil && *s.Quantity <= 0 {
			s.Available = false
		}
		out = append(out, s)
	}
	return out, nil
}

// PlaceOrder implements core.Provider.
func (c *Client) PlaceOrder(ctx context.Context, o core.Order) (core.Result, error) {
	if o.Reference == "" || o.ProductID == "" || o.Denomination <= 0 || o.Quantity < 1 {
		return core.Result{}, fmt.Errorf("voucher provider: order needs a reference, a product, a positive denomination and quantity, got %+v", o)
	}
	req := wireOrderRequest{ExternalRefID: o.Reference, UTID: o.ProductID, Amount: json.Number(o.Denomination.String()),
		Quantity: o.Quantity, CurrencyCode: strings.ToUpper(o.Currency)}
	var wo wireOrder
	if err := c.do(ctx, http.MethodPost, "/orders", req, &wo); err != nil {
		return core.Result{}, err
	}
	return result(wo)
}

// GetOrder implements core.Provider.
func (c *Client) GetOrder(ctx context.Context, reference string) (core.Result, error) {
	var wo wireOrder
	err := c.do(ctx, http.MethodGet, "/orders/"+url.PathEscape(reference), nil, &wo)
	if jsoncall.StatusOf(err) == http.StatusNotFound {
		return core.Result{}, fmt.Errorf("voucher provider: order %q: %w", reference, core.ErrOrderNotFound)
	}
	if err != nil {
		return core.Result{}, err
	}
	return result(wo)
}

func result(wo wireOrder) (core.Result, error) {
	var r core.Result
	switch wo.Status {
	case "PENDING":
		r.Status = core.Pending
	case "COMPLETE":
		r.Status = core.Issued
	case "FAILED":
		r.Status, r.Reason = core.Refused, wo.Reason
		if r.Reason == "" {
			r.Reason = "refused by the voucher provider"
		}
	default:
		return r, fmt.Errorf("voucher provider: order %q has unknown status %q", wo.ExternalRefID, wo.Status)
	}
	if r.Status != core.Issued {
		return r, nil
	}
	for _, w := range wo.Rewards {
		v := core.Voucher{Code: w.Code, Pin: w.Pin, ProviderVoucherID: w.VoucherID}
		var err error
		if v.Value, err = jsoncall.Amount(w.FaceValue); err != nil {
			return core.Result{}, fmt.Errorf("voucher provider: order %q: face value: %w", wo.ExternalRefID, err)
		}
		if w.ExpiresAt != "" {
			t, err := time.Parse(time.RFC3339, w.ExpiresAt)
			if err != nil {
				return core.Result{}, fmt.Errorf("voucher provider: order %q: expiresAt: %w", wo.ExternalRefID, err)
			}
			v.Expiry = &t
		}
		r.Vouchers = append(r.Vouchers, v)
	}
	if len(r.Vouchers) == 0 {
		return core.Result{}, fmt.Errorf("voucher provider: order %q is COMPLETE without codes", wo.ExternalRefID)
	}
	return r, nil
}

// do makes one call and decodes a 2xx answer into out.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	header := http.Header{}
	if c.apiKey != "" {
		header.Set("X-Api-Key", c.apiKey)
	}
	a, err := jsoncall.Do(ctx, c.http, method, c.baseURL+path, header, in, maxBody)
	var none *jsoncall.NoAnswer
	if errors.As(err, &none) {
		return fmt.Errorf("voucher provider: %s %s: %s: %w: %w", method, path, none.Detail, core.ErrUnavailable, none.Err)
	}
	if err != nil {
		return fmt.Errorf("voucher provider: %w", err)
	}
	switch s := a.Status; {
	case a.OK():
		if err := json.Unmarshal(a.Body, out); err != nil {
			return fmt.Errorf("voucher provider: %s %s: undecodable answer %d: %w", method, path, s, err)
		}
		return nil
	case s >= 500, s == http.StatusTooManyRequests, s == http.StatusRequestTimeout:
		return fmt.Errorf("voucher provider: %s %s: answered %d: %s: %w", method, path, s, jsoncall.Snippet(a.Body), core.ErrUnavailable)
	default:
		return a.Failure("voucher provider", method, path, nil)
	}
}
