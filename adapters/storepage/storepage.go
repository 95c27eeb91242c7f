// Package storepage serves the service's own store pages: GET {Path}/rewards/{id}, one page
// per reward or product, in plain HTML. A touchpoint's link is {storeUrl}/rewards/{id}; a game
// with no store of its own (no storeUrl), and the demo game of a local run, get these pages as
// their store, so that every link a player is offered opens the item it names. The page shows
// the catalogue's side of the item (name, art, values, how to redeem); buying it takes the
// player's coins, which happens in the game's store through the API.
package storepage

import (
	"context"
	"html/template"
	"net/http"
	"path"
	"strings"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
)

// Path is where the pages are served: Path + "/rewards/{id}". {REWARDS_PUBLIC_URL}/store is the
// store address of a game without one.
const Path = "/store"

// Catalogue is what the pages read.
type Catalogue interface {
	// GetReward returns a reward, or an error coded catalogue.ErrRewardNotFound.
	GetReward(ctx context.Context, id uuid.UUID) (catalogue.Reward, error)
	// Products returns the products of ids that exist.
	Products(ctx context.Context, ids []string) ([]catalogue.Product, error)
}

// Pages serves the store pages. Use New.
type Pages struct {
	cat      Catalogue
	currency string
}

// New returns the pages of cat's items, priced in currency.
func New(cat Catalogue, currency string) *Pages {
	return &Pages{cat: cat, currency: currency}
}

// item is what a page shows.
type item struct {
	Name, Kind, Image, Description string
	Values, Price, MRP             string
	HowToRedeem, Terms             string
}

// ServeHTTP answers GET and HEAD of Path + "/rewards/{id}": 200 with the page of an active
// reward (by its id) or product (by its productId), 404 for anything else.
func (p *Pages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	dir, id := path.Split(r.URL.Path)
	if dir != Path+"/rewards/" || id == "" {
		notFound(w)
		return
	}
	it, found, err := p.find(r.Context(), id)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if !found {
		notFound(w)
		return
	}
	header(w)
	_ = page.Execute(w, it)
}

// find looks id up as a reward, then as a product; found is false when neither is active.
func (p *Pages) find(ctx context.Context, id string) (it item, found bool, err error) {
	if rid, perr := uuid.Parse(id); perr == nil {
		rw, err := p.cat.GetReward(ctx, rid)
		switch {
		case errs.CodeOf(err) == catalogue.ErrRewardNotFound.Code:
		case err != nil:
			return item{}, false, err
		case rw.IsActive:
			return p.reward(rw), true, nil
		}
	}
	products, err := p.cat.Products(ctx, []string{id})
	if err != nil {
		return item{}, false, err
	}
	for _, pr := range products {
		if pr.ID == id && pr.IsActive {
			return item{Name: pr.Name, Kind: "Product by " + pr.BrandName, Image: firstOf(pr.HeroImageURL, pr.ImageURL),
				Price: p.money(pr.DiscountedListingPrice), MRP: p.money(pr.MRP)}, true, nil
		}
	}
	return item{}, false, nil
}

func (p *Pages) reward(r catalogue.Reward) item {
	it := item{Name: r.Name, Kind: kinds[r.Type], Image: r.CoverImage, Description: firstOf(r.Description, r.CampaignDetails),
		HowToRedeem: r.HowToRedeem, Terms: r.TermsAndConditions}
	switch {
	case r.Type == catalogue.Coupon || r.Type == catalogue.Physical:
		if r.SellingPrice > 0 {
			it.Price = p.money(r.SellingPrice)
		}
		if r.MRP > r.SellingPrice {
			it.MRP = p.money(r.MRP)
		}
	case r.ValueType == catalogue.Range:
		it.Values = "any value from " + p.money(r.MinValue) + " to " + p.money(r.MaxValue)
	default:
		values := make([]string, len(r.Denominations))
		for i, d := range r.Denominations {
			values[i] = d.String()
		}
		it.Values = strings.Join(values, ", ") + " " + p.currency
	}
	return it
}

var kinds = map[catalogue.Type]string{catalogue.GiftCard: "Gift card", catalogue.Coupon: "Coupon",
	catalogue.DigitalCredit: "Digital credit", catalogue.Physical: "Delivered to your door"}

func (p *Pages) money(a money.Amount) string { return a.String() + " " + p.currency }

func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// header sets what every page sends: HTML that runs no script and loads only images.
func header(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; img-src https: http:; style-src 'unsafe-inline'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-cache")
}

func notFound(w http.ResponseWriter) {
	header(w)
	w.WriteHeader(http.StatusNotFound)
	_ = missing.Execute(w, nil)
}

var page = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Name}}</title></head>
<body style="font-family: sans-serif; max-width: 36em; margin: 2em auto; padding: 0 1em">
<p style="color: #666">{{.Kind}}</p>
<h1>{{.Name}}</h1>
{{if .Image}}<img src="{{.Image}}" alt="{{.Name}}" style="max-width: 100%; border-radius: 12px">{{end}}
{{if .Description}}<p>{{.Description}}</p>{{end}}
{{if .Values}}<p>Values: <strong>{{.Values}}</strong></p>{{end}}
{{if .Price}}<p>Price: <strong>{{.Price}}</strong>{{if .MRP}} <s>{{.MRP}}</s>{{end}}</p>{{end}}
<p>Redeem it with your coins in the game's store.</p>
{{if .HowToRedeem}}<h2>How to redeem</h2><p style="white-space: pre-line">{{.HowToRedeem}}</p>{{end}}
{{if .Terms}}<h2>Terms</h2><p style="white-space: pre-line; font-size: small">{{.Terms}}</p>{{end}}
</body></html>
`))

var missing = template.Must(template.New("missing").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not available</title></head>
<body style="font-family: sans-serif; max-width: 36em; margin: 2em auto; padding: 0 1em">
<h1>This reward is not available</h1><p>It may have been withdrawn. Open the game's store to see what you can redeem.</p>
</body></html>
`))
