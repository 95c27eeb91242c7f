package consolepage

import (
	"bytes"
	"encoding/base64"
	"html/template"
	"image/png"
	"net/http"

	"github.com/pquerna/otp"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/members"
)

// accountPage is the member's own page: TOTP, sessions, and (for an owner) whether the studio
// requires TOTP.
type accountPage struct {
	TOTPRequired bool
}

// account is /console/account.
func (h *Handler) account(w http.ResponseWriter, r *http.Request) {
	h.accountRender(w, r, http.StatusOK, "")
}

func (h *Handler) accountRender(w http.ResponseWriter, r *http.Request, status int, problem string) {
	req, err := h.members.TOTPRequired(r.Context(), principal(r).StudioID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.renderProblem(w, r, status, "account.html", "Your account", accountPage{TOTPRequired: req}, problem)
}

// totpPage is the TOTP setup: before it begins (Setup nil), and with the new secret.
type totpPage struct {
	Setup *members.TOTPSetup
	// QR is the otpauth address as a PNG data: URI (empty when it could not be drawn).
	QR template.URL
}

// totpShow is /console/totp: start setting up TOTP.
func (h *Handler) totpShow(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "totp.html", "Two-factor sign-in", totpPage{})
}

// totpBegin makes a new TOTP secret and shows it (with its QR code) once, with the form that
// confirms it with a code.
func (h *Handler) totpBegin(w http.ResponseWriter, r *http.Request) {
	s, err := h.members.BeginTOTP(r.Context(), principal(r))
	if err != nil {
		h.refused(w, r, err, "totp.html", "Two-factor sign-in", totpPage{})
		return
	}
	noStore(w)
	h.render(w, r, http.StatusOK, "totp.html", "Two-factor sign-in", totpPage{Setup: &s, QR: qrDataURI(s.URL)})
}

// totpConfirm turns TOTP on with a code of the new secret.
func (h *Handler) totpConfirm(w http.ResponseWriter, r *http.Request) {
	if !parseForm(w, r) {
		h.renderProblem(w, r, http.StatusBadRequest, "totp.html", "Two-factor sign-in", totpPage{}, "The form could not be read.")
		return
	}
	if err := h.members.ConfirmTOTP(r.Context(), principal(r), field(r, "code")); err != nil {
		// The secret is in the authenticator app already: the page asks for another code.
		h.refused(w, r, err, "totp.html", "Two-factor sign-in", totpPage{Setup: &members.TOTPSetup{}})
		return
	}
	h.redirect(w, r, Path+"/account", "Two-factor sign-in is on: sign-in now asks for a code from your app.")
}

// totpDisable turns TOTP off with a current code.
func (h *Handler) totpDisable(w http.ResponseWriter, r *http.Request) {
	h.accountChange(w, r, func() (string, error) {
		return "Two-factor sign-in is off.", h.members.DisableTOTP(r.Context(), principal(r), field(r, "code"))
	})
}

// requireTOTP turns the studio's TOTP requirement on or off (OWNER).
func (h *Handler) requireTOTP(w http.ResponseWriter, r *http.Request) {
	h.accountChange(w, r, func() (string, error) {
		on := r.PostForm.Get("required") == "true"
		done := "Members no longer need two-factor sign-in."
		if on {
			done = "Every member now needs two-factor sign-in: those without it set it up when they next open the console."
		}
		return done, h.members.RequireTOTP(r.Context(), principal(r), on)
	})
}

// accountChange reads the form of a POST to the account page and makes its change, which
// returns what it did in words: back to the account page, which says so, or the page again
// with the reason core refused it.
func (h *Handler) accountChange(w http.ResponseWriter, r *http.Request, change func() (string, error)) {
	if !parseForm(w, r) {
		h.accountRender(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	done, err := change()
	if err != nil {
		if e, ok := errsAs(err); ok {
			h.accountRender(w, r, httpapi.StatusOf(e.Kind), h.words(r, e))
			return
		}
		h.fail(w, r, err)
		return
	}
	h.redirect(w, r, Path+"/account", done)
}

// qrDataURI draws an otpauth address as a QR code, a PNG data: URI the CSP allows (img-src
// data:); "" when it cannot.
func qrDataURI(otpauth string) template.URL {
	k, err := otp.NewKeyFromURL(otpauth)
	if err != nil {
		return ""
	}
	img, err := k.Image(200, 200)
	if err != nil {
		return ""
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return ""
	}
	// A data: URI we made from our own PNG bytes: safe to put in src.
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()))
}
