package consolepage

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// invitePage is the form that accepts an invitation, with the name typed.
type invitePage struct {
	Token string
	Name  string
}

// inviteShow is /console/invite/{token}: name and password. The link is checked when the form
// is sent (it works once).
func (h *Handler) inviteShow(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	h.render(w, r, http.StatusOK, "invite.html", "Join your studio", invitePage{Token: chi.URLParam(r, "token")})
}

// inviteAccept accepts the invitation with a name and a password, then signs the new member in.
func (h *Handler) inviteAccept(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	page := invitePage{Token: chi.URLParam(r, "token")}
	if !parseForm(w, r) {
		h.renderProblem(w, r, http.StatusBadRequest, "invite.html", "Join your studio", page, "The form could not be read.")
		return
	}
	page.Name = field(r, "name")
	password := r.PostForm.Get("password")
	if problem := passwordProblem(password, r.PostForm.Get("password2")); problem != "" {
		h.renderProblem(w, r, http.StatusBadRequest, "invite.html", "Join your studio", page, problem)
		return
	}
	m, err := h.members.AcceptInvite(r.Context(), page.Token, page.Name, password)
	if err != nil {
		h.refused(w, r, err, "invite.html", "Join your studio", page)
		return
	}
	s, err := h.members.SignIn(r.Context(), m.Email, password, "")
	if err != nil {
		h.redirect(w, r, Path+"/sign-in", "Welcome! Sign in with your email and new password.")
		return
	}
	h.setCookie(w, s.Token, s.ExpiresAt)
	h.redirect(w, r, Path+"/games", "Welcome to your studio's console.")
}

// passwordProblem checks what a person can be told before the form goes to core: that both
// fields match (core checks the length and everything else).
func passwordProblem(password, again string) string {
	if password != again {
		return "The two passwords are not the same."
	}
	return ""
}
