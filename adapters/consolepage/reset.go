package consolepage

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// resetRequestShow asks for the email to send a reset link to.
func (h *Handler) resetRequestShow(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "reset_request.html", "Reset your password", struct{ Sent bool }{})
}

// resetRequest emails a reset link when the email is a member's. The page says the same
// whether it is or not.
func (h *Handler) resetRequest(w http.ResponseWriter, r *http.Request) {
	if !parseForm(w, r) {
		h.renderProblem(w, r, http.StatusBadRequest, "reset_request.html", "Reset your password", struct{ Sent bool }{}, "The form could not be read.")
		return
	}
	if err := h.members.RequestReset(r.Context(), field(r, "email")); err != nil {
		h.refused(w, r, err, "reset_request.html", "Reset your password", struct{ Sent bool }{})
		return
	}
	h.render(w, r, http.StatusOK, "reset_request.html", "Reset your password", struct{ Sent bool }{true})
}

// resetShow is /console/reset/{token}: the new password.
func (h *Handler) resetShow(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	h.render(w, r, http.StatusOK, "reset.html", "Choose a new password", struct{ Token string }{chi.URLParam(r, "token")})
}

// resetSave sets the new password; every session of the member ends.
func (h *Handler) resetSave(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	page := struct{ Token string }{chi.URLParam(r, "token")}
	if !parseForm(w, r) {
		h.renderProblem(w, r, http.StatusBadRequest, "reset.html", "Choose a new password", page, "The form could not be read.")
		return
	}
	password := r.PostForm.Get("password")
	if problem := passwordProblem(password, r.PostForm.Get("password2")); problem != "" {
		h.renderProblem(w, r, http.StatusBadRequest, "reset.html", "Choose a new password", page, problem)
		return
	}
	if err := h.members.ResetPassword(r.Context(), page.Token, password); err != nil {
		h.refused(w, r, err, "reset.html", "Choose a new password", page)
		return
	}
	h.clearCookie(w)
	h.redirect(w, r, Path+"/sign-in", "Your password is changed, and you are signed out everywhere. Sign in with the new one.")
}
