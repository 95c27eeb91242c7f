// Package consolepage serves the studio console under Path: the pages where a studio's members
// sign in, run their games' integration (keys, secrets, partner, placements and their go-live,
// webhooks, players, orders, store settings), manage members and access tokens, and read the
// audit log.
//
// It calls core/console, the role-checked façade the studio API calls too, and core/members for
// everything about people and sessions: it holds no rule of its own about who may do what. The
// console's session is a members session: the cookie holds the session token that
// members.Service.SignIn made, and every request is authenticated again with
// members.Service.Authenticate, so a session that sign-out everywhere, a reset or a removal ended
// is dead at once.
//
// One small file per page action (signin.go, invite.go, reset.go, totp.go, games.go, keys.go,
// placements.go, members.go, tokens.go, audit.go; webhooks.go, players.go, orders.go and
// storesettings.go for the integration's operations), forms parsed with the helpers of form.go,
// the session in session.go, the security headers in headers.go, the cross-origin check of every
// POST in routes.go (http.CrossOriginProtection), the embedded assets in render.go and every
// route in routes.go. The pages are html/template, which escapes every value it prints. Every
// page works without JavaScript; static/console.js only adds copy buttons.
//
// A form that changes something answers 303 to a page (with a flash message) when it succeeds,
// and renders its page again with the reason in words and a 4xx status when it is refused. A
// form that makes a secret (a key, a server or partner secret, an access token) answers the page
// that shows it, once, with Cache-Control: no-store: the secret is never kept to be shown again.
//
// Caches: none. Sessions are cached, for at most a second, by members.Service.Authenticate.
package consolepage

import (
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/rewardsco/rewards/adapters/webpage"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/members"
)

// Path is where the console is served.
const Path = "/console"

// Config is what the console needs.
type Config struct {
	// Console is the role-checked façade over the studio's games and their integration.
	Console *console.Service
	// Members signs people in and out and manages members, tokens and TOTP.
	Members *members.Service
	// SecureCookies marks cookies Secure: everywhere but a plain-http local run.
	SecureCookies bool
	// PublicURL is the service's public address (REWARDS_PUBLIC_URL), shown in the pages that
	// name an address of the service.
	PublicURL string
	Log       *slog.Logger
}

// Handler serves the console. Use New.
type Handler struct {
	cfg     Config
	console *console.Service
	members *members.Service
	log     *slog.Logger
	cookies webpage.Cookies
	// pages are the routes relative to Path; handler is pages mounted at Path.
	pages   http.Handler
	handler http.Handler
}

// New returns the console of cfg.
func New(cfg Config) *Handler {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{cfg: cfg, console: cfg.Console, members: cfg.Members, log: cfg.Log,
		cookies: webpage.Cookies{Path: Path, Secure: cfg.SecureCookies}}
	h.pages = h.routes()
	root := chi.NewRouter()
	root.Mount(Path, h.pages)
	h.handler = root
	return h
}

// Routes mounts the console at Path on r.
func (h *Handler) Routes(r chi.Router) { r.Mount(Path, h.pages) }

// ServeHTTP serves every page under Path, for a mount without chi.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.handler.ServeHTTP(w, r) }
