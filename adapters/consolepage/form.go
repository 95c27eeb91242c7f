package consolepage

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxForm bounds a form's body.
const maxForm = 64 << 10

// parseForm reads a POST's form, bounded; false when it cannot be read (the page answers 400).
func parseForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	return r.ParseForm() == nil
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
