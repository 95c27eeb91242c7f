package studiov1api

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	tp "github.com/rewardsco/rewards/adapters/httpapi/touchpointsapi"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// toPlacementBody is a placement in the shape of the operator API's.
func toPlacementBody(p touchpoints.Placement) tp.PlacementBody {
	b := tp.PlacementBody{ID: p.ID.String(), GameID: p.GameID.String(), Environment: string(p.Environment), Screen: p.Screen,
		Type: string(p.Type), IsActive: p.IsActive, UpdatedAt: p.UpdatedAt.UTC(),
		Asset: tp.PlacementAssetBody{Source: p.Asset.Source, PresetID: p.Asset.PresetID, ImageURL: p.Asset.ImageURL,
			Orientation: p.Asset.Orientation, Width: p.Asset.Width, Height: p.Asset.Height},
		Item: tp.PlacementItemBody{ProductID: p.ProductID}}
	if p.RewardID != nil {
		b.Item.RewardID = p.RewardID.String()
	}
	if p.Rule != nil {
		r := tp.RuleBody(*p.Rule)
		b.Item.Rule = &r
	}
	return b
}

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
	b := DiffBody{Added: httpapi.Map(d.Added, toPlacementBody), Removed: httpapi.Map(d.Removed, toPlacementBody),
		Changed: make([]PlacementChangeBody, 0, len(d.Changed)), Version: d.Version}
	for _, c := range d.Changed {
		fields := c.Fields
		if fields == nil {
			fields = []string{}
		}
		b.Changed = append(b.Changed, PlacementChangeBody{Test: toPlacementBody(c.Test), Live: toPlacementBody(c.Live), Fields: fields})
	}
	return b
}

type placementsOutput struct{ Body PlacementsBody }

// placementFields are what a placement is made of.
type placementFields struct {
	Screen   string                `json:"screen" maxLength:"64" doc:"Screen; only home" example:"home"`
	Type     string                `json:"type" enum:"product,coupon,gift-card" doc:"Kind of offer"`
	Asset    tp.PlacementAssetBody `json:"asset"`
	Item     tp.PlacementItemBody  `json:"item"`
	IsActive *bool                 `json:"isActive,omitempty" doc:"Default true"`
}

type createPlacementInput struct {
	GameID      string          `path:"gameId" maxLength:"64" doc:"A game of the studio (another studio's game is 404 GAME_NOT_FOUND, as an unknown id)"`
	Environment string          `path:"environment" enum:"live,test" doc:"The environment: only test is edited (live is 400 LIVE_PLACEMENTS_READ_ONLY)"`
	Body        placementFields `doc:"The placement"`
}

type putPlacementInput struct {
	GameID      string          `path:"gameId" maxLength:"64" doc:"A game of the studio (another studio's game is 404 GAME_NOT_FOUND, as an unknown id)"`
	Environment string          `path:"environment" enum:"live,test" doc:"The environment: only test is edited (live is 400 LIVE_PLACEMENTS_READ_ONLY)"`
	PlacementID string          `path:"placementId" maxLength:"64" doc:"Placement id, a UUID (404 PLACEMENT_NOT_FOUND otherwise)"`
	Body        placementFields `doc:"The placement"`
}

type placementPath struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio (another studio's game is 404 GAME_NOT_FOUND, as an unknown id)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: only test is edited (live is 400 LIVE_PLACEMENTS_READ_ONLY)"`
	PlacementID string `path:"placementId" maxLength:"64" doc:"Placement id (404 PLACEMENT_NOT_FOUND when the game has none with it)"`
}

type placementOutput struct {
	Status int
	Body   tp.PlacementBody
}

type diffOutput struct{ Body DiffBody }

type promoteInput struct {
	GameID string `path:"gameId" maxLength:"64" doc:"A game of the studio (another studio's game is 404 GAME_NOT_FOUND, as an unknown id)"`
	Body   *struct {
		Version string `json:"version,omitempty" maxLength:"128" doc:"The version of the difference read (GET …/placements/promote): when the placements changed since, 409 PROMOTE_DIFF_CHANGED and nothing is copied. Left out: whatever test holds is copied"`
	} `required:"false"`
}

const placementRules = " `screen`: only `home` (400 UNKNOWN_SCREEN). `type`: product, coupon or gift-card; one placement per screen and type (409 PLACEMENT_CONFLICT). " +
	"`asset`: `{source: PRESET, presetId}` (a library frame) or `{source: UPLOAD, imageUrl, orientation, width, height}`. " +
	"`item`: `rewardId` (a COUPON for coupon placements, a GIFT_CARD for gift-card ones) or `productId` (product placements), and/or `rule {category?, brand?, sortBy?}` " +
	"whose best item stands in when there is no configured item or it is unavailable. `isActive` defaults to true. Only test placements are edited: live is 400 LIVE_PLACEMENTS_READ_ONLY " +
	"(live changes by promoting). 404 GAME_NOT_FOUND; bad input is 400 VALIDATION_FAILED and changes nothing."

