// Package touchpointsapi serves the touchpoints module over HTTP: 2.0 serving
// (GET /v2/touchpoints/serve), the 1.0 trees (GET /touchpoints…), both inside the success
// envelope, and the operator's placements, asset library, touchpoint coin and trees.
package touchpointsapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// Tag groups the touchpoint operations on the docs page.
const Tag = "Touchpoints"

// TagDescription describes Tag on the docs page.
const TagDescription = "Reward widgets games draw inside their own screens: 2.0 serves one priced offer per screen, 1.0 returns trees of nodes. Answers are inside the envelope {data, statusCode, message, requestId, timestamp}."

// pricingRule documents the figures of a served item.
const pricingRule = "**Pricing.** `pricing` is money in the deployment currency: `mrp`, `price` (selling price), `discountPct` ((mrp − price)/mrp) and `priceAfterCoins` (price − coinDiscount). " +
	"The coin is the game's touchpoint coin (set by the operator; else the game's oldest coin). Coins may pay up to the item's `maxCoinDiscountPct` of the price (100% for coupons and gift cards): " +
	"`coinDiscount` is that share, rounded down to the hundredth, capped by what the player's balance is worth when a player token is sent (uncapped without one); " +
	"`coinsRequired = ceil(coinDiscount × coinsPerUnit)`. `coins` is omitted when the game has no coin or the coin can pay nothing (0%, an empty balance). " +
	"`pricing` is null for coupons (they carry `offerText`: the campaign title, else the discount, else the name) and for products whose price snapshot is over 24 hours old (no `coins` then either)."

func errBadID(field, value string) error {
	return errs.Invalidf("nodes: %s %q is not a UUID", field, value)
}

// Register adds the touchpoint operations to s.
func Register(s *httpapi.Server, svc *touchpoints.Service) {
	tags := []string{Tag}
	ops := httpapi.Operations{API: s.API, Auth: s.MaybePlayer, Tags: tags}
	s.AddTag(Tag, TagDescription)
	h := handlers{svc: svc}

	httpapi.Register(ops, httpapi.Op("serve-touchpoint", http.MethodGet, "/v2/touchpoints/serve", "What a screen shows (2.0)",
		"Picks the screen's active placement of the key's game and environment and its item: the configured reward or product when it is active and in stock "+
			"(a coupon with a code pool needs a free code), else the best item by the placement's rule. `screen`: only `home` is live; any other is 400 UNKNOWN_SCREEN naming the valid values. "+
			"When the screen has placements of several types, `type` (product, coupon, gift-card) chooses one; without it the call is 400 PLACEMENT_TYPE_REQUIRED. "+
			"Nothing to show (no placement, or no item available) is a normal 200 with `asset` and `item` null (`placementId` null when there is no placement). "+
			"With a player token (`Authorization: Bearer`) the coin figures are capped by the player's balance; an invalid token is 401. "+
			"`cta.url` is `{storeUrl}/rewards/{item.id}` (the game's storeUrl, else `{REWARDS_PUBLIC_URL}/store`: the service's own page of each reward and product, which the link opens) with `utm_source`, `utm_medium` and `utm_campaign` appended when sent. "+pricingRule,
		http.StatusBadRequest), h.serve)

	treeRule := "`coinId` (a coin of the key's game; 404 COIN_NOT_FOUND otherwise) fills `data` of STATIC nodes and of the nodes DYNAMIC ones expand into; without it nodes come back unhydrated. " +
		"DYNAMIC nodes are always replaced by one sibling per matching item (each DYNAMIC, with the item's rewardId or productId, an id derived from the node's and the item's, " +
		"the node's looks and children, and `cta.action` = the configured prefix + item id); the original node is never returned. Nodes keep `displayOrder`: clients sort ascending. " +
		"With a player token, product figures (`coinRequiredForDiscount`) use the player's balance. " +
		"Hydrated reward: `price` is the coin price of the smallest face value in `coinId`'s coin; `inventory` is LIMITED with the free codes of a coupon pool, else UNLIMITED with -1. " +
		"Hydrated product: `coinSpread` is maxCoinDiscountPct; `coinsRequiredForMaxDiscount` = ceil(share of the final price coins may pay × coinsPerUnit)."

	httpapi.Register(ops, httpapi.Op("list-touchpoints", http.MethodGet, "/touchpoints", "The game's touchpoints (1.0)",
		"The trees of the key's game (both environments), by name, a page at a time: `{touchpoints, total, page, limit, hasMore}`, where `total` counts every tree of the game "+
			"and `hasMore` tells whether trees follow this page. One answer serves at most 5,000 nodes, all its trees together: a page takes trees in order while it holds fewer than `limit` "+
			"(default 20, at most 100) and ends before the tree that would take it past 5,000, counting for each tree the most nodes it can serve (up to 2,000, as checked when it was written); "+
			"a page holds at least one tree, so a page may hold fewer than `limit` trees while more follow. The pages are cut the same way on every read: reading `page` 1, 2, … while `hasMore` "+
			"lists every tree once (as long as the trees do not change meanwhile). A page past the last is an empty list with the total. `page` × `limit` is at most 10,000 (400 VALIDATION_FAILED). "+treeRule,
		http.StatusBadRequest, http.StatusNotFound), h.list)

	httpapi.Register(ops, httpapi.Op("get-touchpoint-by-name", http.MethodGet, "/touchpoints/name/{name}", "One touchpoint by name (1.0)",
		"The game's tree of that name; names are case sensitive (`Home` is not `home`): 404 TOUCHPOINT_NOT_FOUND. "+treeRule,
		http.StatusBadRequest, http.StatusNotFound), h.byName)

	httpapi.Register(ops, httpapi.Op("get-touchpoint", http.MethodGet, "/touchpoints/{id}", "One touchpoint by id (1.0)",
		"The game's tree of that id; an unknown or malformed id, or another game's, is 404 TOUCHPOINT_NOT_FOUND. "+treeRule,
		http.StatusBadRequest, http.StatusNotFound), h.byID)

	registerOperator(s, h)
	documentNodeData(s.API.OpenAPI().Components.Schemas)
	documentNodeData(s.OperatorAPI.OpenAPI().Components.Schemas)
}

