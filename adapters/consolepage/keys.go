package consolepage

import (
	"net/http"
	"strconv"

	"github.com/rewardsco/rewards/core/console"
)

// keysPage is a game's environment: its masked key, its secrets' dates and its partner terms.
type keysPage struct {
	Creds console.CredentialsView
	// HasKey: the environment has a key (Creds is set).
	HasKey bool
}

func keysOf(g *gameRef) keysPage {
	for _, c := range g.View.Credentials {
		if c.Environment == g.Env {
			return keysPage{Creds: c, HasKey: true}
		}
	}
	return keysPage{}
}

// gameShow is /console/games/{gameID}/{env}: keys, server secret and partner secret.
func (h *Handler) gameShow(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "game.html", gameOf(r).Name, keysOf(gameOf(r)))
}

// rotateKeyShow asks to confirm a key rotation: the current key stops working at once.
func (h *Handler) rotateKeyShow(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "rotate.html", "Rotate the API key", keysOf(gameOf(r)))
}

// secretPage shows a secret just made, once.
type secretPage struct {
	Heading, Label, Value, Text string
	// ID is the element id of the value: new-key, new-secret or new-token.
	ID string
	// Back is where Done leads on a page of no game.
	Back string
}

// rotateKey makes the environment's new API key and shows it once; the old one answers 401
// from now on.
func (h *Handler) rotateKey(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	key, err := h.console.RotateKey(r.Context(), principal(r), g.ID, g.Env)
	if err != nil {
		h.refused(w, r, err, "rotate.html", "Rotate the API key", keysOf(g))
		return
	}
	noStore(w)
	h.render(w, r, http.StatusOK, "secret.html", "New API key", secretPage{Heading: "New " + string(g.Env) + " API key",
		Label: "API key (" + string(g.Env) + ")", Value: key, ID: "new-key",
		Text: "The previous key no longer works: put this one in your game's builds and servers."})
}

// serverSecret issues the environment's server secret and shows it once.
func (h *Handler) serverSecret(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	secret, err := h.console.IssueServerSecret(r.Context(), principal(r), g.ID, g.Env)
	if err != nil {
		h.refused(w, r, err, "game.html", g.Name, keysOf(g))
		return
	}
	noStore(w)
	h.render(w, r, http.StatusOK, "secret.html", "New server secret", secretPage{Heading: "New " + string(g.Env) + " server secret",
		Label: "Server secret (" + string(g.Env) + ")", Value: secret, ID: "new-secret",
		Text: "Your game's servers send it with coin movements when the game reserves them for servers. The previous secret no longer works."})
}

// partnerSecret issues the environment's partner client secret and shows it once.
func (h *Handler) partnerSecret(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	secret, err := h.console.IssuePartnerSecret(r.Context(), principal(r), g.ID, g.Env)
	if err != nil {
		h.refused(w, r, err, "game.html", g.Name, keysOf(g))
		return
	}
	noStore(w)
	h.render(w, r, http.StatusOK, "secret.html", "New partner secret", secretPage{Heading: "New " + string(g.Env) + " partner secret",
		Label: "Partner client secret (" + string(g.Env) + ")", Value: secret, ID: "new-secret",
		Text: "Your partner integration signs in with the game's id and this secret. The previous secret no longer works."})
}

// walletPage is the partner wallet of an environment, one page of its ledger.
type walletPage struct {
	Wallet     console.Wallet
	Offset     int
	Prev, Next string
}

// partnerShow is the environment's partner wallet: its balance and ledger (read only: funding
// is the operator's).
func (h *Handler) partnerShow(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	const limit = 50
	offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	if offset < 0 {
		offset = 0
	}
	wal, err := h.console.PartnerWallet(r.Context(), principal(r), g.ID, g.Env, limit, offset)
	if err != nil {
		h.failOrMissing(w, r, err)
		return
	}
	page := walletPage{Wallet: wal, Offset: offset}
	base := Path + "/games/" + g.ID.String() + "/" + string(g.Env) + "/partner"
	if offset > 0 {
		page.Prev = base + "?offset=" + strconv.Itoa(max(0, offset-limit))
	}
	if int64(offset+limit) < wal.Total {
		page.Next = base + "?offset=" + strconv.Itoa(offset+limit)
	}
	h.render(w, r, http.StatusOK, "partner.html", "Partner wallet", page)
}
