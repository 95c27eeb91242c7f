package consolepage

import (
	"context"
	"net/http"
	"strconv"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/studio"
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
	env := string(gameOf(r).Env)
	h.issue(w, r, h.console.RotateKey, "rotate.html", "Rotate the API key", "New API key", secretPage{Heading: "New " + env + " API key",
		Label: "API key (" + env + ")", ID: "new-key",
		Text: "The previous key no longer works: put this one in your game's builds and servers."})
}

// serverSecret issues the environment's server secret and shows it once.
func (h *Handler) serverSecret(w http.ResponseWriter, r *http.Request) {
	h.issueSecret(w, r, h.console.IssueServerSecret, "server secret", "Server secret",
		"Your game's servers send it with coin movements when the game reserves them for servers. The previous secret no longer works.")
}

// partnerSecret issues the environment's partner client secret and shows it once.
func (h *Handler) partnerSecret(w http.ResponseWriter, r *http.Request) {
	h.issueSecret(w, r, h.console.IssuePartnerSecret, "partner secret", "Partner client secret",
		"Your partner integration signs in with the game's id and this secret. The previous secret no longer works.")
}

// issueSecret is issue for a secret of the game page: what names it ("server secret"), label
// heads its value and text says what it is for.
func (h *Handler) issueSecret(w http.ResponseWriter, r *http.Request, mint minter, what, label, text string) {
	g := gameOf(r)
	env := string(g.Env)
	h.issue(w, r, mint, "game.html", g.Name, "New "+what, secretPage{Heading: "New " + env + " " + what,
		Label: label + " (" + env + ")", ID: "new-secret", Text: text})
}

// minter makes an environment's new key or secret (core/console).
type minter func(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment) (string, error)

// issue makes the environment's new key or secret with mint and shows it in page, titled title,
// once and never kept by a cache; a refusal shows the page of the form (name, formTitle) again.
func (h *Handler) issue(w http.ResponseWriter, r *http.Request, mint minter, name, formTitle, title string, page secretPage) {
	g := gameOf(r)
	secret, err := mint(r.Context(), principal(r), g.ID, g.Env)
	if err != nil {
		h.refused(w, r, err, name, formTitle, keysOf(g))
		return
	}
	page.Value = secret
	noStore(w)
	h.render(w, r, http.StatusOK, "secret.html", title, page)
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
