package consolepage

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// routes lists every page, relative to Path. Every POST passes the cross-origin check first: a
// form sent from another site is 403 and changes nothing.
func (h *Handler) routes() http.Handler {
	r := chi.NewRouter()
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(h.crossOrigin))
	r.Use(cop.Handler, middleware.GetHead)
	r.NotFound(h.notFound)
	r.MethodNotAllowed(h.methodNotAllowed)

	r.Get("/assets/{name}", assets.ServeHTTP)
	r.Get("/", h.home)
	r.Get("/sign-in", h.signInShow)
	r.Post("/sign-in", h.signInCheck)
	r.Get("/invite/{token}", h.inviteShow)
	r.Post("/invite/{token}", h.inviteAccept)
	r.Get("/reset", h.resetRequestShow)
	r.Post("/reset", h.resetRequest)
	r.Get("/reset/{token}", h.resetShow)
	r.Post("/reset/{token}", h.resetSave)

	// Signed in: the session cookie names a live members session.
	r.Group(func(r chi.Router) {
		r.Use(h.signedIn)
		r.Post("/sign-out", h.signOut)
		r.Post("/sign-out-everywhere", h.signOutEverywhere)
		r.Get("/account", h.account)
		r.Get("/totp", h.totpShow)
		r.Post("/totp/begin", h.totpBegin)
		r.Post("/totp/confirm", h.totpConfirm)
		r.Post("/totp/disable", h.totpDisable)

		// Everything else waits until the member has set up TOTP when the studio requires it.
		r.Group(func(r chi.Router) {
			r.Use(h.totpSetUp)
			r.Post("/account/require-totp", h.requireTOTP)
			r.Get("/games", h.games)
			r.Get("/members", h.membersShow)
			r.Post("/members", h.memberInvite)
			r.Post("/members/{memberID}/role", h.memberRole)
			r.Post("/members/{memberID}/remove", h.memberRemove)
			r.Get("/tokens", h.tokensShow)
			r.Post("/tokens", h.tokenCreate)
			r.Post("/tokens/{tokenID}/revoke", h.tokenRevoke)
			r.Get("/audit", h.auditShow)
			r.Route("/games/{gameID}", h.gameRoutes)
		})
	})
	return r
}

// gameRoutes lists the pages of one game of the member's studio (another studio's is 404).
func (h *Handler) gameRoutes(r chi.Router) {
	r.Use(h.withGame)
	r.Get("/", h.gameHome)
	r.Get("/promote", h.promoteShow)
	r.Post("/promote", h.promote)
	// One environment of the game: test or live.
	r.Route("/{env}", func(r chi.Router) {
		r.Use(h.withEnv)
		h.integrationRoutes(r)
		h.operationRoutes(r)
	})
}

// integrationRoutes lists what a studio sets up in one environment: keys and secrets,
// placements and webhooks.
func (h *Handler) integrationRoutes(r chi.Router) {
	r.Get("/", h.gameShow)
	r.Get("/keys/rotate", h.rotateKeyShow)
	r.Post("/keys/rotate", h.rotateKey)
	r.Post("/server-secret", h.serverSecret)
	r.Post("/partner-secret", h.partnerSecret)
	r.Get("/partner", h.partnerShow)
	r.Get("/placements", h.placementsShow)
	r.Post("/placements", h.placementSave)
	r.Get("/placements/{placementID}", h.placementEdit)
	r.Post("/placements/{placementID}", h.placementSave)
	r.Post("/placements/{placementID}/delete", h.placementDelete)

	// Webhooks (webhooks.go): the studio's configurations of the environment with
	// their stats; one configuration (change, switch on or off, test, rotate its
	// secret, recover its failed deliveries, delete); the deliveries filtered by
	// status, with resend. A studio's webhooks serve all its games: the game in
	// the address is where the console was opened from, and core/console checks
	// it is the studio's.
	r.Get("/webhooks", h.webhooksShow)
	r.Post("/webhooks", h.webhookCreate)
	r.Get("/webhooks/deliveries", h.deliveriesShow)
	r.Post("/webhooks/deliveries/{deliveryID}/resend", h.deliveryResend)
	r.Get("/webhooks/{configID}", h.webhookShow)
	r.Post("/webhooks/{configID}", h.webhookUpdate)
	r.Post("/webhooks/{configID}/active", h.webhookActive)
	r.Post("/webhooks/{configID}/test", h.webhookTest)
	r.Post("/webhooks/{configID}/rotate-secret", h.webhookRotate)
	r.Post("/webhooks/{configID}/recover", h.webhookRecover)
	r.Post("/webhooks/{configID}/delete", h.webhookDelete)
}

// operationRoutes lists what a studio runs in one environment: its players, their orders and
// the store.
func (h *Handler) operationRoutes(r chi.Router) {
	// Players (players.go): the lookup by the studio's uuid, the player's id or
	// its phone; one player with its balances, transactions and newest orders;
	// block and unblock, each confirmed by a ticked box.
	r.Get("/players", h.playersShow)
	r.Get("/players/{playerID}", h.playerShow)
	r.Post("/players/{playerID}/block", h.playerBlock)
	r.Post("/players/{playerID}/unblock", h.playerUnblock)

	// Orders (orders.go): the game's orders filtered by status, player and time,
	// newest first, and one order with its history. Codes and PINs are the
	// player's: core/console never hands them out, and the pages say only that
	// they were delivered.
	r.Get("/orders", h.ordersShow)
	r.Get("/orders/{orderID}", h.orderShow)

	// The store (storesettings.go): its settings (switches and landing page), its
	// theme with a preview, and the integration settings the store and the API
	// read (the store's address, the allowed browser origins of the environment,
	// server-only coin movements, the touchpoint coin).
	r.Get("/store", h.storeShow)
	r.Get("/store/preview.css", h.storePreviewCSS)
	r.Post("/store/settings", h.storeSettingsSave)
	r.Post("/store/theme", h.storeThemeSave)
	r.Post("/store/integration", h.storeIntegrationSave)
}