func (a *api) registerPlacements() {
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID: "studio-list-placements",
		Method:      http.MethodGet,
		Path:        "/studio/v1/games/{gameId}/placements/{environment}",
		Summary:     "A game's placements",
		Description: "Every placement of the game in the environment: `{placements}`. 404 GAME_NOT_FOUND.",
		Errors:      []int{http.StatusNotFound},
	}, tagPlacements, members.Viewer), a.listPlacements)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID:   "studio-create-placement",
		Method:        http.MethodPost,
		Path:          "/studio/v1/games/{gameId}/placements/{environment}",
		Summary:       "Create a test placement",
		Description:   "Creates a placement with a new id: what a screen of the game shows." + placementRules,
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict},
	}, tagPlacements, members.Developer), a.createPlacement)
	huma.Register(a.s.StudioAPI, httpapi.AlsoAnswers(a.op(huma.Operation{
		OperationID: "studio-put-placement",
		Method:      http.MethodPut,
		Path:        "/studio/v1/games/{gameId}/placements/{environment}/{placementId}",
		Summary:     "Create or replace a test placement",
		Description: "Replaces the placement with the id (200), or creates it with that id (201)." + placementRules,
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict},
	}, tagPlacements, members.Developer), http.StatusCreated, "Created: the placement had no such id"), a.putPlacement)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID:   "studio-delete-placement",
		Method:        http.MethodDelete,
		Path:          "/studio/v1/games/{gameId}/placements/{environment}/{placementId}",
		Summary:       "Delete a test placement",
		Description:   "Deletes a test placement; live loses it at the next promote. Live is 400 LIVE_PLACEMENTS_READ_ONLY. 404 GAME_NOT_FOUND, PLACEMENT_NOT_FOUND.",
		DefaultStatus: http.StatusNoContent,
		Errors:        []int{http.StatusBadRequest, http.StatusNotFound},
	}, tagPlacements, members.Developer), a.deletePlacement)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID: "studio-promote-difference",
		Method:      http.MethodGet,
		Path:        "/studio/v1/games/{gameId}/placements/promote",
		Summary:     "The go-live difference",
		Description: "What promoting the test placements to live would change: `{added, changed, removed, version}`. Nothing changes. 404 GAME_NOT_FOUND.",
		Errors:      []int{http.StatusNotFound},
	}, tagPlacements, members.Viewer), a.promoteDiff)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID: "studio-promote",
		Method:      http.MethodPost,
		Path:        "/studio/v1/games/{gameId}/placements/promote",
		Summary:     "Go live: copy the test placements to live",
		Description: "The live placements become copies of the test placements (same ids), in one transaction; live placements not in test are removed. Answers the difference applied. With `version` (from the difference read), placements changed since are 409 PROMOTE_DIFF_CHANGED and nothing is copied. 404 GAME_NOT_FOUND.",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict},
	}, tagPlacements, members.Developer), a.promote)
}

func (a *api) listPlacements(ctx context.Context, in *GameEnvPath) (*placementsOutput, error) {
	id, err := gameID(in.GameID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	list, err := a.console.Placements(ctx, principal(ctx), id, env(in.Environment))
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &placementsOutput{Body: PlacementsBody{Placements: httpapi.Map(list, toPlacementBody)}}, nil
}

func toCorePlacement(id uuid.UUID, b placementFields) (touchpoints.Placement, error) {
	p := touchpoints.Placement{ID: id, Screen: b.Screen, Type: touchpoints.ItemType(b.Type), ProductID: b.Item.ProductID,
		IsActive: b.IsActive == nil || *b.IsActive,
		Asset: touchpoints.Asset{Source: b.Asset.Source, PresetID: b.Asset.PresetID, ImageURL: b.Asset.ImageURL,
			Orientation: b.Asset.Orientation, Width: b.Asset.Width, Height: b.Asset.Height}}
	if b.Item.RewardID != "" {
		rid, err := uuid.Parse(b.Item.RewardID)
		if err != nil {
			return p, errs.Invalidf("item.rewardId must be a UUID")
		}
		p.RewardID = &rid
	}
	if b.Item.Rule != nil {
		r := touchpoints.Rule(*b.Item.Rule)
		p.Rule = &r
	}
	return p, nil
}

func (a *api) putOne(ctx context.Context, game string, e studio.Environment, id uuid.UUID, b placementFields) (*placementOutput, error) {
	g, err := gameID(game)
	if err != nil {
		return nil, fail(ctx, err)
	}
	p, err := toCorePlacement(id, b)
	if err != nil {
		return nil, fail(ctx, err)
	}
	p, created, err := a.console.PutPlacement(ctx, principal(ctx), g, e, p)
	if err != nil {
		return nil, fail(ctx, err)
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return &placementOutput{Status: status, Body: toPlacementBody(p)}, nil
}

func (a *api) createPlacement(ctx context.Context, in *createPlacementInput) (*placementOutput, error) {
	return a.putOne(ctx, in.GameID, env(in.Environment), uuid.Nil, in.Body)
}

func (a *api) putPlacement(ctx context.Context, in *putPlacementInput) (*placementOutput, error) {
	if _, err := gameID(in.GameID); err != nil {
		return nil, fail(ctx, err)
	}
	id, err := httpapi.ParseID(in.PlacementID, touchpoints.ErrPlacementNotFound)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return a.putOne(ctx, in.GameID, env(in.Environment), id, in.Body)
}

func (a *api) deletePlacement(ctx context.Context, in *placementPath) (*struct{}, error) {
	g, err := gameID(in.GameID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	id, err := httpapi.ParseID(in.PlacementID, touchpoints.ErrPlacementNotFound)
	if err != nil {
		return nil, fail(ctx, err)
	}
	if err := a.console.DeletePlacement(ctx, principal(ctx), g, env(in.Environment), id); err != nil {
		return nil, fail(ctx, err)
	}
	return nil, nil
}

func (a *api) promoteDiff(ctx context.Context, in *GamePath) (*diffOutput, error) {
	g, err := gameID(in.GameID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	d, err := a.console.PromoteDiff(ctx, principal(ctx), g)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &diffOutput{Body: toDiffBody(d)}, nil
}

func (a *api) promote(ctx context.Context, in *promoteInput) (*diffOutput, error) {
	g, err := gameID(in.GameID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	version := ""
	if in.Body != nil {
		version = in.Body.Version
	}
	d, err := a.console.Promote(ctx, principal(ctx), g, version)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &diffOutput{Body: toDiffBody(d)}, nil
}
