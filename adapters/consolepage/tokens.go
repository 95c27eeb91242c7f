package consolepage

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/members"
)

// tokensPage lists the studio's access tokens and has the form of a new one.
type tokensPage struct {
	Tokens []members.AccessToken
	Roles  []members.Role
	// Makers names each token's maker by member id.
	Makers map[uuid.UUID]string
	// Name, Role and Days are what the form had.
	Name string
	Role members.Role
	Days int
}

func (h *Handler) tokensPage(r *http.Request) (tokensPage, error) {
	p := principal(r)
	ts, err := h.members.ListTokens(r.Context(), p)
	if err != nil {
		return tokensPage{}, err
	}
	ms, err := h.members.List(r.Context(), p.StudioID)
	if err != nil {
		return tokensPage{}, err
	}
	makers := make(map[uuid.UUID]string, len(ms))
	for _, m := range ms {
		makers[m.ID] = m.Email
	}
	var rs []members.Role
	for _, role := range roles {
		if p.Role.AtLeast(role) {
			rs = append(rs, role)
		}
	}
	return tokensPage{Tokens: ts, Roles: rs, Makers: makers, Role: members.Viewer, Days: 90}, nil
}

// tokensShow lists the access tokens.
func (h *Handler) tokensShow(w http.ResponseWriter, r *http.Request) {
	page, err := h.tokensPage(r)
	if err != nil {
		h.failOrMissing(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "tokens.html", "Access tokens", page)
}

// tokenCreate makes an access token (name, role no higher than the maker's, 1 to 365 days)
// and shows its secret once.
func (h *Handler) tokenCreate(w http.ResponseWriter, r *http.Request) {
	page, err := h.tokensPage(r)
	if err != nil {
		h.failOrMissing(w, r, err)
		return
	}
	if !parseForm(w, r) {
		h.renderProblem(w, r, http.StatusBadRequest, "tokens.html", "Access tokens", page, "The form could not be read.")
		return
	}
	page.Name, page.Role = field(r, "name"), members.Role(field(r, "role"))
	days, ok := intField(r, "days", 0)
	page.Days = days
	if !ok {
		h.renderProblem(w, r, http.StatusBadRequest, "tokens.html", "Access tokens", page, "Days is a whole number from 1 to 365.")
		return
	}
	t, err := h.members.CreateToken(r.Context(), principal(r), page.Name, page.Role, days)
	if err != nil {
		h.refused(w, r, err, "tokens.html", "Access tokens", page)
		return
	}
	noStore(w)
	h.render(w, r, http.StatusOK, "secret.html", "New access token", secretPage{Heading: "New access token “" + t.Name + "”",
		Label: "Access token (" + roleName(t.Role) + ", until " + when(t.ExpiresAt) + ")", Value: t.Secret, ID: "new-token",
		Text: "Send it as Authorization: Bearer to the studio API.", Back: Path + "/tokens"})
}

// tokenRevoke revokes an access token: it stops working at once.
func (h *Handler) tokenRevoke(w http.ResponseWriter, r *http.Request) {
	id, err := uuid.Parse(chi.URLParam(r, "tokenID"))
	if err != nil {
		h.notFound(w, r)
		return
	}
	if err := h.members.RevokeToken(r.Context(), principal(r), id); err != nil {
		page, perr := h.tokensPage(r)
		if perr != nil {
			h.failOrMissing(w, r, perr)
			return
		}
		h.refused(w, r, err, "tokens.html", "Access tokens", page)
		return
	}
	h.redirect(w, r, Path+"/tokens", "The token is revoked.")
}
