package consolepage

import (
	"embed"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/adapters/webpage"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/members"
)

//go:embed templates static
var files embed.FS

// assets are the embedded static files under content-hashed names ("console.3f2a1b9c4d5e.css").
var assets = webpage.Load(files, "static", Path+"/assets/")

var pages = webpage.Parse(files, assets, template.FuncMap{
	"when":   when,
	"filter": newFilter,
	"gamePath": func(g *gameRef, env string) string {
		if g == nil {
			return Path + "/games"
		}
		return Path + "/games/" + g.ID.String() + "/" + env
	},
})

// filter is a select of a list's filter (template "filter"): its options, after "Any" (no
// filter), with the one selected.
type filter struct {
	ID, Label, Name string
	Options         []string
	Selected        string
}

func newFilter(id, label, name string, options []string, selected string) filter {
	return filter{ID: id, Label: label, Name: name, Options: options, Selected: selected}
}

// view is what every page template gets: the frame (who is signed in, the game and environment
// of a per-game page, a flash message, a refusal) and the page's own data in Page.
type view struct {
	Title string
	// Signed: a member is signed in; Me is the member and Role the session's role.
	Signed bool
	Me     members.Member
	Role   members.Role
	// CanChange: the role may change the studio's integration (DEVELOPER or OWNER); IsOwner:
	// it may manage members. Pages hide their change forms without it (core/console refuses
	// them all the same).
	CanChange bool
	IsOwner   bool
	// Nav names the current section: games, members, tokens, audit, account.
	Nav string
	// Game is the game of a per-game page, with its environment (nil elsewhere).
	Game *gameRef
	// Flash is what the last form did (after its 303); Problem why this one was refused.
	Flash   string
	Problem string
	Page    any
}

// render writes the page template name with status: the frame is read from r (its session, its
// game, the flash cookie), page is the page's own data.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name, title string, page any) {
	h.renderProblem(w, r, status, name, title, page, "")
}