// registerOperator adds the operator's touchpoint operations.
func registerOperator(s *httpapi.Server, h handlers) {
	ops := httpapi.Operations{API: s.OperatorAPI, Auth: s.Operator}
	// The library of frames.
	httpapi.Register(ops, httpapi.CreateOrReplace(httpapi.Op("admin-put-touchpoint-asset", http.MethodPut, "/admin/v1/touchpoint-assets/{assetId}", "Create or replace a library frame",
		"The library of PRESET frames placements may use (shared by every game). 201 when new, 200 when replaced; placements using it are served with the new image at once. "+
			"`assetId` matches `^[a-z0-9][a-z0-9_-]{1,63}$`; `imageUrl` is an absolute http(s) address; width and height 1 to 10000. Bad input is 400 and changes nothing.",
		http.StatusBadRequest)), h.putAsset)

	httpapi.Register(ops, httpapi.Op("admin-list-touchpoint-assets", http.MethodGet, "/admin/v1/touchpoint-assets", "The library of frames",
		"Every PRESET frame, by id: `{assets}`."), h.listAssets)

	// 2.0 placements and the coin they price in.
	httpapi.Register(ops, httpapi.CreateOrReplace(httpapi.Op("admin-put-placement", http.MethodPut, "/admin/v1/games/{gameId}/placements/{environment}/{placementId}", "Create or replace a placement (2.0)",
		"What a screen of the game shows in one environment. `screen`: only `home` (400 UNKNOWN_SCREEN). `type`: product, coupon or gift-card; one placement per screen and type "+
			"(409 PLACEMENT_CONFLICT). `asset`: `{source: PRESET, presetId}` (a library frame, 400 otherwise) or `{source: UPLOAD, imageUrl, orientation, width, height}`. "+
			"`item`: `rewardId` (a COUPON for coupon placements, a GIFT_CARD for gift-card ones) or `productId` (product placements), and/or `rule {category?, brand?, sortBy?}` "+
			"whose best item stands in when there is no configured item or it is inactive or out of stock. `isActive` defaults to true. 201 when new, 200 when replaced. "+
			"Test placements reach live only through POST .../placements/promote. 404 GAME_NOT_FOUND; a `placementId` that is not a UUID is 404 PLACEMENT_NOT_FOUND; "+
			"bad input is 400 and changes nothing.",
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)), h.putPlacement)

	httpapi.Register(ops, httpapi.Op("admin-list-placements", http.MethodGet, "/admin/v1/games/{gameId}/placements/{environment}", "A game's placements (2.0)",
		"Every placement of the game in the environment, by screen and type: `{placements}`; PRESET frames show the library's current image. 404 GAME_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound), h.listPlacements)

	httpapi.Register(ops, httpapi.Op("admin-promote-placements", http.MethodPost, "/admin/v1/games/{gameId}/placements/promote", "Go live: copy the test placements to live",
		"The game's live placements become copies of its test placements (same ids), in one transaction; live placements not in test are removed. "+
			"Answers the live placements. 404 GAME_NOT_FOUND.",
		http.StatusNotFound), h.promote)

	httpapi.Register(ops, httpapi.Op("admin-put-touchpoint-coin", http.MethodPut, "/admin/v1/games/{gameId}/touchpoint-coin", "Set the game's touchpoint coin",
		"The coin 2.0 touchpoints price in; until set, the game's oldest coin. `coinId` must be a coin of the game (400 otherwise). 404 GAME_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound), h.putCoin)

	// 1.0 touchpoint trees.
	httpapi.Register(ops, httpapi.CreateOrReplace(httpapi.Op("admin-put-touchpoint-tree", http.MethodPut, "/admin/v1/games/{gameId}/touchpoints/{name}", "Create or replace a touchpoint tree (1.0)",
		"A tree of nodes for the game (both environments), named case sensitively (1 to 128 characters, no `/`). 201 when new, 200 when replaced. Checked: node ids are UUIDs, "+
			"unique in the tree (a node without one gets one); ASSET (the default) links nothing; STATIC links a reward (`rewardId`) or product (`productId`) that exists, or has a descendant that does; "+
			"DYNAMIC has `query {type: rewards|products, category?, brand?, sortBy?, limit ≤ 20 (default 10)}` and `actionPrefix`, links nothing, and is never a popup; "+
			"at most 500 nodes (popups included), 6 levels and 10 DYNAMIC nodes; a DYNAMIC node has no DYNAMIC descendant. "+
			"Served, each DYNAMIC node becomes up to its limit of copies of itself with its descendants: a tree that could serve more than 2,000 nodes is 400 TREE_TOO_LARGE. "+
			"Every image (`images`, `additionalAssets`, background and overlay images, badge and CTA images) is an absolute https URL with a host (http outside production). "+
			"`data` sent is ignored. Bad input is 400 VALIDATION_FAILED naming the node and changes nothing. 404 GAME_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound)), h.putTree)

	httpapi.Register(ops, httpapi.WithStatus(http.StatusNoContent, httpapi.Op("admin-delete-touchpoint-tree", http.MethodDelete, "/admin/v1/games/{gameId}/touchpoints/{name}", "Delete a touchpoint tree (1.0)",
		"Deletes the game's tree of that name (case sensitive). 404 GAME_NOT_FOUND for an unknown game, TOUCHPOINT_NOT_FOUND when the game has no tree of that name.",
		http.StatusNotFound)), h.deleteTree)
}

// ---- Inputs and outputs ----

type serveInput struct {
	Screen      string `query:"screen" required:"true" maxLength:"64" doc:"The screen; only home is live (400 UNKNOWN_SCREEN otherwise)" example:"home"`
	Type        string `query:"type" enum:"product,coupon,gift-card" doc:"Which placement, when the screen has several (400 PLACEMENT_TYPE_REQUIRED without it)"`
	UTMSource   string `query:"utm_source" maxLength:"256" doc:"Appended to cta.url"`
	UTMMedium   string `query:"utm_medium" maxLength:"256" doc:"Appended to cta.url"`
	UTMCampaign string `query:"utm_campaign" maxLength:"256" doc:"Appended to cta.url"`
}

// CoinQuery is the coinId of the 1.0 reads (embedded, so exported for Huma).
type CoinQuery struct {
	CoinID string `query:"coinId" maxLength:"64" doc:"A coin of the game: fills data (404 COIN_NOT_FOUND when it is not one); without it nodes are unhydrated"`
}

// ListPage is the paging of GET /touchpoints (embedded, so exported for Huma).
type ListPage struct {
	Limit int `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Trees per page, at most 100; a page also ends before the tree that would take it past 5,000 served nodes"`
	Page  int `query:"page" minimum:"1" maximum:"10000" default:"1" doc:"Page number, from 1; page × limit is at most 10,000"`
}

// Resolve implements huma.Resolver: page × limit is at most httpapi.MaxListDepth (400
// VALIDATION_FAILED).
func (p *ListPage) Resolve(huma.Context) []error { return httpapi.CheckDepth(p.Page, p.Limit) }

type listInput struct {
	CoinQuery
	ListPage
}

type byNameInput struct {
	Name string `path:"name" maxLength:"128" doc:"Touchpoint name, case sensitive" example:"Home"`
	CoinQuery
}

type byIDInput struct {
	ID string `path:"id" maxLength:"64" doc:"Touchpoint id"`
	CoinQuery
}

type servedOutput = httpapi.Output[httpapi.Envelope[ServedBody]]

type touchpointOutput = httpapi.Output[httpapi.Envelope[TouchpointBody]]

type touchpointListOutput = httpapi.Output[httpapi.Envelope[TouchpointListBody]]

type putAssetInput struct {
	AssetID string `path:"assetId" maxLength:"64" doc:"Asset id" example:"gold-frame"`
	Body    struct {
		Name        string `json:"name" maxLength:"200" doc:"Name" example:"Gold frame"`
		ImageURL    string `json:"imageUrl" maxLength:"2048" doc:"Absolute http(s) address of the frame"`
		Orientation string `json:"orientation" enum:"PORTRAIT,LANDSCAPE" doc:"Orientation"`
		Width       int    `json:"width" minimum:"1" maximum:"10000" doc:"Pixels"`
		Height      int    `json:"height" minimum:"1" maximum:"10000" doc:"Pixels"`
	}
}

type assetOutput = httpapi.Put[LibraryAssetBody]

type assetsOutput struct {
	Body struct {
		Assets []LibraryAssetBody `json:"assets"`
	}
}

// GamePath is the game of an operator route (embedded, so exported for Huma).
type GamePath struct {
	GameID string `path:"gameId" maxLength:"64" doc:"The game"`
}

type putPlacementInput struct {
	GamePath
	Environment string `path:"environment" enum:"live,test" doc:"Environment"`
	PlacementID string `path:"placementId" maxLength:"64" doc:"Placement id, chosen by the caller: a UUID (404 PLACEMENT_NOT_FOUND otherwise)"`
	// Body embeds the fields in an unnamed struct, which the document names after the operation.
	Body struct{ PlacementFields }
}

// PlacementFields are what a placement is made of, as a request sends them; the studio API
// takes them too.
type PlacementFields struct {
	Screen   string             `json:"screen" maxLength:"64" doc:"Screen; only home" example:"home"`
	Type     string             `json:"type" enum:"product,coupon,gift-card" doc:"Kind of offer"`
	Asset    PlacementAssetBody `json:"asset"`
	Item     PlacementItemBody  `json:"item"`
	IsActive *bool              `json:"isActive,omitempty" doc:"Default true"`
}

type placementOutput = httpapi.Put[PlacementBody]

type listPlacementsInput struct {
	GamePath
	Environment string `path:"environment" enum:"live,test" doc:"Environment"`
}

type placementsOutput struct {
	Body struct {
		Placements []PlacementBody `json:"placements"`
	}
}

type putCoinInput struct {
	GamePath
	Body struct {
		CoinID string `json:"coinId" format:"uuid" doc:"A coin of the game"`
	}
}

type coinOutput struct {
	Body struct {
		GameID string `json:"gameId" doc:"The game"`
		CoinID string `json:"coinId" doc:"Its touchpoint coin"`
	}
}

type putTreeInput struct {
	GamePath
	Name string `path:"name" maxLength:"128" doc:"Touchpoint name, case sensitive" example:"Home"`
	Body struct {
		Nodes []NodeBody `json:"nodes" maxItems:"500" doc:"Root nodes"`
	}
}

type treeOutput = httpapi.Put[TouchpointBody]

type deleteTreeInput struct {
	GamePath
	Name string `path:"name" maxLength:"128" doc:"Touchpoint name, case sensitive"`
}

// ---- Handlers ----

// handlers serve the touchpoint operations: each decodes its input, makes one core call and
// encodes the answer.
type handlers struct{ svc *touchpoints.Service }

func playerOf(ctx context.Context) *uuid.UUID {
	if p := httpapi.PlayerFrom(ctx); p.ID != uuid.Nil {
		return &p.ID
	}
	return nil
}

func (h handlers) serve(ctx context.Context, in *serveInput) (*servedOutput, error) {
	c := httpapi.CallerFrom(ctx)
	s, err := h.svc.Serve(ctx, touchpoints.ServeRequest{GameID: c.GameID, Environment: c.Environment, PlayerID: playerOf(ctx),
		Screen: in.Screen, Type: touchpoints.ItemType(in.Type),
		UTM: map[string]string{"utm_source": in.UTMSource, "utm_medium": in.UTMMedium, "utm_campaign": in.UTMCampaign}})
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &servedOutput{Body: httpapi.Wrap(ctx, http.StatusOK, "OK", toServedBody(s))}, nil
}

func (h handlers) treeRequest(ctx context.Context, q CoinQuery) (touchpoints.TreeRequest, error) {
	r := touchpoints.TreeRequest{GameID: httpapi.CallerFrom(ctx).GameID, PlayerID: playerOf(ctx)}
	if q.CoinID != "" {
		id, err := httpapi.ParseID(q.CoinID, coins.ErrCoinNotFound)
		if err != nil {
			return r, httpapi.ErrorFrom(ctx, err)
		}
		r.CoinID = &id
	}
	return r, nil
}

func (h handlers) list(ctx context.Context, in *listInput) (*touchpointListOutput, error) {
	q, err := h.treeRequest(ctx, in.CoinQuery)
	if err != nil {
		return nil, err
	}
	list, err := h.svc.Trees(ctx, q, in.Page, in.Limit)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	body := TouchpointListBody{Touchpoints: httpapi.Map(list.Trees, toTouchpointBody), Total: list.Total, Page: in.Page, Limit: in.Limit,
		HasMore: list.More}
	return &touchpointListOutput{Body: httpapi.Wrap(ctx, http.StatusOK, "OK", body)}, nil
}

func (h handlers) byName(ctx context.Context, in *byNameInput) (*touchpointOutput, error) {
	q, err := h.treeRequest(ctx, in.CoinQuery)
	if err != nil {
		return nil, err
	}
	t, err := h.svc.TreeByName(ctx, q, in.Name)
	return httpapi.ReplyWrapped(ctx, "OK", t, err, toTouchpointBody)
}

func (h handlers) byID(ctx context.Context, in *byIDInput) (*touchpointOutput, error) {
	id, err := httpapi.ParseID(in.ID, touchpoints.ErrTouchpointNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	q, err := h.treeRequest(ctx, in.CoinQuery)
	if err != nil {
		return nil, err
	}
	t, err := h.svc.TreeByID(ctx, q, id)
	return httpapi.ReplyWrapped(ctx, "OK", t, err, toTouchpointBody)
}

func (h handlers) putAsset(ctx context.Context, in *putAssetInput) (*assetOutput, error) {
	a := touchpoints.PresetAsset{ID: in.AssetID, Name: in.Body.Name, ImageURL: in.Body.ImageURL, Orientation: in.Body.Orientation,
		Width: in.Body.Width, Height: in.Body.Height}
	created, err := h.svc.PutAsset(ctx, a)
	return httpapi.ReplyPut(ctx, a, created, err, toLibraryAssetBody)
}

func (h handlers) listAssets(ctx context.Context, _ *struct{}) (*assetsOutput, error) {
	list, err := h.svc.Assets(ctx)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	out := &assetsOutput{}
	out.Body.Assets = httpapi.Map(list, toLibraryAssetBody)
	return out, nil
}

func (h handlers) putPlacement(ctx context.Context, in *putPlacementInput) (*placementOutput, error) {
	gameID, err := httpapi.ParseID(in.GameID, studio.ErrGameNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	id, err := httpapi.ParseID(in.PlacementID, touchpoints.ErrPlacementNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	p, err := ToCorePlacement(id, in.Body.PlacementFields)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	p.GameID, p.Environment = gameID, studio.Environment(in.Environment)
	p, created, err := h.svc.PutPlacement(ctx, p)
	return httpapi.ReplyPut(ctx, p, created, err, ToPlacementBody)
}

// ToCorePlacement is the placement id made of b, without its game and environment (which the
// path names); a rewardId that is not a UUID is invalid.
func ToCorePlacement(id uuid.UUID, b PlacementFields) (touchpoints.Placement, error) {
	p := touchpoints.Placement{ID: id, Screen: b.Screen,
		Type: touchpoints.ItemType(b.Type), ProductID: b.Item.ProductID, IsActive: b.IsActive == nil || *b.IsActive,
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

func (h handlers) listPlacements(ctx context.Context, in *listPlacementsInput) (*placementsOutput, error) {
	gameID, err := httpapi.ParseID(in.GameID, studio.ErrGameNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	list, err := h.svc.Placements(ctx, gameID, studio.Environment(in.Environment))
	return placementsAnswer(ctx, list, err)
}

func (h handlers) promote(ctx context.Context, in *GamePath) (*placementsOutput, error) {
	gameID, err := httpapi.ParseID(in.GameID, studio.ErrGameNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	list, err := h.svc.Promote(ctx, gameID)
	return placementsAnswer(ctx, list, err)
}

// placementsAnswer is the answer of the operations that list a game's placements: the list, or
// err as ErrorFrom maps it.
func placementsAnswer(ctx context.Context, list []touchpoints.Placement, err error) (*placementsOutput, error) {
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	out := &placementsOutput{}
	out.Body.Placements = httpapi.Map(list, ToPlacementBody)
	return out, nil
}

func (h handlers) putCoin(ctx context.Context, in *putCoinInput) (*coinOutput, error) {
	gameID, err := httpapi.ParseID(in.GameID, studio.ErrGameNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	coinID, err := uuid.Parse(in.Body.CoinID)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, errs.Invalidf("coinId must be a UUID"))
	}
	if err := h.svc.SetCoin(ctx, gameID, coinID); err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	out := &coinOutput{}
	out.Body.GameID, out.Body.CoinID = gameID.String(), coinID.String()
	return out, nil
}

func (h handlers) putTree(ctx context.Context, in *putTreeInput) (*treeOutput, error) {
	gameID, err := httpapi.ParseID(in.GameID, studio.ErrGameNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	nodes, err := toCoreNodes(in.Body.Nodes)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	t, created, err := h.svc.PutTree(ctx, gameID, strings.Clone(in.Name), nodes)
	return httpapi.ReplyPut(ctx, t, created, err, toTouchpointBody)
}

func (h handlers) deleteTree(ctx context.Context, in *deleteTreeInput) (*struct{}, error) {
	gameID, err := httpapi.ParseID(in.GameID, studio.ErrGameNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	if err := h.svc.DeleteTree(ctx, gameID, in.Name); err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return nil, nil
}
