package consolepage

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/storepage"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

// themeKeys are the theme's keys the store reads (players.Theme), in the form's order.
var themeKeys = []struct{ Key, Label, Default, Var string }{
	{"primaryColor", "Accent colour", "#5b3df5", "--sp-accent"},
	{"backgroundColor", "Background colour", "#f6f6fb", "--sp-bg"},
	{"textColor", "Text colour", "#16161d", "--sp-fg"},
	{"surfaceColor", "Card colour", "#ffffff", "--sp-surface"},
}

// landingPages are the pages a store may open on (as the operator API's enum).
var landingPages = []option{{"rewards", "Rewards"}, {"home", "Home"}, {"gcommerce", "Goods"}}

type option struct{ Value, Label string }

type selectOption struct {
	Value, Label string
	Selected     bool
}

func storeURLOf(g *gameRef) string { return envURL(g) + "/store" }

// storePage is the settings, the theme (saved, or the draft being previewed) and the
// integration settings.
type storePage struct {
	EnvName  string
	GameName string
	Settings players.StoreSettings
	Landing  []selectOption
	Colours  []colourField
	Font     string
	Logo     string
	// OtherKeys are the theme's keys the store does not read (a studio's own store may): kept
	// when the theme is saved.
	OtherKeys string
	// Draft: the theme shown is the form's, not yet saved.
	Draft      bool
	PreviewCSS string
	// Integration settings.
	StoreURL       string
	Origins        string
	ServerOnly     bool
	Coins          []selectOption
	DefaultCoin    bool
	SelfURL        string
	SettingsURL    string
	ThemeURL       string
	IntegrationURL string
}

type colourField struct{ Key, Label, Default, Value string }

// themeObject decodes a stored theme ({} when none or unreadable).
func themeObject(raw []byte) map[string]any {
	// Numbers stay as written (json.Number): the keys the form does not touch are saved again.
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	obj := map[string]any{}
	if err := d.Decode(&obj); err != nil || obj == nil {
		return map[string]any{}
	}
	return obj
}

// themeValues are the values of the known keys of obj, as the form shows them ("logo" is
// "logoUrl").
func themeValues(obj map[string]any) map[string]string {
	out := map[string]string{}
	for _, k := range themeKeys {
		out[k.Key], _ = obj[k.Key].(string)
	}
	out["fontFamily"], _ = obj["fontFamily"].(string)
	out["logoUrl"], _ = obj["logoUrl"].(string)
	if out["logoUrl"] == "" {
		out["logoUrl"], _ = obj["logo"].(string)
	}
	return out
}

// formThemeValues are the theme values of a form or query: the known keys only, trimmed.
func formThemeValues(get func(string) string) map[string]string {
	out := map[string]string{}
	for _, k := range themeKeys {
		out[k.Key] = strings.TrimSpace(get(k.Key))
	}
	out["fontFamily"] = strings.TrimSpace(get("fontFamily"))
	out["logoUrl"] = strings.TrimSpace(get("logoUrl"))
	return out
}

// previewQuery is the address of preview.css for the values v.
func previewQuery(g *gameRef, v map[string]string) string {
	q := url.Values{}
	for k, s := range v {
		if s != "" && k != "logoUrl" {
			q.Set(k, s)
		}
	}
	return storeURLOf(g) + "/preview.css" + encodeQuery(q)
}

