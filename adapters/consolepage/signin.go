package consolepage

import (
	"context"
	"net/http"
	"strings"

	"github.com/rewardsco/rewards/core/members"
)

// signInPage is the sign-in form, with what was typed (never the password).
type signInPage struct {
	Email string
	Next  string
}

// signInShow is the sign-in page.
func (h *Handler) signInShow(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "signin.html", "Sign in", signInPage{Next: safeNext(r.URL.Query().Get("next"))})
}

// signInCheck signs in with email, password and (when the member has TOTP) a code: the cookie
// gets the members session's token and the member goes on to next or the games. Every refusal
// (unknown email, wrong password, wrong or missing code) is the same page with 401, as
// members.Service makes it; the sixth failure in 15 minutes is 429 with Retry-After.
func (h *Handler) signInCheck(w http.ResponseWriter, r *http.Request) {
	if !parseForm(w, r) {
		h.renderProblem(w, r, http.StatusBadRequest, "signin.html", "Sign in", signInPage{}, "The form could not be read.")
		return
	}
	page := signInPage{Email: field(r, "email"), Next: safeNext(r.PostForm.Get("next"))}
	s, err := h.members.SignIn(r.Context(), page.Email, r.PostForm.Get("password"), field(r, "otp"))
	if err != nil {
		h.refused(w, r, err, "signin.html", "Sign in", page)
		return
	}
	h.setCookie(w, s.Token, s.ExpiresAt)
	to := page.Next
	if to == "" {
		to = Path + "/games"
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// signOut ends this session.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request) {
	h.endSessions(w, r, h.members.SignOut, "You are signed out.")
}

// signOutEverywhere ends every session of the member, this one included.
func (h *Handler) signOutEverywhere(w http.ResponseWriter, r *http.Request) {
	h.endSessions(w, r, h.members.SignOutEverywhere, "You are signed out on every device.")
}

// endSessions ends the sessions end ends (this one among them), clears the cookie and leads to
// the sign-in page, which says done.
func (h *Handler) endSessions(w http.ResponseWriter, r *http.Request, end func(context.Context, members.Principal) error, done string) {
	if err := end(r.Context(), principal(r)); err != nil {
		h.fail(w, r, err)
		return
	}
	h.clearCookie(w)
	h.redirect(w, r, Path+"/sign-in", done)
}

// safeNext keeps a page to go on to after signing in only when it is a console page of this
// site: never another site's address.
func safeNext(next string) string {
	if !strings.HasPrefix(next, Path+"/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") ||
		strings.HasPrefix(next, Path+"/sign-in") {
		return ""
	}
	return next
}
