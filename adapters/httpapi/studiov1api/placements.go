package studiov1api

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/rewardsco/rewards/adapters/httpapi"
	tp "github.com/rewardsco/rewards/adapters/httpapi/touchpointsapi"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// PlacementsBody lists a game's placements of an environment.
type PlacementsBody struct {
	Placements []tp.PlacementBody `json:"placements" doc:"The placements, by screen and type"`
}

// PlacementChangeBody is a placement whose test configuration differs from the live one.
type PlacementChangeBody struct {
	Test   tp.PlacementBody `json:"test" doc:"The test placement, which promoting copies"`
	Live   tp.PlacementBody `json:"live" doc:"The live placement it replaces"`
	Fields []string         `json:"fields" doc:"What differs: screen, type, asset, rewardId, productId, rule, isActive"`
}

// DiffBody is what promoting the test placements to live changes.
type DiffBody struct {
	Added   []tp.PlacementBody    `json:"added" doc:"Test placements live does not have yet"`
	Changed []PlacementChangeBody `json:"changed" doc:"Placements whose test configuration differs from live's"`
	Removed []tp.PlacementBody    `json:"removed" doc:"Live placements test no longer has: promoting removes them"`
	Version string                `json:"version" doc:"Names the two sets compared: send it with the promote to copy only what was read" example:"3f2a9c"`
}

func toDiffBody(d touchpoints.Diff) DiffBody {
	b := DiffBody{Added: httpapi.Map(d.Added, tp.ToPlacementBody), Removed: httpapi.Map(d.Removed, tp.ToPlacementBody),
		Changed: make([]PlacementChangeBody, 0, len(d.Changed)), Version: d.Version}
	for _, c := range d.Changed {
		fields := c.Fields
		if fields == nil {
			fields = []string{}
		}
		b.Changed = append(b.Changed, PlacementChangeBody{Test: tp.ToPlacementBody(c.Test), Live: tp.ToPlacementBody(c.Live), Fields: fields})
	}
	return b
}

type createPlacementInput struct {
	PlacementsPath
	Body tp.PlacementFields `doc:"The placement"`
}

type putPlacementInput struct {
	PutPlacementPath
	Body tp.PlacementFields `doc:"The placement"`
}

type promoteInput struct {
	GamePath
	Body *struct {
		Version string `json:"version,omitempty" maxLength:"128" doc:"The version of the difference read (GET …/placements/promote): when the placements changed since, 409 PROMOTE_DIFF_CHANGED and nothing is copied. Left out: whatever test holds is copied"`
	} `required:"false"`
}

const placementRules = " `screen`: only `home` (400 UNKNOWN_SCREEN). `type`: product, coupon or gift-card; one placement per screen and type (409 PLACEMENT_CONFLICT). " +
	"`asset`: `{source: PRESET, presetId}` (a library frame) or `{source: UPLOAD, imageUrl, orientation, width, height}`. " +
	"`item`: `rewardId` (a COUPON for coupon placements, a GIFT_CARD for gift-card ones) or `productId` (product placements), and/or `rule {category?, brand?, sortBy?}` " +
	"whose best item stands in when there is no configured item or it is unavailable. `isActive` defaults to true. Only test placements are edited: live is 400 LIVE_PLACEMENTS_READ_ONLY " +
	"(live changes by promoting). 404 GAME_NOT_FOUND; bad input is 400 VALIDATION_FAILED and changes nothing."

func (a *api) registerPlacements() {
	g := a.group(tagPlacements)
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-list-placements", http.MethodGet, "/studio/v1/games/{gameId}/placements/{environment}",
		"A game's placements",
		"Every placement of the game in the environment: `{placements}`. 404 GAME_NOT_FOUND.",
		http.StatusNotFound), serve(a.listPlacements))
	huma.Register(a.s.StudioAPI, httpapi.WithStatus(http.StatusCreated, g.op(members.Developer, "studio-create-placement", http.MethodPost, "/studio/v1/games/{gameId}/placements/{environment}",
		"Create a test placement",
		"Creates a placement with a new id: what a screen of the game shows."+placementRules,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)), serveCreated(func(ctx context.Context, s scope, in *createPlacementInput) (tp.PlacementBody, bool, error) {
		return a.putPlacement(ctx, s, in.Body)
	}))
	huma.Register(a.s.StudioAPI, httpapi.AlsoAnswers(g.op(members.Developer, "studio-put-placement", http.MethodPut, "/studio/v1/games/{gameId}/placements/{environment}/{placementId}",
		"Create or replace a test placement",
		"Replaces the placement with the id (200), or creates it with that id (201)."+placementRules,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict), http.StatusCreated, "Created: the placement had no such id"),
		serveCreated(func(ctx context.Context, s scope, in *putPlacementInput) (tp.PlacementBody, bool, error) {
			return a.putPlacement(ctx, s, in.Body)
		}))
	huma.Register(a.s.StudioAPI, g.op(members.Developer, "studio-delete-placement", http.MethodDelete, "/studio/v1/games/{gameId}/placements/{environment}/{placementId}",
		"Delete a test placement",
		"Deletes a test placement; live loses it at the next promote. Live is 400 LIVE_PLACEMENTS_READ_ONLY. 404 GAME_NOT_FOUND, PLACEMENT_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound), serveNoBody(func(ctx context.Context, s scope, _ *placementPath) error {
		return a.console.DeletePlacement(ctx, s.p, s.game, s.env, s.id)
	}))
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-promote-difference", http.MethodGet, "/studio/v1/games/{gameId}/placements/promote",
		"The go-live difference",
		"What promoting the test placements to live would change: `{added, changed, removed, version}`. Nothing changes. 404 GAME_NOT_FOUND.",
		http.StatusNotFound), serve(func(ctx context.Context, s scope, _ *GamePath) (DiffBody, error) {
		d, err := a.console.PromoteDiff(ctx, s.p, s.game)
		return toDiffBody(d), err
	}))
	huma.Register(a.s.StudioAPI, g.op(members.Developer, "studio-promote", http.MethodPost, "/studio/v1/games/{gameId}/placements/promote",
		"Go live: copy the test placements to live",
		"The live placements become copies of the test placements (same ids), in one transaction; live placements not in test are removed. Answers the difference applied. With `version` (from the difference read), placements changed since are 409 PROMOTE_DIFF_CHANGED and nothing is copied. 404 GAME_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict), serve(a.promote))
}

func (a *api) listPlacements(ctx context.Context, s scope, _ *GameEnvPath) (PlacementsBody, error) {
	list, err := a.console.Placements(ctx, s.p, s.game, s.env)
	return PlacementsBody{Placements: httpapi.Map(list, tp.ToPlacementBody)}, err
}

// putPlacement creates the placement s.id (a new id when it is uuid.Nil) or replaces it; true
// when it created it.
func (a *api) putPlacement(ctx context.Context, s scope, b tp.PlacementFields) (tp.PlacementBody, bool, error) {
	p, err := tp.ToCorePlacement(s.id, b)
	if err != nil {
		return tp.PlacementBody{}, false, err
	}
	p, created, err := a.console.PutPlacement(ctx, s.p, s.game, s.env, p)
	return tp.ToPlacementBody(p), created, err
}

func (a *api) promote(ctx context.Context, s scope, in *promoteInput) (DiffBody, error) {
	version := ""
	if in.Body != nil {
		version = in.Body.Version
	}
	d, err := a.console.Promote(ctx, s.p, s.game, version)
	return toDiffBody(d), err
}
