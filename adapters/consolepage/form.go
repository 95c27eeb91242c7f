package consolepage

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
)

// maxForm bounds a form's body.
const maxForm = 64 << 10

// parseForm reads a POST's form, bounded; false when it cannot be read (the page answers 400).
func parseForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	return r.ParseForm() == nil
}

// readForm is parseForm for a form whose page is not at hand: one that cannot be read is
// answered with a 400 page headed heading.
func (h *Handler) readForm(w http.ResponseWriter, r *http.Request, heading string) bool {
	if !parseForm(w, r) {
		h.message(w, r, http.StatusBadRequest, message{Heading: heading, Text: "The form could not be read."})
		return false
	}
	return true
}

// field is a form field, trimmed.
func field(r *http.Request, name string) string { return strings.TrimSpace(r.PostForm.Get(name)) }

// intField is a whole-number form field; ok false when it is present and not one.
func intField(r *http.Request, name string, fallback int) (int, bool) {
	s := field(r, name)
	if s == "" {
		return fallback, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// dateParam is a query parameter holding a date (2006-01-02, the value of <input type=date>)
// or a time (2006-01-02T15:04, <input type=datetime-local>), in UTC; nil when empty, ok false
// when it is neither.
func dateParam(r *http.Request, name string, endOfDay bool) (*time.Time, bool) {
	s := strings.TrimSpace(r.URL.Query().Get(name))
	if s == "" {
		return nil, true
	}
	if t, err := time.Parse("2006-01-02T15:04", s); err == nil {
		return &t, true
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return nil, false
	}
	if endOfDay {
		t = t.Add(24 * time.Hour)
	}
	return &t, true
}

func itoa(n int) string { return strconv.Itoa(n) }

// idParam is the uuid the route's parameter name holds; an address whose id is not one names
// nothing, and is answered 404 (ok false).
func (h *Handler) idParam(w http.ResponseWriter, r *http.Request, name string) (uuid.UUID, bool) {
	id, err := uuid.Parse(chi.URLParam(r, name))
	if err != nil {
		h.notFound(w, r)
		return uuid.Nil, false
	}
	return id, true
}

// formPage is a page that holds forms: its template, its title and how its data T is read.
// A form on it that core refuses shows the page again, with the reason above it.
type formPage[T any] struct {
	name, title string
	load        func(h *Handler, r *http.Request) (T, error)
}

// show answers a GET of the page.
func (f formPage[T]) show(h *Handler, w http.ResponseWriter, r *http.Request) {
	page, err := f.load(h, r)
	if err != nil {
		h.failOrMissing(w, r, err)
		return
	}
	f.render(h, w, r, http.StatusOK, page)
}

// open reads the page and the form of a POST to it; ok false when it answered already: the
// page could not be read, or the form (400).
func (f formPage[T]) open(h *Handler, w http.ResponseWriter, r *http.Request) (T, bool) {
	page, err := f.load(h, r)
	if err != nil {
		h.failOrMissing(w, r, err)
		return page, false
	}
	if !parseForm(w, r) {
		f.problem(h, w, r, http.StatusBadRequest, page, "The form could not be read.")
		return page, false
	}
	return page, true
}

func (f formPage[T]) render(h *Handler, w http.ResponseWriter, r *http.Request, status int, page T) {
	h.render(w, r, status, f.name, f.title, page)
}

// problem shows page with status and what is wrong with the form in words.
func (f formPage[T]) problem(h *Handler, w http.ResponseWriter, r *http.Request, status int, page T, words string) {
	h.renderProblem(w, r, status, f.name, f.title, page, words)
}

// refused shows page after core refused the form's change with err (see Handler.refused).
func (f formPage[T]) refused(h *Handler, w http.ResponseWriter, r *http.Request, err error, page T) {
	h.refused(w, r, err, f.name, f.title, page)
}

// refusedAfresh is refused for a form that did not read the page first: it reads it now.
func (f formPage[T]) refusedAfresh(h *Handler, w http.ResponseWriter, r *http.Request, err error) {
	page, perr := f.load(h, r)
	if perr != nil {
		h.failOrMissing(w, r, perr)
		return
	}
	f.refused(h, w, r, err, page)
}
