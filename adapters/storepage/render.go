package storepage

import (
	"embed"
	"errors"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/rewardsco/rewards/adapters/webpage"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
)

//go:embed templates static
var files embed.FS

// assets are the embedded static files under content-hashed names ("store.3f2a1b9c4d5e.css").
var assets = webpage.Load(files, "static", Path+"/assets/")

var pages = webpage.Parse(files, assets, template.FuncMap{"coins": formatCoins})

// view is what every page template gets: the frame (language, theme, the player's balance)
// and the page's own data in Page.
type view struct {
	Title    string
	Lang     string
	ThemeURL string
	Logo     string
	GameName string
	// Signed: a store session is open; Coin and Balance are its player's coin and holding.
	Signed    bool
	Coin      string
	Balance   int64
	Gcommerce bool
	// Nav names the tab that is current (home, rewards, orders, profile).
	Nav  string
	Page any
}

// render writes a page with status, or a 500 when the template fails.
func (p *Pages) render(w http.ResponseWriter, status int, name string, v view, frameAncestors []string) {
	headers(w, frameAncestors)
	if err := webpage.Write(w, status, pages, name, v); err != nil {
		p.cfg.Log.Error("store page", "page", name, "err", err)
		headers(w, nil) // nothing of the page is shown: nothing may frame it
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}

// frame is the view of a signed-in page, and who may frame it.
func (s shopper) frame(title, nav, lang string, fund fundView) (view, []string) {
	return view{Title: title, Lang: lang, ThemeURL: s.game.themeURL, Logo: s.game.theme.Logo, GameName: s.game.game.Name,
		Signed: true, Coin: fund.name, Balance: fund.balance, Gcommerce: s.game.settings.GcommerceEnabled, Nav: nav}, s.game.game.AllowedOrigins.Of(s.Player.Environment)
}

// message renders a page that only says something: a title and a sentence.
type message struct{ Heading, Text, Link, LinkText string }

func (p *Pages) message(w http.ResponseWriter, status int, lang string, m message) {
	p.render(w, status, "message.html", view{Title: m.Heading, Lang: lang, Page: m}, nil)
}

// fail answers a failure of ours: a 500 page that says nothing more; the log has the rest.
func (p *Pages) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errs.KindOf(err) == errs.Unavailable {
		w.Header().Set("Retry-After", "1")
		p.message(w, http.StatusServiceUnavailable, "en", message{Heading: "The store is busy", Text: "Please try again in a moment."})
		return
	}
	p.cfg.Log.ErrorContext(r.Context(), "store page failed", "path", r.URL.Path, "err", err)
	p.message(w, http.StatusInternalServerError, "en", message{Heading: "Something went wrong", Text: "Please try again later."})
}

// notFound answers any other address under Path: 404 for GET and HEAD, 405 otherwise.
func (p *Pages) notFound(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p.missing(w)
}

func (p *Pages) missing(w http.ResponseWriter) {
	p.message(w, http.StatusNotFound, "en", message{Heading: "This reward is not available",
		Text: "It may have been withdrawn. Open the game's store to see what you can redeem."})
}

// crossOrigin answers a POST from another site: 403, and nothing done.
func (p *Pages) crossOrigin(w http.ResponseWriter, _ *http.Request) {
	p.message(w, http.StatusForbidden, "en", message{Heading: "Not allowed", Text: "This form was sent from another site, so nothing was done."})
}

// signedOut says to open the store from the game.
func (p *Pages) signedOut(w http.ResponseWriter, r *http.Request) {
	p.message(w, http.StatusOK, p.language(w, r), message{Heading: "Open the store from the game",
		Text: "Your store session has ended. Open the store again from the game to see your coins and orders."})
}

// formatCoins writes n with thousands separators: 12,500.
func formatCoins(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func (p *Pages) money(a money.Amount) string { return a.String() + " " + p.cfg.Currency }

// localise returns name and description in lang, or its primary language, else the base text.
func localise(t catalogue.Translations, lang, name, description string) (string, string) {
	if _, ok := t[lang]; !ok {
		lang, _, _ = strings.Cut(lang, "-")
	}
	return t.Localise(lang, name, description)
}

var errNoCoin = errors.New("the game has no coin")