// renderProblem is render with a refusal in words shown above the page.
func (h *Handler) renderProblem(w http.ResponseWriter, r *http.Request, status int, name, title string, page any, problem string) {
	v := view{Title: title, Page: page, Problem: problem, Game: gameOf(r), Nav: navOf(r)}
	if s := sessionOf(r); s.token != "" {
		v.Signed, v.Me, v.Role = true, s.P.Member, s.P.Role
		v.CanChange = s.P.Role.AtLeast(members.Developer)
		v.IsOwner = s.P.Role.AtLeast(members.Owner)
	}
	if c, err := r.Cookie(flashCookie); err == nil {
		v.Flash, _ = url.QueryUnescape(c.Value)
		h.cookies.Clear(w, flashCookie)
	}
	headers(w)
	if err := webpage.Write(w, status, pages, name, v); err != nil {
		h.log.ErrorContext(r.Context(), "console page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}

// refused renders a page again after a change core refused: a coded refusal with its status
// (4xx) and its reason in words above the page; any other error is fail's 500 page. Use it as
//
//	if err != nil { h.refused(w, r, err, "placements.html", "Placements", data); return }
func (h *Handler) refused(w http.ResponseWriter, r *http.Request, err error, name, title string, page any) {
	e, ok := errs.As(err)
	if !ok || e.Kind == errs.Internal || e.Kind == errs.Unavailable || e.Kind == errs.Upstream {
		h.fail(w, r, err)
		return
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
	h.renderProblem(w, r, httpapi.StatusOf(e.Kind), name, title, page, h.words(r, e))
}

// words says a refusal to a person.
func (h *Handler) words(r *http.Request, e *errs.Error) string {
	switch e.Code {
	case members.ErrRoleForbidden.Code:
		role := principal(r).Role
		if role.AtLeast(members.Developer) {
			return "Your role (" + roleName(role) + ") may not do this: ask an owner. Nothing was changed."
		}
		return "Your role (" + roleName(role) + ") lets you read this page but not change it. Nothing was changed."
	case members.ErrTOTPSetupRequired.Code:
		return "Your studio requires a second factor: set up TOTP first."
	case members.ErrSignInFailed.Code:
		return "The email, password or code is not right."
	case members.ErrTooManyAttempts.Code:
		wait := "a few minutes"
		if e.RetryAfter > 0 {
			wait = "1 minute"
			if m := int((e.RetryAfter + time.Minute - 1) / time.Minute); m > 1 {
				wait = strconv.Itoa(m) + " minutes"
			}
		}
		return "Too many failed sign-ins for this email. Try again in " + wait + "."
	case members.ErrLastOwner.Code:
		return "The studio must keep an owner: make someone else an owner first."
	case members.ErrLinkInvalid.Code:
		return "This link is not valid any more: it was used already or it expired. Ask for a new one."
	case members.ErrTOTPInvalid.Code:
		return "That code is not right. Enter the current 6-digit code from your authenticator app."
	}
	w := e.Message
	if w != "" {
		w = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.TrimSuffix(w, ".") + "."
}

// roleName is a role as a person reads it: Owner, Developer, Viewer.
func roleName(r members.Role) string {
	s := strings.ToLower(string(r))
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// message renders a page that only says something: a heading and a sentence.
type message struct{ Heading, Text, Link, LinkText string }

func (h *Handler) message(w http.ResponseWriter, r *http.Request, status int, m message) {
	h.render(w, r, status, "message.html", m.Heading, m)
}

// fail answers a failure of ours: a 500 page that says nothing more; the log has the rest.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errs.KindOf(err) == errs.Unavailable {
		w.Header().Set("Retry-After", "1")
		h.message(w, r, http.StatusServiceUnavailable, message{Heading: "The console is busy", Text: "Please try again in a moment."})
		return
	}
	h.log.ErrorContext(r.Context(), "console page failed", "path", r.URL.Path, "err", err)
	h.message(w, r, http.StatusInternalServerError, message{Heading: "Something went wrong", Text: "Please try again later."})
}

// notFound answers an address that names nothing (or another studio's game, member, token).
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	h.message(w, r, http.StatusNotFound, message{Heading: "Not found", Text: "There is nothing here, or it belongs to another studio.",
		Link: Path + "/games", LinkText: "Your games"})
}

func (h *Handler) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	h.message(w, r, http.StatusMethodNotAllowed, message{Heading: "Not allowed", Text: "This address does not take that kind of request."})
}

// crossOrigin answers a POST from another site: 403, and nothing done.
func (h *Handler) crossOrigin(w http.ResponseWriter, r *http.Request) {
	h.message(w, r, http.StatusForbidden, message{Heading: "Not allowed", Text: "This form was sent from another site, so nothing was done."})
}

// flashCookie carries what a form did to the page its 303 leads to (never a secret).
const flashCookie = "rewards_console_flash"

// redirect answers 303 to to, with flash shown on that page (when not empty).
func (h *Handler) redirect(w http.ResponseWriter, r *http.Request, to, flash string) {
	if flash != "" {
		h.cookies.Set(w, flashCookie, url.QueryEscape(flash), time.Minute)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// when is a time as the pages show it: UTC, to the minute.
func when(t any) string {
	switch v := t.(type) {
	case time.Time:
		if v.IsZero() {
			return ""
		}
		return v.UTC().Format("2006-01-02 15:04 UTC")
	case *time.Time:
		if v == nil {
			return ""
		}
		return v.UTC().Format("2006-01-02 15:04 UTC")
	}
	return ""
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

func errsAs(err error) (*errs.Error, bool) {
	e, ok := errs.As(err)
	if !ok || e.Kind == errs.Internal || e.Kind == errs.Unavailable || e.Kind == errs.Upstream {
		return nil, false
	}
	return e, true
}