func (h *Handler) storePage(r *http.Request, in console.Integration, values map[string]string, draft bool) storePage {
	g := gameOf(r)
	page := storePage{EnvName: envName(g), GameName: g.Name, Settings: in.Store, Font: values["fontFamily"], Logo: values["logoUrl"],
		Draft: draft, PreviewCSS: previewQuery(g, values), StoreURL: in.StoreURL, ServerOnly: in.ServerOnlyCoinMovements,
		Origins: strings.Join(in.AllowedOrigins.Of(g.Env), "\n"), DefaultCoin: in.TouchpointCoinID == nil,
		SelfURL: storeURLOf(g), SettingsURL: storeURLOf(g) + "/settings", ThemeURL: storeURLOf(g) + "/theme", IntegrationURL: storeURLOf(g) + "/integration"}
	for _, l := range landingPages {
		page.Landing = append(page.Landing, selectOption{Value: l.Value, Label: l.Label, Selected: l.Value == in.Store.DefaultLandingPage})
	}
	for _, k := range themeKeys {
		page.Colours = append(page.Colours, colourField{Key: k.Key, Label: k.Label, Default: k.Default, Value: values[k.Key]})
	}
	var other []string
	for k := range themeObject(in.Store.Theme) {
		if !slices.Contains([]string{"primaryColor", "backgroundColor", "textColor", "surfaceColor", "fontFamily", "logoUrl", "logo"}, k) {
			other = append(other, k)
		}
	}
	slices.Sort(other)
	page.OtherKeys = strings.Join(other, ", ")
	for _, c := range in.Coins {
		page.Coins = append(page.Coins, selectOption{Value: c.ID.String(), Label: c.Name,
			Selected: in.TouchpointCoinID != nil && *in.TouchpointCoinID == c.ID})
	}
	return page
}

// storeShow is GET …/store; with ?preview=1 and the theme form's values it previews them
// (nothing is saved).
func (h *Handler) storeShow(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	in, err := h.console.Integration(r.Context(), principal(r), g.ID)
	if err != nil {
		h.failOrMissing(w, r, err)
		return
	}
	q := r.URL.Query()
	if q.Get("preview") == "" {
		h.render(w, r, http.StatusOK, "store_show.html", "Store", h.storePage(r, in, themeValues(themeObject(in.Store.Theme)), false))
		return
	}
	values := formThemeValues(q.Get)
	page := h.storePage(r, in, values, true)
	if problem := themeProblem(values); problem != "" {
		h.renderProblem(w, r, http.StatusOK, "store_show.html", "Store", page, problem+" The preview leaves it out.")
		return
	}
	h.render(w, r, http.StatusOK, "store_show.html", "Store", page)
}

// themeProblem says which value of v the store would not apply, in words ("" when all would).
func themeProblem(v map[string]string) string {
	raw, _ := json.Marshal(v)
	t := players.ParseTheme(raw)
	applied := map[string]string{"primaryColor": t.Primary, "backgroundColor": t.Background, "textColor": t.Text, "surfaceColor": t.Surface}
	for _, k := range themeKeys {
		if v[k.Key] != "" && applied[k.Key] == "" {
			return k.Label + " is not a CSS colour such as #5b3df5 or rgb(91, 61, 245)."
		}
	}
	if v["fontFamily"] != "" && t.Font == "" {
		return "The font is a font family name: letters, digits, spaces, commas or hyphens, at most 80."
	}
	if v["logoUrl"] != "" && t.Logo == "" {
		return "The logo address is an https address."
	}
	return ""
}

// storeRefused renders the store page again after a refusal: the settings as saved, the theme
// as typed when it was the theme that was refused.
func (h *Handler) storeRefused(w http.ResponseWriter, r *http.Request, err error, status int, words string, typed map[string]string) {
	g := gameOf(r)
	in, ierr := h.console.Integration(r.Context(), principal(r), g.ID)
	if ierr != nil {
		h.failOrMissing(w, r, ierr)
		return
	}
	values, draft := typed, true
	if values == nil {
		values, draft = themeValues(themeObject(in.Store.Theme)), false
	}
	page := h.storePage(r, in, values, draft)
	if err != nil {
		h.refused(w, r, err, "store_show.html", "Store", page)
		return
	}
	h.renderProblem(w, r, status, "store_show.html", "Store", page, words)
}

