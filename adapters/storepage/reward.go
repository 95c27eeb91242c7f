package storepage

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/errs"
)

// item is what a reward's page shows; the fields after Terms are a signed-in player's.
type item struct {
	ID, Name, Kind, Image, Description string
	Values, Price, MRP                 string
	HowToRedeem, Terms                 string

	Signed bool
	// Faces are the face values on offer with their coin price; Range is set (with Min and
	// Max) for a reward of any value in a range instead.
	Faces          []face
	Range          bool
	Min, Max       string
	MinCoins       int64
	MaxCoins       int64
	Physical       bool
	Addresses      []option
	NextPurchaseAt string
	// IdempotencyKey is made when the page is rendered: a form sent twice buys once.
	IdempotencyKey string
	// Refusal is why the last tap bought nothing, in words.
	Refusal string
}

type face struct {
	Value, Label string
	Coins        int64
	Available    bool
	Checked      bool
}

// reward is GET /store/rewards/{id}: a signed-in player's page of the reward in its game, priced
// in its coin with a buy form; without a session, the catalogue's side of a reward or product
// (prices in money, no form).
func (p *Pages) reward(w http.ResponseWriter, r *http.Request) {
	s, signed, err := p.session(w, r)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	id := r.PathValue("id")
	if rid, perr := uuid.Parse(id); perr == nil && signed {
		p.rewardPage(w, r, s, rid, "", http.StatusOK)
		return
	}
	lang := p.language(w, r)
	it, found, err := p.find(r.Context(), id, lang)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	if !found {
		p.missing(w)
		return
	}
	v := view{Title: it.Name, Lang: lang, Page: it}
	var fa []string
	if signed {
		fund, err := p.fund(r.Context(), s)
		if err != nil {
			p.fail(w, r, err)
			return
		}
		v, fa = s.frame(it.Name, "rewards", lang, fund)
		v.Page = it
	}
	p.render(w, http.StatusOK, "reward.html", v, fa)
}

// rewardPage renders the signed-in page of a reward of the player's game: 404 for a reward the
// game does not show. refusal, when set, is why a purchase bought nothing (with its status).
func (p *Pages) rewardPage(w http.ResponseWriter, r *http.Request, s shopper, id uuid.UUID, refusal string, status int) {
	lang := p.language(w, r)
	fund, err := p.fund(r.Context(), s)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	d, err := p.cfg.Shelf.Fetch(r.Context(), catalogue.ListQuery{GameID: s.Player.GameID, Environment: s.Player.Environment, CoinID: fund.id}, id, s.Player.ID)
	if errs.KindOf(err) == errs.NotFound {
		p.missing(w)
		return
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	it := p.item(d.Reward, lang)
	it.Signed, it.Refusal, it.IdempotencyKey = true, refusal, uuid.NewString()
	it.Physical = d.Reward.Type == catalogue.Physical
	if d.Reward.ValueType == catalogue.Range && d.Reward.Type != catalogue.Coupon && !it.Physical {
		pr := d.Prices()
		it.Range, it.Min, it.Max, it.MinCoins, it.MaxCoins = true, d.Reward.MinValue.String(), d.Reward.MaxValue.String(), pr.Min, pr.Max
	}
	first := true
	for _, f := range d.Faces {
		fc := face{Value: f.Value.String(), Label: p.money(f.Value), Coins: f.CoinPrice, Available: f.Available}
		if f.Available && first {
			fc.Checked, first = true, false
		}
		it.Faces = append(it.Faces, fc)
	}
	if it.Physical {
		for i, a := range s.Player.Addresses {
			it.Addresses = append(it.Addresses, option{Value: itoa(i + 1), Label: strings.Join(nonEmpty(a.Name, a.Line1, a.City, a.PinCode), ", "), Selected: a.Default || i == 0})
		}
	}
	if d.NextPurchaseAt != nil {
		it.NextPurchaseAt = d.NextPurchaseAt.UTC().Format(time.RFC1123)
	}
	v, fa := s.frame(it.Name, "rewards", lang, fund)
	v.Page = it
	p.render(w, status, "reward.html", v, fa)
}

// find looks id up as a reward, then as a product; found is false when neither is active.
func (p *Pages) find(ctx context.Context, id, lang string) (it item, found bool, err error) {
	if rid, perr := uuid.Parse(id); perr == nil {
		rw, err := p.cfg.Catalogue.GetReward(ctx, rid)
		switch {
		case errs.CodeOf(err) == catalogue.ErrRewardNotFound.Code:
		case err != nil:
			return item{}, false, err
		case rw.IsActive:
			return p.item(rw, lang), true, nil
		}
	}
	products, err := p.cfg.Catalogue.Products(ctx, []string{id})
	if err != nil {
		return item{}, false, err
	}
	for _, pr := range products {
		if pr.ID == id && pr.IsActive {
			return item{ID: pr.ID, Name: pr.Name, Kind: "Product by " + pr.BrandName, Image: firstOf(pr.HeroImageURL, pr.ImageURL),
				Price: p.money(pr.DiscountedListingPrice), MRP: p.money(pr.MRP)}, true, nil
		}
	}
	return item{}, false, nil
}

// item is the catalogue's side of a reward, in lang.
func (p *Pages) item(r catalogue.Reward, lang string) item {
	name, description := localise(r.Translations, lang, r.Name, r.Description)
	it := item{ID: r.ID.String(), Name: name, Kind: kinds[r.Type], Image: r.CoverImage, Description: firstOf(description, r.CampaignDetails),
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
		it.Values = strings.Join(values, ", ") + " " + p.cfg.Currency
	}
	return it
}

var kinds = map[catalogue.Type]string{catalogue.GiftCard: "Gift card", catalogue.Coupon: "Coupon",
	catalogue.DigitalCredit: "Digital credit", catalogue.Physical: "Delivered to your door"}

func nonEmpty(values ...string) []string {
	var out []string
	for _, v := range values {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}
