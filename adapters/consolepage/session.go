package consolepage

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/members"
)

// cookieName is the console session's cookie. It holds the members session's token, which only
// members.Service can check (it keeps the token's SHA-256, not the token).
const cookieName = "rewards_console"

// session is a signed-in request: who it is.
type session struct {
	P     members.Principal
	token string
}

type sessionKey struct{}

// principal returns the signed-in member of a request that passed signedIn.
func principal(r *http.Request) members.Principal { return sessionOf(r).P }

func sessionOf(r *http.Request) *session {
	s, _ := r.Context().Value(sessionKey{}).(*session)
	if s == nil {
		return &session{}
	}
	return s
}

// signedIn lets through a request whose cookie names a live members session, with the session
// and its audit actor on the context. Any other answers 303 to the sign-in page (and clears a
// dead cookie).
func (h *Handler) signedIn(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(cookieName)
		if err != nil || c.Value == "" {
			h.toSignIn(w, r)
			return
		}
		p, err := h.members.Authenticate(r.Context(), c.Value)
		if err == nil && p.SessionID == nil {
			// An access token is for the studio API, never a console cookie.
			err = members.ErrUnauthenticated
		}
		if errors.Is(err, members.ErrUnauthenticated) {
			h.clearCookie(w)
			h.toSignIn(w, r)
			return
		}
		if err != nil {
			h.fail(w, r, err)
			return
		}
		ctx := context.WithValue(r.Context(), sessionKey{}, &session{P: p, token: c.Value})
		ctx = audit.WithActor(ctx, p.Actor(clientIP(r), r.UserAgent()))
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// totpSetUp sends a member who must set up TOTP (the studio requires it) to its setup page
// before any other page.
func (h *Handler) totpSetUp(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if principal(r).MustSetUpTOTP {
			h.redirect(w, r, Path+"/totp", "Your studio requires a second factor: set up TOTP to continue.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// toSignIn answers 303 to the sign-in page, which comes back to a GET's page after signing in.
func (h *Handler) toSignIn(w http.ResponseWriter, r *http.Request) {
	to := Path + "/sign-in"
	if r.Method == http.MethodGet && r.URL.Path != Path && r.URL.Path != Path+"/" {
		to += "?next=" + urlQueryEscape(r.URL.RequestURI())
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func (h *Handler) setCookie(w http.ResponseWriter, token string, expires time.Time) {
	h.cookies.Set(w, cookieName, token, time.Until(expires))
}

func (h *Handler) clearCookie(w http.ResponseWriter) { h.cookies.Clear(w, cookieName) }

// clientIP is the address the request came from, as the audit log records it.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
