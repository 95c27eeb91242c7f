// Package storefrontapi serves POST /player/store-session: the call a game makes to open the
// player's store (adapters/storepage) in a web view.
package storefrontapi

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/storefront"
)

// Tag groups the store operations on the docs page.
const Tag = "Store web view"

// TagDescription describes Tag on the docs page.
const TagDescription = "The player's store as a web view: the game asks for a one-time link and opens it; the service's own pages do the rest."

// EnterPath is the page an entry link opens; the pages adapter serves it.
const EnterPath = "/store/enter"

// StoreSessionBody is a one-time link to the player's store.
type StoreSessionBody struct {
	URL       string    `json:"url" doc:"Open this in the game's web view. It works once, within 60 s: a used or expired link shows a page saying so (410)." example:"https://rewards.example.com/store/enter?code=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP1234"`
	ExpiresAt time.Time `json:"expiresAt" doc:"When the link stops working" example:"2026-01-01T12:01:00Z"`
}

type storeSessionOutput struct {
	Body StoreSessionBody
}

// Register adds the store operations to s; publicURL is the service's own address
// (REWARDS_PUBLIC_URL), which the links start with.
func Register(s *httpapi.Server, svc *storefront.Service, publicURL string) {
	s.AddTag(Tag, TagDescription)
	huma.Register(s.API, s.Player(huma.Operation{
		OperationID: "player-store-session",
		Method:      http.MethodPost,
		Path:        "/player/store-session",
		Summary:     "Open the player's store in a web view",
		Description: "The game client's call, with the game's API key and the player's token. Answers a one-time link to the service's own store pages: `url` is " +
			"`{REWARDS_PUBLIC_URL}/store/enter?code=<52 random characters>`, good for one opening within 60 s. Opening it in the game's web view " +
			"sets the store's cookie (HttpOnly, SameSite=Lax; 24 h, bound to the game, the environment and the player) and lands on the store's " +
			"landing page (store settings' `defaultLandingPage`). The session ends at once when the player is blocked or deletes its account. " +
			"A used, expired or unknown code answers a page saying the link has expired (410) and sets no cookie: ask for a new link each time the " +
			"store is opened. Only the game's `allowedOrigins` of the environment may frame the pages (`frame-ancestors`); a native web view is not " +
			"framed and needs none. 403 PLAYER_DISABLED for a deleted account.",
		Tags:          []string{Tag},
		DefaultStatus: http.StatusCreated,
	}), func(ctx context.Context, _ *struct{}) (*storeSessionOutput, error) {
		e, err := svc.Open(ctx, httpapi.PlayerFrom(ctx))
		if err != nil {
			return nil, httpapi.ErrorFrom(ctx, err)
		}
		return &storeSessionOutput{Body: StoreSessionBody{URL: publicURL + EnterPath + "?code=" + url.QueryEscape(e.Code), ExpiresAt: e.ExpiresAt}}, nil
	})
}
