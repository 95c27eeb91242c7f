package consolepage

import (
	"context"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/studio"
)

// gameRef is the game of a per-game page, as withGame and withEnv found it.
type gameRef struct {
	ID   uuid.UUID
	Name string
	// Env is the page's environment ("" on the pages of the whole game, such as go-live).
	Env studio.Environment
	// View is the game with its masked keys, as core/console shows it.
	View console.GameView
	// Section names the game's tab (keys, placements, webhooks, players, orders, store,
	// promote); Rest is the path after the environment, so that the environment switch stays
	// on the same tab.
	Section string
	Rest    string
	// Whole: the page is of the whole game (go-live), not of one environment; the tabs then
	// lead to the test environment's pages.
	Whole bool
}

type gameKey struct{}

// gameOf returns the game of a per-game page (nil elsewhere).
func gameOf(r *http.Request) *gameRef {
	g, _ := r.Context().Value(gameKey{}).(*gameRef)
	return g
}

// withGame loads the game {gameID} through core/console, which answers another studio's game
// as not found: 404 here.
func (h *Handler) withGame(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := uuid.Parse(chi.URLParam(r, "gameID"))
		if err != nil {
			h.notFound(w, r)
			return
		}
		v, err := h.console.Game(r.Context(), principal(r), id)
		if err != nil {
			h.failOrMissing(w, r, err)
			return
		}
		g := &gameRef{ID: id, Name: v.Game.Name, View: v, Env: studio.Test, Section: sectionOf(r.URL.Path), Whole: true}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), gameKey{}, g)))
	})
}

// withEnv reads the page's environment {env}: test or live, else 404.
func (h *Handler) withEnv(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		env := studio.Environment(chi.URLParam(r, "env"))
		g := gameOf(r)
		if !env.Valid() || g == nil {
			h.notFound(w, r)
			return
		}
		c := *g
		c.Env, c.Whole = env, false
		prefix := Path + "/games/" + g.ID.String() + "/" + string(env)
		c.Rest = strings.TrimPrefix(r.URL.Path, prefix)
		// The switch leads to the other environment's list, not to one item of this one.
		if parts := strings.Split(strings.Trim(c.Rest, "/"), "/"); len(parts) > 1 {
			c.Rest = "/" + parts[0]
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), gameKey{}, &c)))
	})
}

// sectionOf names the game tab of a path /console/games/{id}/{env}/{section}/….
func sectionOf(path string) string {
	parts := strings.Split(strings.Trim(strings.TrimPrefix(path, Path+"/games/"), "/"), "/")
	switch {
	case len(parts) >= 2 && parts[1] == "promote":
		return "promote"
	case len(parts) >= 3:
		switch parts[2] {
		case "keys", "server-secret", "partner-secret", "partner":
			return "keys"
		}
		return parts[2]
	}
	return "keys"
}

// navOf names the console's section of a path.
func navOf(r *http.Request) string {
	rest := strings.Trim(strings.TrimPrefix(r.URL.Path, Path), "/")
	first, _, _ := strings.Cut(rest, "/")
	switch first {
	case "members", "tokens", "audit":
		return first
	case "account", "totp":
		return "account"
	}
	return "games"
}

// home is /console: the games, or the sign-in page (signedIn is not on this route, so it looks
// at the cookie itself).
func (h *Handler) home(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(cookieName); err == nil && c.Value != "" {
		http.Redirect(w, r, Path+"/games", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, Path+"/sign-in", http.StatusSeeOther)
}

// games lists the studio's games.
func (h *Handler) games(w http.ResponseWriter, r *http.Request) {
	gs, err := h.console.Games(r.Context(), principal(r))
	if err != nil {
		h.failOrMissing(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "games.html", "Games", gs)
}

// gameHome is /console/games/{gameID}: its test environment.
func (h *Handler) gameHome(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, Path+"/games/"+gameOf(r).ID.String()+"/test", http.StatusSeeOther)
}

// failOrMissing answers an error of a read: a coded refusal as its page (404 for another
// studio's), anything else a 500.
func (h *Handler) failOrMissing(w http.ResponseWriter, r *http.Request, err error) {
	h.refused(w, r, err, "message.html", "Not available", message{Heading: "Not available",
		Text: "This page cannot be shown.", Link: Path + "/games", LinkText: "Your games"})
}
