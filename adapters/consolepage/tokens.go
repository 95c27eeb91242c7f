package consolepage

import (
	"net/http"

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

var tokensForm = formPage[tokensPage]{name: "tokens.html", title: "Access tokens", load: (*Handler).tokensPage}

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
func (h *Handler) tokensShow(w http.ResponseWriter, r *http.Request) { tokensForm.show(h, w, r) }

// tokenCreate makes an access token (name, role no higher than the maker's, 1 to 365 days)
// and shows its secret once.
func (h *Handler) tokenCreate(w http.ResponseWriter, r *http.Request) {
	page, ok := tokensForm.open(h, w, r)
	if !ok {
		return
	}
	page.Name, page.Role = field(r, "name"), members.Role(field(r, "role"))
	days, ok := intField(r, "days", 0)
	page.Days = days
	if !ok {
		tokensForm.problem(h, w, r, http.StatusBadRequest, page, "Days is a whole number from 1 to 365.")
		return
	}
	t, err := h.members.CreateToken(r.Context(), principal(r), page.Name, page.Role, days)
	if err != nil {
		tokensForm.refused(h, w, r, err, page)
		return
	}
	noStore(w)
	h.render(w, r, http.StatusOK, "secret.html", "New access token", secretPage{Heading: "New access token “" + t.Name + "”",
		Label: "Access token (" + roleName(t.Role) + ", until " + when(t.ExpiresAt) + ")", Value: t.Secret, ID: "new-token",
		Text: "Send it as Authorization: Bearer to the studio API.", Back: Path + "/tokens"})
}

// tokenRevoke revokes an access token: it stops working at once.
func (h *Handler) tokenRevoke(w http.ResponseWriter, r *http.Request) {
	id, ok := h.idParam(w, r, "tokenID")
	if !ok {
		return
	}
	if err := h.members.RevokeToken(r.Context(), principal(r), id); err != nil {
		tokensForm.refusedAfresh(h, w, r, err)
		return
	}
	h.redirect(w, r, Path+"/tokens", "The token is revoked.")
}
