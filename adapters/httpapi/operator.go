package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/studio"
)

// StudioBody is a studio as the operator API shows it.
type StudioBody struct {
	ID        uuid.UUID `json:"id" doc:"Studio id"`
	Name      string    `json:"name" doc:"Studio name" example:"Pixel Forge"`
	CreatedAt time.Time `json:"createdAt" doc:"When the studio was onboarded"`
}

// GameBody is a game as the operator API lists it (keys are never shown again).
type GameBody struct {
	ID        uuid.UUID `json:"id" doc:"Game id"`
	StudioID  uuid.UUID `json:"studioId" doc:"Owning studio"`
	Name      string    `json:"name" doc:"Game name" example:"Tower Tactics"`
	StoreURL  string    `json:"storeUrl" doc:"Base address of the game's store, used in touchpoint links" example:"https://store.example.com"`
	CreatedAt time.Time `json:"createdAt" doc:"When the game was created"`
}

// APIKeysBody holds plaintext keys, shown only when created.
type APIKeysBody struct {
	Live string `json:"live" doc:"Live key, for the live hosts" example:"rk_live_4eC39HqLyjWDarjtT1zdp7dc0000000000"`
	Test string `json:"test" doc:"Test key, for the development hosts" example:"rk_test_4eC39HqLyjWDarjtT1zdp7dc0000000000"`
}

// NewGameBody is a created game with its keys.
type NewGameBody struct {
	ID       uuid.UUID   `json:"id" doc:"Game id"`
	StudioID uuid.UUID   `json:"studioId" doc:"Owning studio"`
	Name     string      `json:"name" doc:"Game name"`
	StoreURL string      `json:"storeUrl" doc:"Base address of the game's store"`
	APIKeys  APIKeysBody `json:"apiKeys" doc:"The plaintext keys; shown only in this response"`
}

// CoinBody is a coin as every API shows it.
type CoinBody struct {
	ID   uuid.UUID `json:"id" doc:"Coin id (coinId)"`
	Name string    `json:"name" doc:"Coin name" example:"Gems"`
	URL  string    `json:"url" doc:"Coin image address" example:"https://cdn.example.com/gem.png"`
}

func toStudioBody(s studio.Studio) StudioBody {
	return StudioBody{ID: s.ID, Name: s.Name, CreatedAt: s.CreatedAt}
}

func toGameBody(g studio.Game) GameBody {
	return GameBody{ID: g.ID, StudioID: g.StudioID, Name: g.Name, StoreURL: g.StoreURL, CreatedAt: g.CreatedAt}
}

func toCoinBody(c coins.Coin) CoinBody { return CoinBody{ID: c.ID, Name: c.Name, URL: c.ImageURL} }

type createStudioInput struct {
	Body struct {
		Name string `json:"name" minLength:"1" maxLength:"200" doc:"Studio name" example:"Pixel Forge"`
	}
}

type studioOutput struct{ Body StudioBody }

type studiosOutput struct{ Body []StudioBody }

type studioPath struct {
	StudioID string `path:"studioId" format:"uuid" doc:"Studio id"`
}

type createGameInput struct {
	StudioID string `path:"studioId" format:"uuid" doc:"Studio id"`
	Body     struct {
		Name     string `json:"name" minLength:"1" maxLength:"200" doc:"Game name" example:"Tower Tactics"`
		StoreURL string `json:"storeUrl,omitempty" format:"uri" maxLength:"2048" doc:"Base address of the game's store" example:"https://store.example.com"`
	}
}

type newGameOutput struct{ Body NewGameBody }

type gamesOutput struct{ Body []GameBody }

type rotateKeyInput struct {
	GameID      string `path:"gameId" format:"uuid" doc:"Game id"`
	Environment string `path:"environment" enum:"live,test" doc:"Which key to rotate"`
}

type rotateKeyOutput struct {
	Body struct {
		Environment string `json:"environment" doc:"live or test" example:"test"`
		APIKey      string `json:"apiKey" doc:"The new plaintext key; shown only in this response"`
	}
}

type createCoinInput struct {
	GameID string `path:"gameId" format:"uuid" doc:"Game id"`
	Body   struct {
		Name     string `json:"name" minLength:"1" maxLength:"100" doc:"Coin name" example:"Gems"`
		ImageURL string `json:"imageUrl" format:"uri" maxLength:"2048" doc:"Coin image address" example:"https://cdn.example.com/gem.png"`
	}
}

type coinOutput struct{ Body CoinBody }

