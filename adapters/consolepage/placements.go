package consolepage

import (
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// placementsPage lists an environment's placements; in test it has the form of a new
// placement, or of the one being edited (Editing).
type placementsPage struct {
	Placements []touchpoints.Placement
	// Editable: the environment is test (live changes only by the go-live).
	Editable bool
	Form     placementForm
	Editing  bool
	// Options of the form's selects.
	Screens, Types, Sources, Orientations, Sorts []string
}

// placementForm is the placement form as typed.
type placementForm struct {
	ID                                 string
	Screen, Type                       string
	Source, PresetID, ImageURL, Orient string
	Width, Height                      int
	RewardID, ProductID                string
	RuleCategory, RuleBrand, RuleSort  string
	Active                             bool
}

func formOf(p touchpoints.Placement) placementForm {
	f := placementForm{ID: p.ID.String(), Screen: p.Screen, Type: string(p.Type), Source: p.Asset.Source, PresetID: p.Asset.PresetID,
		ImageURL: p.Asset.ImageURL, Orient: p.Asset.Orientation, Width: p.Asset.Width, Height: p.Asset.Height, ProductID: p.ProductID,
		Active: p.IsActive}
	if p.RewardID != nil {
		f.RewardID = p.RewardID.String()
	}
	if p.Rule != nil {
		f.RuleCategory, f.RuleBrand, f.RuleSort = p.Rule.Category, p.Rule.Brand, p.Rule.SortBy
	}
	return f
}

var placementsForm = formPage[placementsPage]{name: "placements.html", title: "Placements", load: (*Handler).placementsPage}

func (h *Handler) placementsPage(r *http.Request) (placementsPage, error) {
	g := gameOf(r)
	ps, err := h.console.Placements(r.Context(), principal(r), g.ID, g.Env)
	if err != nil {
		return placementsPage{}, err
	}
	return placementsPage{Placements: ps, Editable: g.Env == studio.Test, Form: placementForm{Screen: "home", Source: touchpoints.SourcePreset, Active: true},
		Screens: touchpoints.Screens, Types: []string{string(touchpoints.TypeProduct), string(touchpoints.TypeCoupon), string(touchpoints.TypeGiftCard)},
		Sources: []string{touchpoints.SourcePreset, touchpoints.SourceUpload}, Orientations: []string{"", touchpoints.Portrait, touchpoints.Landscape},
		Sorts: append([]string{""}, touchpoints.SortOrders...)}, nil
}

// placementsShow lists the environment's placements, with the new placement form in test.
func (h *Handler) placementsShow(w http.ResponseWriter, r *http.Request) {
	placementsForm.show(h, w, r)
}

// placementEdit is the placements page with one placement's form.
func (h *Handler) placementEdit(w http.ResponseWriter, r *http.Request) {
	page, err := h.placementsPage(r)
	if err != nil {
		h.failOrMissing(w, r, err)
		return
	}
	id, _ := uuid.Parse(chi.URLParam(r, "placementID"))
	i := slices.IndexFunc(page.Placements, func(p touchpoints.Placement) bool { return p.ID == id })
	if i < 0 {
		h.notFound(w, r)
		return
	}
	page.Form, page.Editing = formOf(page.Placements[i]), true
	h.render(w, r, http.StatusOK, "placements.html", "Edit placement", page)
}

// placementSave creates (POST …/placements) or replaces (POST …/placements/{placementID}) a
// test placement.
func (h *Handler) placementSave(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	page, ok := placementsForm.open(h, w, r)
	if !ok {
		return
	}
	var id uuid.UUID
	if chi.URLParam(r, "placementID") != "" {
		if id, ok = h.idParam(w, r, "placementID"); !ok {
			return
		}
		page.Editing = true
	}
	f, pl, problem := parsePlacement(r)
	f.ID = id.String()
	page.Form = f
	if problem != "" {
		placementsForm.problem(h, w, r, http.StatusBadRequest, page, problem)
		return
	}
	pl.ID = id
	saved, created, err := h.console.PutPlacement(r.Context(), principal(r), g.ID, g.Env, pl)
	if err != nil {
		placementsForm.refused(h, w, r, err, page)
		return
	}
	done := "Placement saved."
	if created {
		done = "Placement created."
	}
	h.redirect(w, r, Path+"/games/"+g.ID.String()+"/"+string(g.Env)+"/placements#p-"+saved.ID.String(), done)
}

// placementDelete deletes a test placement.
func (h *Handler) placementDelete(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	id, ok := h.idParam(w, r, "placementID")
	if !ok {
		return
	}
	if err := h.console.DeletePlacement(r.Context(), principal(r), g.ID, g.Env, id); err != nil {
		placementsForm.refusedAfresh(h, w, r, err)
		return
	}
	h.redirect(w, r, Path+"/games/"+g.ID.String()+"/"+string(g.Env)+"/placements", "Placement deleted.")
}

// parsePlacement reads the placement form: what was typed, the placement, and what is wrong
// with the form in words (core checks the rest).
func parsePlacement(r *http.Request) (placementForm, touchpoints.Placement, string) {
	f := placementForm{Screen: field(r, "screen"), Type: field(r, "type"), Source: field(r, "source"), PresetID: field(r, "presetId"),
		ImageURL: field(r, "imageUrl"), Orient: field(r, "orientation"), RewardID: field(r, "rewardId"), ProductID: field(r, "productId"),
		RuleCategory: field(r, "ruleCategory"), RuleBrand: field(r, "ruleBrand"), RuleSort: field(r, "ruleSort"), Active: r.PostForm.Get("isActive") != ""}
	var ok1, ok2 bool
	f.Width, ok1 = intField(r, "width", 0)
	f.Height, ok2 = intField(r, "height", 0)
	if !ok1 || !ok2 {
		return f, touchpoints.Placement{}, "Width and height are whole numbers of pixels."
	}
	p := touchpoints.Placement{Screen: f.Screen, Type: touchpoints.ItemType(f.Type), ProductID: f.ProductID, IsActive: f.Active,
		Asset: touchpoints.Asset{Source: f.Source, PresetID: f.PresetID, ImageURL: f.ImageURL, Orientation: f.Orient, Width: f.Width, Height: f.Height}}
	if f.RewardID != "" {
		id, err := uuid.Parse(f.RewardID)
		if err != nil {
			return f, p, "The reward id is a UUID, like 3f2a1b9c-0000-4000-8000-000000000000."
		}
		p.RewardID = &id
	}
	if f.RuleCategory != "" || f.RuleBrand != "" || f.RuleSort != "" {
		p.Rule = &touchpoints.Rule{Category: f.RuleCategory, Brand: f.RuleBrand, SortBy: f.RuleSort}
	}
	return f, p, ""
}

// promotePage is the go-live difference: what promoting would add, change and remove in live.
type promotePage struct {
	Diff touchpoints.Diff
}

// promoteShow shows the difference test → live and, for a DEVELOPER or OWNER, the confirm.
func (h *Handler) promoteShow(w http.ResponseWriter, r *http.Request) {
	d, err := h.console.PromoteDiff(r.Context(), principal(r), gameOf(r).ID)
	if err != nil {
		h.failOrMissing(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "promote.html", "Go live", promotePage{Diff: d})
}

// promote copies the test placements to live, as the difference confirmed (its version): when
// they changed since, the new difference is shown again with 409.
func (h *Handler) promote(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	if !h.readForm(w, r, "Go live") {
		return
	}
	d, err := h.console.Promote(r.Context(), principal(r), g.ID, r.PostForm.Get("version"))
	if err != nil {
		if errs.KindOf(err) == errs.Internal {
			h.fail(w, r, err)
			return
		}
		cur, derr := h.console.PromoteDiff(r.Context(), principal(r), g.ID)
		if derr != nil {
			h.failOrMissing(w, r, derr)
			return
		}
		h.refused(w, r, err, "promote.html", "Go live", promotePage{Diff: cur})
		return
	}
	h.redirect(w, r, Path+"/games/"+g.ID.String()+"/live/placements", promoted(d))
}

func promoted(d touchpoints.Diff) string {
	return "Live now has the test placements: " + itoa(len(d.Added)) + " added, " + itoa(len(d.Changed)) + " changed, " +
		itoa(len(d.Removed)) + " removed."
}