// storeSettingsSave is POST …/store/settings: the switches and the landing page.
func (h *Handler) storeSettingsSave(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	if !parseForm(w, r) {
		h.storeRefused(w, r, nil, http.StatusBadRequest, "The form could not be read.", nil)
		return
	}
	rewards, gcommerce, landing := field(r, "rewardsEnabled") == "true", field(r, "gcommerceEnabled") == "true", field(r, "defaultLandingPage")
	if !slices.ContainsFunc(landingPages, func(o option) bool { return o.Value == landing }) {
		h.storeRefused(w, r, nil, http.StatusBadRequest, "Choose the page the store opens on from the list.", nil)
		return
	}
	ch := console.IntegrationChange{Store: players.SettingsChange{RewardsEnabled: &rewards, GcommerceEnabled: &gcommerce, DefaultLandingPage: &landing}}
	if _, err := h.console.SetIntegration(r.Context(), principal(r), g.ID, ch); err != nil {
		h.storeRefused(w, r, err, 0, "", nil)
		return
	}
	h.redirect(w, r, storeURLOf(g), "Store settings saved.")
}

// storeThemeSave is POST …/store/theme: the colours, font and logo replace those of the theme;
// its other keys stay. An empty field removes its key (the store's default applies).
func (h *Handler) storeThemeSave(w http.ResponseWriter, r *http.Request) {
	g, p := gameOf(r), principal(r)
	if !parseForm(w, r) {
		h.storeRefused(w, r, nil, http.StatusBadRequest, "The form could not be read.", nil)
		return
	}
	values := formThemeValues(r.PostForm.Get)
	in, err := h.console.Integration(r.Context(), p, g.ID)
	if err != nil {
		h.failOrMissing(w, r, err)
		return
	}
	obj := themeObject(in.Store.Theme)
	delete(obj, "logo") // logoUrl names the same value, and is the key the form writes
	for k, v := range values {
		if v == "" {
			delete(obj, k)
		} else {
			obj[k] = v
		}
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if _, err := h.console.SetIntegration(r.Context(), p, g.ID, console.IntegrationChange{Store: players.SettingsChange{Theme: raw}}); err != nil {
		h.storeRefused(w, r, err, 0, "", values)
		return
	}
	h.redirect(w, r, storeURLOf(g)+"#preview-h", "Store theme saved: players see it within a few seconds.")
}

// storeIntegrationSave is POST …/store/integration: the settings that differ from the saved
// ones are changed (each change is audited on its own).
func (h *Handler) storeIntegrationSave(w http.ResponseWriter, r *http.Request) {
	g, p := gameOf(r), principal(r)
	if !parseForm(w, r) {
		h.storeRefused(w, r, nil, http.StatusBadRequest, "The form could not be read.", nil)
		return
	}
	in, err := h.console.Integration(r.Context(), p, g.ID)
	if err != nil {
		h.failOrMissing(w, r, err)
		return
	}
	var ch console.IntegrationChange
	if u := field(r, "storeUrl"); u != in.StoreURL {
		ch.StoreURL = &u
	}
	origins := []string{}
	for _, line := range strings.FieldsFunc(r.PostForm.Get("allowedOrigins"), func(c rune) bool { return c == '\n' || c == '\r' || c == ',' || c == ' ' }) {
		origins = append(origins, line)
	}
	if !slices.Equal(origins, in.AllowedOrigins.Of(g.Env)) {
		if g.Env == studio.Live {
			ch.AllowedOriginsLive = &origins
		} else {
			ch.AllowedOriginsTest = &origins
		}
	}
	if on := field(r, "serverOnlyCoinMovements") == "true"; on != in.ServerOnlyCoinMovements {
		ch.ServerOnlyCoinMovements = &on
	}
	if c := field(r, "touchpointCoinId"); c != "" {
		id, err := uuid.Parse(c)
		if err != nil {
			h.storeRefused(w, r, nil, http.StatusBadRequest, "Choose the touchpoint coin from the list.", nil)
			return
		}
		if in.TouchpointCoinID == nil || *in.TouchpointCoinID != id {
			ch.TouchpointCoinID = &id
		}
	}
	if ch.StoreURL == nil && ch.AllowedOriginsLive == nil && ch.AllowedOriginsTest == nil && ch.ServerOnlyCoinMovements == nil && ch.TouchpointCoinID == nil {
		h.redirect(w, r, storeURLOf(g), "Nothing to save: the integration settings are as they were.")
		return
	}
	if _, err := h.console.SetIntegration(r.Context(), p, g.ID, ch); err != nil {
		h.storeRefused(w, r, err, 0, "", nil)
		return
	}
	h.redirect(w, r, storeURLOf(g), "Integration settings saved.")
}

// storePreviewCSS is GET …/store/preview.css?primaryColor=&backgroundColor=&textColor=&
// surfaceColor=&fontFamily=: the preview block's styles with those values, each applied only
// when the store would apply it.
//
// The preview is a block of the store page drawn as the store draws its pages, coloured by
// this stylesheet: the theme's values as custom properties scoped to the block, read from the
// query and checked as the store checks them (players.ParseTheme), so that no value can end
// a declaration. The console's CSP allows no inline style and the store may not be framed by
// the console, hence a stylesheet of our own rather than an iframe or a style attribute.
func (h *Handler) storePreviewCSS(w http.ResponseWriter, r *http.Request) {
	raw, _ := json.Marshal(formThemeValues(r.URL.Query().Get))
	t := players.ParseTheme(raw)
	css := ".store-preview{--sp-accent:#5b3df5;--sp-bg:#f6f6fb;--sp-fg:#16161d;--sp-surface:#fff;--sp-muted:#5f6170;" +
		"--sp-font:system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif}\n" +
		".store-preview{" + storepage.ThemeProperties(t, "--sp-") + "}\n" + previewRules
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write([]byte(css))
}

// previewRules draw the preview (and strip the frame of the page's fieldsets, which exist to
// disable a VIEWER's controls) as static/store.css of adapters/storepage draws the store: a
// 360 px web view with its header, tabs, cards and a button.
const previewRules = `fieldset.bare{border:0;padding:0;margin:0;min-width:0}
.store-preview{width:100%;max-width:360px;background:var(--sp-bg);color:var(--sp-fg);font:15px/1.45 var(--sp-font);border:1px solid #0003;border-radius:16px;overflow:hidden;margin:8px 0}
.store-preview .sp-top{display:flex;justify-content:space-between;align-items:center;padding:10px 14px;background:var(--sp-surface);border-bottom:1px solid #0001}
.store-preview .sp-logo{height:28px;max-width:50%}
.store-preview .sp-game{font-weight:600}
.store-preview .sp-tabs{display:flex;background:var(--sp-surface);border-bottom:1px solid #0001}
.store-preview .sp-tabs span{flex:1;padding:10px 4px;text-align:center;color:var(--sp-muted);font-size:.9rem}
.store-preview .sp-tabs .sp-current{color:var(--sp-accent);box-shadow:inset 0 -3px var(--sp-accent);font-weight:600}
.store-preview .sp-main{padding:10px 14px 16px}
.store-preview .sp-h{font-weight:600;margin:4px 0 8px}
.store-preview .sp-cards{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:10px}
.store-preview .sp-card{display:flex;flex-direction:column;background:var(--sp-surface);border-radius:14px;padding:8px;box-shadow:0 1px 3px #0002}
.store-preview .sp-img{display:block;aspect-ratio:16/10;border-radius:10px;background:#0000000a}
.store-preview .sp-name{font-weight:600;margin-top:6px}
.store-preview .sp-brand{color:var(--sp-muted);font-size:.85rem}
.store-preview .sp-price{font-weight:600;color:var(--sp-accent)}
.store-preview .sp-button{display:block;margin-top:14px;padding:10px;border-radius:10px;background:var(--sp-accent);color:#fff;text-align:center;font-weight:600}
`