func (a *handlers) registerOperator() {
	huma.Register(a.api, a.operatorOperation(huma.Operation{
		OperationID:   "admin-create-studio",
		Method:        http.MethodPost,
		Path:          "/admin/v1/studios",
		Summary:       "Onboard a studio",
		Description:   "Creates a studio. Games, keys and coins are added under it.",
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusBadRequest},
	}), func(ctx context.Context, in *createStudioInput) (*studioOutput, error) {
		s, err := a.Studios.CreateStudio(ctx, in.Body.Name)
		if err != nil {
			return nil, studioError(ctx, err)
		}
		return &studioOutput{Body: toStudioBody(s)}, nil
	})

	huma.Register(a.api, a.operatorOperation(huma.Operation{
		OperationID: "admin-list-studios",
		Method:      http.MethodGet,
		Path:        "/admin/v1/studios",
		Summary:     "List studios",
		Description: "Every studio, oldest first.",
	}), func(ctx context.Context, _ *struct{}) (*studiosOutput, error) {
		list, err := a.Studios.ListStudios(ctx)
		if err != nil {
			return nil, studioError(ctx, err)
		}
		out := &studiosOutput{Body: make([]StudioBody, len(list))}
		for i, s := range list {
			out.Body[i] = toStudioBody(s)
		}
		return out, nil
	})

	huma.Register(a.api, a.operatorOperation(huma.Operation{
		OperationID: "admin-get-studio",
		Method:      http.MethodGet,
		Path:        "/admin/v1/studios/{studioId}",
		Summary:     "Get a studio",
		Description: "One studio. 404 STUDIO_NOT_FOUND when no studio has the id.",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound},
	}), func(ctx context.Context, in *studioPath) (*studioOutput, error) {
		s, err := a.Studios.GetStudio(ctx, uuid.MustParse(in.StudioID))
		if err != nil {
			return nil, studioError(ctx, err)
		}
		return &studioOutput{Body: toStudioBody(s)}, nil
	})

	huma.Register(a.api, a.operatorOperation(huma.Operation{
		OperationID:   "admin-create-game",
		Method:        http.MethodPost,
		Path:          "/admin/v1/studios/{studioId}/games",
		Summary:       "Create a game with its API keys",
		Description:   "Creates a game under the studio and issues its live and test API keys. The plaintext keys are in this response only; the service keeps hashes. 404 STUDIO_NOT_FOUND for an unknown studio.",
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusBadRequest, http.StatusNotFound},
	}), func(ctx context.Context, in *createGameInput) (*newGameOutput, error) {
		g, err := a.Studios.CreateGame(ctx, studio.Game{StudioID: uuid.MustParse(in.StudioID), Name: in.Body.Name, StoreURL: in.Body.StoreURL})
		if err != nil {
			return nil, studioError(ctx, err)
		}
		return &newGameOutput{Body: NewGameBody{
			ID: g.ID, StudioID: g.StudioID, Name: g.Name, StoreURL: g.StoreURL,
			APIKeys: APIKeysBody{Live: g.LiveKey, Test: g.TestKey},
		}}, nil
	})

	huma.Register(a.api, a.operatorOperation(huma.Operation{
		OperationID: "admin-list-games",
		Method:      http.MethodGet,
		Path:        "/admin/v1/studios/{studioId}/games",
		Summary:     "List a studio's games",
		Description: "The studio's games, oldest first, without keys. 404 STUDIO_NOT_FOUND for an unknown studio.",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound},
	}), func(ctx context.Context, in *studioPath) (*gamesOutput, error) {
		list, err := a.Studios.ListGames(ctx, uuid.MustParse(in.StudioID))
		if err != nil {
			return nil, studioError(ctx, err)
		}
		out := &gamesOutput{Body: make([]GameBody, len(list))}
		for i, g := range list {
			out.Body[i] = toGameBody(g)
		}
		return out, nil
	})

	huma.Register(a.api, a.operatorOperation(huma.Operation{
		OperationID:   "admin-rotate-api-key",
		Method:        http.MethodPost,
		Path:          "/admin/v1/games/{gameId}/api-keys/{environment}/rotate",
		Summary:       "Rotate a game's API key",
		Description:   "Issues a new key for the environment and revokes the previous one at once: calls with the old key get 401 API_KEY_REVOKED. The plaintext key is in this response only. 404 GAME_NOT_FOUND for an unknown game.",
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusBadRequest, http.StatusNotFound},
	}), func(ctx context.Context, in *rotateKeyInput) (*rotateKeyOutput, error) {
		key, err := a.Studios.RotateKey(ctx, uuid.MustParse(in.GameID), studio.Environment(in.Environment))
		if err != nil {
			return nil, studioError(ctx, err)
		}
		out := &rotateKeyOutput{}
		out.Body.Environment, out.Body.APIKey = in.Environment, key
		return out, nil
	})

	huma.Register(a.api, a.operatorOperation(huma.Operation{
		OperationID:   "admin-create-coin",
		Method:        http.MethodPost,
		Path:          "/admin/v1/games/{gameId}/coins",
		Summary:       "Create a coin for a game",
		Description:   "Defines a coin the game can give its players. Balances are kept per environment. 404 GAME_NOT_FOUND for an unknown game.",
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusBadRequest, http.StatusNotFound},
	}), func(ctx context.Context, in *createCoinInput) (*coinOutput, error) {
		gameID := uuid.MustParse(in.GameID)
		if _, err := a.Studios.GetGame(ctx, gameID); err != nil {
			return nil, studioError(ctx, err)
		}
		c, err := a.Coins.CreateCoin(ctx, coins.Coin{GameID: gameID, Name: in.Body.Name, ImageURL: in.Body.ImageURL})
		if err != nil {
			return nil, coinsError(ctx, err)
		}
		return &coinOutput{Body: toCoinBody(c)}, nil
	})
}

// studioError maps the studio module's errors to responses.
func studioError(ctx context.Context, err error) *APIError {
	switch {
	case errors.Is(err, studio.ErrStudioNotFound):
		return newAPIError(ctx, http.StatusNotFound, "STUDIO_NOT_FOUND", err.Error())
	case errors.Is(err, studio.ErrGameNotFound):
		return newAPIError(ctx, http.StatusNotFound, "GAME_NOT_FOUND", err.Error())
	case errors.Is(err, studio.ErrInvalid):
		return newAPIError(ctx, http.StatusBadRequest, "VALIDATION_FAILED", err.Error())
	default:
		return internal(ctx, err)
	}
}
