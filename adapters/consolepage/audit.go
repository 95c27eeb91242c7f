package consolepage

import (
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/members"
)

// auditPage is a page of the audit log with its filters as typed.
type auditPage struct {
	Entries               []audit.Entry
	Members               []members.Member
	From, To, Member, Act string
	// Next continues the listing past the last entry shown.
	Next string
}

// auditPageSize is how many entries a page shows.
const auditPageSize = 100

// auditShow is the audit log, newest first, filtered by from and to (dates, UTC; to is
// inclusive), member and action.
func (h *Handler) auditShow(w http.ResponseWriter, r *http.Request) {
	p := principal(r)
	q := r.URL.Query()
	page := auditPage{From: q.Get("from"), To: q.Get("to"), Member: q.Get("member"), Act: strings.TrimSpace(q.Get("action"))}
	ms, err := h.members.List(r.Context(), p.StudioID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	page.Members = ms
	f := audit.Filter{StudioID: p.StudioID, Action: page.Act, Limit: auditPageSize}
	var ok bool
	from, ok1 := dateParam(r, "from", false)
	to, ok2 := dateParam(r, "to", true)
	f.From, f.To, ok = from, to, ok1 && ok2
	if !ok {
		h.renderProblem(w, r, http.StatusBadRequest, "audit.html", "Audit log", page, "Dates are written 2026-01-31.")
		return
	}
	if page.Member != "" {
		id, err := uuid.Parse(page.Member)
		if err != nil {
			h.renderProblem(w, r, http.StatusBadRequest, "audit.html", "Audit log", page, "Choose a member from the list.")
			return
		}
		f.MemberID = &id
	}
	if b := q.Get("before"); b != "" {
		id, err := uuid.Parse(b)
		if err != nil {
			h.renderProblem(w, r, http.StatusBadRequest, "audit.html", "Audit log", page, "That page of the log does not exist.")
			return
		}
		f.Before = &id
	}
	es, err := h.console.Audit(r.Context(), p, f)
	if err != nil {
		h.refused(w, r, err, "audit.html", "Audit log", page)
		return
	}
	page.Entries = es
	if len(es) == auditPageSize {
		next := r.URL.Query()
		next.Set("before", es[len(es)-1].ID.String())
		page.Next = Path + "/audit?" + next.Encode()
	}
	h.render(w, r, http.StatusOK, "audit.html", "Audit log", page)
}
