package storepage

import (
	"html/template"
	"net/http"
	"net/url"
	"strconv"

	"github.com/rewardsco/rewards/core/catalogue"
)

// pageSize is the rewards on one page of a list.
const pageSize = 20

// card is a reward in a list.
type card struct {
	URL, Name, Brand, Image string
	Coins                   int64
	From                    bool
}

// listPage is the list, the search and the home page's data.
type listPage struct {
	Query, Category, Brand, Sort, Kind string
	CategoryOptions, SortOptions       template.HTML
	Cards                              []template.HTML
	Total                              int64
	Page                               int
	Prev, Next                         string
	Searched                           bool
}

type option struct {
	Value, Label string
	Selected     bool
}

// sorts are GET /rewards' contentLogic orders, as the list offers them.
var sorts = []option{{Value: "DEFAULT", Label: "Recommended"}, {Value: "NEWEST", Label: "Newest"}, {Value: "TRENDING", Label: "Trending"},
	{Value: "PRICE_LOW_HIGH", Label: "Price: low to high"}, {Value: "PRICE_HIGH_LOW", Label: "Price: high to low"}, {Value: "DISCOUNT", Label: "Biggest discount"}}

// list is GET /store/rewards?category=&brand=&sort=&kind=&page=: the game's rewards, as
// GET /rewards lists them.
func (p *Pages) list(w http.ResponseWriter, r *http.Request) {
	p.listOrSearch(w, r, false)
}

// search is GET /store/search?q=.
func (p *Pages) search(w http.ResponseWriter, r *http.Request) {
	p.listOrSearch(w, r, true)
}

func (p *Pages) listOrSearch(w http.ResponseWriter, r *http.Request, search bool) {
	v, ok := p.visit(w, r)
	if !ok {
		return
	}
	lp, lq := listRequest(r.URL.Query(), v)
	var list []catalogue.Listed
	title, nav := "Rewards", "rewards"
	switch {
	case search && (len(lp.Query) == 0 || len(lp.Query) > 200):
		title, nav = "Search", "search"
	case search:
		title, nav, lp.Searched = "Search", "search", true
		if lp.Sort == "DEFAULT" {
			lq.Order = catalogue.OrderRelevance
		}
		res, err := p.cfg.Shelf.Search(r.Context(), catalogue.SearchQuery{ListQuery: lq, Text: lp.Query}, []string{"rewards"})
		if err != nil {
			p.fail(w, r, err)
			return
		}
		list, lp.Total = res.Rewards, res.Total
	default:
		var err error
		list, lp.Total, err = p.cfg.Shelf.List(r.Context(), lq)
		if err != nil {
			p.fail(w, r, err)
			return
		}
		if lp.CategoryOptions, err = p.categoryOptions(r, v, lp.Category); err != nil {
			p.fail(w, r, err)
			return
		}
	}
	var err error
	if lp.SortOptions, err = sortOptions(lp.Sort); err == nil {
		lp.Cards, err = cards(list, v.lang)
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	lp.Prev, lp.Next = pageLinks(lp, r.URL.Path)
	p.show(w, v, "list.html", title, nav, lp)
}

// listRequest is the page and the query of the list's parameters q; an unknown sort or kind
// falls back to the default, the page to 1 to 500.
func listRequest(q url.Values, v visit) (listPage, catalogue.ListQuery) {
	lp := listPage{Query: q.Get("q"), Category: q.Get("category"), Brand: q.Get("brand"), Sort: q.Get("sort"), Kind: q.Get("kind")}
	lp.Page, _ = strconv.Atoi(q.Get("page"))
	lp.Page = max(1, min(lp.Page, 500))
	order, known := catalogue.ContentLogics[lp.Sort]
	if !known {
		lp.Sort, order = "DEFAULT", catalogue.OrderDefault
	}
	lq := catalogue.ListQuery{GameID: v.Player.GameID, Environment: v.Player.Environment, CoinID: v.fund.id,
		Category: lp.Category, Brand: lp.Brand, Order: order, Limit: pageSize, Offset: (lp.Page - 1) * pageSize}
	switch lp.Kind {
	case "cards":
		lq.GiftCard = ptr(true)
	case "other":
		lq.GiftCard = ptr(false)
	default:
		lp.Kind = ""
	}
	return lp, lq
}

// categoryOptions are the options of the game's categories, named in lang, the category whose
// code is selected marked selected.
func (p *Pages) categoryOptions(r *http.Request, v visit, selected string) (template.HTML, error) {
	cats, err := p.cfg.Shelf.Categories(r.Context(), v.Player.GameID)
	if err != nil {
		return "", err
	}
	opts := make([]option, 0, len(cats))
	for _, c := range cats {
		name, _ := localise(c.Category.Translations, v.lang, c.Category.Name, "")
		opts = append(opts, option{Value: c.Category.Code, Label: name, Selected: c.Category.Code == selected})
	}
	return optionsHTML(opts)
}

// sortOptions are the options of sorts, the one of value sort marked selected.
func sortOptions(sort string) (template.HTML, error) {
	opts := make([]option, len(sorts))
	for i, o := range sorts {
		o.Selected = o.Value == sort
		opts[i] = o
	}
	return optionsHTML(opts)
}

// pageLinks are the addresses, under path, of the pages before and after lp's, empty where
// there is none.
func pageLinks(lp listPage, path string) (prev, next string) {
	pageURL := func(n int) string {
		v := url.Values{}
		for k, val := range map[string]string{"q": lp.Query, "category": lp.Category, "brand": lp.Brand, "kind": lp.Kind} {
			if val != "" {
				v.Set(k, val)
			}
		}
		if lp.Sort != "DEFAULT" {
			v.Set("sort", lp.Sort)
		}
		v.Set("page", strconv.Itoa(n))
		return path + "?" + v.Encode()
	}
	if lp.Page > 1 {
		prev = pageURL(lp.Page - 1)
	}
	if int64(lp.Page*pageSize) < lp.Total {
		next = pageURL(lp.Page + 1)
	}
	return prev, next
}

// cards are the rendered cards of list, in lang.
func cards(list []catalogue.Listed, lang string) ([]template.HTML, error) {
	out := make([]card, len(list))
	for i, l := range list {
		name, _ := localise(l.Reward.Translations, lang, l.Reward.Name, "")
		brand, _ := localise(l.Brand.Translations, lang, l.Brand.Name, "")
		pr := l.Prices()
		out[i] = card{URL: Path + "/rewards/" + l.Reward.ID.String(), Name: name, Brand: brand,
			Image: firstOf(l.Reward.CoverImage, l.Brand.LogoURL), Coins: pr.Min, From: pr.Max > pr.Min}
	}
	return cardsHTML(out)
}

func ptr[T any](v T) *T { return &v }

func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
