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

			// One game of the member's studio (another studio's is 404).
			r.Route("/games/{gameID}", func(r chi.Router) {
				r.Use(h.withGame)
				r.Get("/", h.gameHome)
				r.Get("/promote", h.promoteShow)
				r.Post("/promote", h.promote)
				// One environment of the game: test or live.
				r.Route("/{env}", func(r chi.Router) {
					r.Use(h.withEnv)
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
					h.webhookRoutes(r)
					h.playerRoutes(r)
					h.orderRoutes(r)
					h.storeRoutes(r)
				})
			})
		})
	})
	return r
}
