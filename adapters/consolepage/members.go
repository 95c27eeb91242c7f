package consolepage

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/members"
)

// membersPage lists the studio's members; an owner gets the forms (invite, role, remove).
type membersPage struct {
	Members []members.Member
	Roles   []members.Role
	// Invited is the invitation just made: its link, shown to the owner as it is emailed.
	Invited *members.Invitation
	// Email and Role are what the invite form had.
	Email string
	Role  members.Role
}

var roles = []members.Role{members.Owner, members.Developer, members.Viewer}

var membersForm = formPage[membersPage]{name: "members.html", title: "Members", load: (*Handler).membersPage}

func (h *Handler) membersPage(r *http.Request) (membersPage, error) {
	ms, err := h.members.List(r.Context(), principal(r).StudioID)
	return membersPage{Members: ms, Roles: roles, Role: members.Developer}, err
}

// membersShow lists the members.
func (h *Handler) membersShow(w http.ResponseWriter, r *http.Request) { membersForm.show(h, w, r) }

// memberInvite invites a member with a role (OWNER only): the link is emailed, and shown here.
func (h *Handler) memberInvite(w http.ResponseWriter, r *http.Request) {
	page, ok := membersForm.open(h, w, r)
	if !ok {
		return
	}
	page.Email, page.Role = field(r, "email"), members.Role(field(r, "role"))
	p := principal(r)
	inv, err := h.members.Invite(r.Context(), p.StudioID, &p, page.Email, page.Role)
	if err != nil {
		membersForm.refused(h, w, r, err, page)
		return
	}
	if page, err = h.membersPage(r); err != nil {
		h.fail(w, r, err)
		return
	}
	page.Invited = &inv
	noStore(w)
	membersForm.render(h, w, r, http.StatusOK, page)
}

// memberRole changes a member's role (OWNER only; the last owner stays one).
func (h *Handler) memberRole(w http.ResponseWriter, r *http.Request) {
	h.memberChange(w, r, func(id uuid.UUID) (string, error) {
		m, err := h.members.ChangeRole(r.Context(), principal(r), id, members.Role(field(r, "role")))
		return m.Email + " is now " + roleName(m.Role) + ".", err
	})
}

// memberRemove removes a member (OWNER only; not the last owner): their sessions and tokens
// end at once.
func (h *Handler) memberRemove(w http.ResponseWriter, r *http.Request) {
	h.memberChange(w, r, func(id uuid.UUID) (string, error) {
		return "The member is removed.", h.members.Remove(r.Context(), principal(r), id)
	})
}

func (h *Handler) memberChange(w http.ResponseWriter, r *http.Request, change func(uuid.UUID) (string, error)) {
	id, ok := h.idParam(w, r, "memberID")
	if !ok {
		return
	}
	if !h.readForm(w, r, "Members") {
		return
	}
	done, err := change(id)
	if err != nil {
		membersForm.refusedAfresh(h, w, r, err)
		return
	}
	h.redirect(w, r, Path+"/members", done)
}
