// Package studioapi serves the operator API of the studio module: onboarding studios and games,
// and rotating API keys.
package studioapi

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/money"
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
	ID                      uuid.UUID   `json:"id" doc:"Game id"`
	StudioID                uuid.UUID   `json:"studioId" doc:"Owning studio"`
	Name                    string      `json:"name" doc:"Game name" example:"Tower Tactics"`
	StoreURL                string      `json:"storeUrl" doc:"Base address of the game's store, used in touchpoint links" example:"https://store.example.com"`
	ServerOnlyCoinMovements bool        `json:"serverOnlyCoinMovements" doc:"Whether distribute, deduct, federated login and uuid player creation also need the game's server secret in x-api-secret"`
	PurchaseBudgetPerDay    BudgetsBody `json:"purchaseBudgetPerDay" doc:"The face value the game's store purchases may reach per UTC day, per environment; null is unlimited"`
	AllowedOrigins          OriginsBody `json:"allowedOrigins" doc:"The browser origins allowed to call the API with the game's key (CORS), per environment"`
	CreatedAt               time.Time   `json:"createdAt" doc:"When the game was created"`
}

// OriginsBody is a game's allowed browser origins per environment.
type OriginsBody struct {
	Live []string `json:"live" doc:"Origins allowed on the live hosts" example:"[\"https://play.example.com\"]"`
	Test []string `json:"test" doc:"Origins allowed on the development hosts" example:"[\"http://localhost:3000\"]"`
}

// ToOriginsBody is a game's allowed origins, [] for an environment with none.
func ToOriginsBody(o studio.Origins) OriginsBody {
	orNone := func(l []string) []string {
		if l == nil {
			return []string{}
		}
		return l
	}
	return OriginsBody{Live: orNone(o.Live), Test: orNone(o.Test)}
}

// OriginsInput sets a game's allowed origins; an environment left out keeps its origins.
type OriginsInput struct {
	Live *[]string `json:"live,omitempty" maxItems:"20" doc:"Exact origins (scheme, host, optional port; no path) allowed on the live hosts; [] allows none"`
	Test *[]string `json:"test,omitempty" maxItems:"20" doc:"Exact origins allowed on the development hosts; [] allows none"`
}

// BudgetsBody is a game's purchase budget per day and environment, in the deployment currency.
type BudgetsBody struct {
	Live *float64 `json:"live" doc:"Live budget per UTC day; null is unlimited" example:"100000"`
	Test *float64 `json:"test" doc:"Test budget per UTC day; null is unlimited" example:"5000"`
}

// BudgetsInput changes a game's purchase budgets: an environment left out keeps its budget.
type BudgetsInput struct {
	Live *float64 `json:"live,omitempty" minimum:"-1" doc:"Live budget per UTC day (0 to 1,000,000,000); -1 for unlimited" example:"100000"`
	Test *float64 `json:"test,omitempty" minimum:"-1" doc:"Test budget per UTC day (0 to 1,000,000,000); -1 for unlimited" example:"-1"`
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

func toStudioBody(s studio.Studio) StudioBody {
	return StudioBody{ID: s.ID, Name: s.Name, CreatedAt: s.CreatedAt}
}

func toGameBody(g studio.Game) GameBody {
	units := func(a *money.Amount) *float64 {
		if a == nil {
			return nil
		}
		u := a.Units()
		return &u
	}
	return GameBody{ID: g.ID, StudioID: g.StudioID, Name: g.Name, StoreURL: g.StoreURL,
		ServerOnlyCoinMovements: g.ServerOnlyCoinMovements, CreatedAt: g.CreatedAt, AllowedOrigins: ToOriginsBody(g.AllowedOrigins),
		PurchaseBudgetPerDay: BudgetsBody{Live: units(g.PurchaseBudget.Live), Test: units(g.PurchaseBudget.Test)}}
}

// toCoreBudgets reads a PATCH's budgets: an environment sent is set (-1: unlimited).
func toCoreBudgets(ctx context.Context, in BudgetsInput) (studio.Budgets, map[studio.Environment]bool, error) {
	var b studio.Budgets
	set := map[studio.Environment]bool{}
	for _, f := range []struct {
		env  studio.Environment
		in   *float64
		into **money.Amount
	}{{studio.Live, in.Live, &b.Live}, {studio.Test, in.Test, &b.Test}} {
		if f.in == nil {
			continue
		}
		set[f.env] = true
		if *f.in == -1 {
			continue
		}
		a, err := money.FromUnits(*f.in)
		if err != nil || a > studio.MaxBudget {
			return b, nil, httpapi.ValidationError(ctx, "body.purchaseBudgetPerDay."+string(f.env),
				"a budget is from 0 to 1000000000 with at most two decimals, or -1 for unlimited", *f.in)
		}
		*f.into = &a
	}
	return b, set, nil
}

func toNewGameBody(g studio.NewGame) NewGameBody {
	return NewGameBody{ID: g.ID, StudioID: g.StudioID, Name: g.Name, StoreURL: g.StoreURL,
		APIKeys: APIKeysBody{Live: g.LiveKey, Test: g.TestKey}}
}

type createStudioInput struct {
	Body struct {
		Name string `json:"name" minLength:"1" maxLength:"200" doc:"Studio name" example:"Pixel Forge"`
	}
}

// StudioPath names a studio; input types embed it (Huma reads exported embedded structs only).
type StudioPath struct {
	StudioID string `path:"studioId" doc:"Studio id"`
}

func (in *StudioPath) id() (uuid.UUID, error) {
	return httpapi.ParseID(in.StudioID, studio.ErrStudioNotFound)
}

type createGameInput struct {
	StudioPath
	Body struct {
		Name     string `json:"name" minLength:"1" maxLength:"200" doc:"Game name" example:"Tower Tactics"`
		StoreURL string `json:"storeUrl,omitempty" format:"uri" doc:"Base address of the game's store: an absolute http or https address of at most 2,048 characters" example:"https://store.example.com"`
	}
}

// GamePath names a game; input types embed it.
type GamePath struct {
	GameID string `path:"gameId" doc:"Game id"`
}

func (in *GamePath) id() (uuid.UUID, error) {
	return httpapi.ParseID(in.GameID, studio.ErrGameNotFound)
}

type rotateKeyInput struct {
	GamePath
	Environment string `path:"environment" enum:"live,test" doc:"Which key to rotate"`
}

// RotateKeyResponse is a game's new API key.
type RotateKeyResponse struct {
	Environment string `json:"environment" doc:"live or test" example:"test"`
	APIKey      string `json:"apiKey" doc:"The new plaintext key; shown only in this response"`
}

type updateGameInput struct {
	GamePath
	Body struct {
		ServerOnlyCoinMovements *bool         `json:"serverOnlyCoinMovements,omitempty" doc:"true: distribute, deduct, federated login (/player/login/federatedByStudio) and player creation by uuid also need the game's server secret of the environment in x-api-secret (403 SERVER_SECRET_REQUIRED otherwise); false (the default): the API key and player token are enough"`
		PurchaseBudgetPerDay    *BudgetsInput `json:"purchaseBudgetPerDay,omitempty" doc:"The face value the game's store purchases may reach per UTC day, per environment (default live 100,000, test unlimited)"`
		AllowedOrigins          *OriginsInput `json:"allowedOrigins,omitempty" doc:"The browser origins allowed to call the API with the game's key (CORS), per environment (default: none)"`
	}
}

type serverSecretInput struct {
	GamePath
	Environment string `path:"environment" enum:"live,test" doc:"Which environment's secret to issue"`
}

// ServerSecretResponse is a game's new server secret.
type ServerSecretResponse struct {
	Environment  string `json:"environment" doc:"live or test" example:"test"`
	ServerSecret string `json:"serverSecret" doc:"The new plaintext secret; shown only in this response" example:"rks_test_4eC39HqLyjWDarjtT1zdp7dc0000000000"`
}

// pathID is an input whose path names a studio or a game: id parses it, 404 when it cannot be
// one.
type pathID interface{ id() (uuid.UUID, error) }

// serve adapts h to Huma: h gets the id the path names (uuid.Nil for a path without one) and
// answers a body; its error is answered by httpapi.ErrorFrom (the body it returns with an error
// is not used).
func serve[I, B any](h func(context.Context, uuid.UUID, *I) (B, error)) func(context.Context, *I) (*httpapi.Output[B], error) {
	return func(ctx context.Context, in *I) (*httpapi.Output[B], error) {
		var id uuid.UUID
		var err error
		if p, ok := any(in).(pathID); ok {
			id, err = p.id()
		}
		var b B
		if err == nil {
			b, err = h(ctx, id, in)
		}
		if err != nil {
			return nil, httpapi.ErrorFrom(ctx, err)
		}
		return &httpapi.Output[B]{Body: b}, nil
	}
}

// handlers serve the studio operations that take more than one core call.
type handlers struct{ svc *studio.Service }

// Register adds the studio module's operations to s.
func Register(s *httpapi.Server, svc *studio.Service) {
	h := handlers{svc: svc}
	ops := httpapi.Operations{API: s.OperatorAPI, Auth: s.Operator}
	httpapi.Register(ops, httpapi.WithStatus(http.StatusCreated, httpapi.Op("admin-create-studio", http.MethodPost, "/admin/v1/studios",
		"Onboard a studio",
		"Creates a studio. Games, keys and coins are added under it.",
		http.StatusBadRequest)), serve(func(ctx context.Context, _ uuid.UUID, in *createStudioInput) (StudioBody, error) {
		st, err := svc.CreateStudio(ctx, in.Body.Name)
		return toStudioBody(st), err
	}))
	httpapi.Register(ops, httpapi.Op("admin-list-studios", http.MethodGet, "/admin/v1/studios",
		"List studios",
		"Every studio, oldest first."), serve(func(ctx context.Context, _ uuid.UUID, _ *struct{}) ([]StudioBody, error) {
		list, err := svc.ListStudios(ctx)
		return httpapi.Map(list, toStudioBody), err
	}))
	httpapi.Register(ops, httpapi.Op("admin-get-studio", http.MethodGet, "/admin/v1/studios/{studioId}",
		"Get a studio",
		"One studio. 404 STUDIO_NOT_FOUND when no studio has the id.",
		http.StatusNotFound), serve(func(ctx context.Context, id uuid.UUID, _ *StudioPath) (StudioBody, error) {
		st, err := svc.GetStudio(ctx, id)
		return toStudioBody(st), err
	}))
	httpapi.Register(ops, httpapi.WithStatus(http.StatusCreated, httpapi.Op("admin-create-game", http.MethodPost, "/admin/v1/studios/{studioId}/games",
		"Create a game with its API keys",
		"Creates a game under the studio and issues its live and test API keys. The plaintext keys are in this response only; the service keeps hashes. 404 STUDIO_NOT_FOUND for an unknown studio.",
		http.StatusBadRequest, http.StatusNotFound)), serve(func(ctx context.Context, id uuid.UUID, in *createGameInput) (NewGameBody, error) {
		g, err := svc.CreateGame(ctx, studio.Game{StudioID: id, Name: in.Body.Name, StoreURL: in.Body.StoreURL})
		return toNewGameBody(g), err
	}))
	httpapi.Register(ops, httpapi.Op("admin-list-games", http.MethodGet, "/admin/v1/studios/{studioId}/games",
		"List a studio's games",
		"The studio's games, oldest first, without keys. 404 STUDIO_NOT_FOUND for an unknown studio.",
		http.StatusNotFound), serve(func(ctx context.Context, id uuid.UUID, _ *StudioPath) ([]GameBody, error) {
		list, err := svc.ListGames(ctx, id)
		return httpapi.Map(list, toGameBody), err
	}))
	httpapi.Register(ops, httpapi.WithStatus(http.StatusCreated, httpapi.Op("admin-rotate-api-key", http.MethodPost, "/admin/v1/games/{gameId}/api-keys/{environment}/rotate",
		"Rotate a game's API key",
		"Issues a new key for the environment and revokes the previous one: calls with the old key get 401 API_KEY_REVOKED, and every partner token exchanged with it stops working (401 PARTNER_TOKEN_INVALID), at once on the instance that rotated and within 1 s on every other (each instance keeps authentication lookups for 1 s). The plaintext key is in this response only. 404 GAME_NOT_FOUND for an unknown game.",
		http.StatusBadRequest, http.StatusNotFound)), serve(func(ctx context.Context, id uuid.UUID, in *rotateKeyInput) (RotateKeyResponse, error) {
		key, err := svc.RotateKey(ctx, id, studio.Environment(in.Environment))
		return RotateKeyResponse{Environment: in.Environment, APIKey: key}, err
	}))
	httpapi.Register(ops, httpapi.Op("admin-update-game", http.MethodPatch, "/admin/v1/games/{gameId}",
		"Change a game's settings",
		"Changes the settings sent and answers the game. `serverOnlyCoinMovements` (default off): the API key ships inside game clients, so a studio may keep coin grants on its own servers; "+
			"with it on, distribute, deduct, federated login (/player/login/federatedByStudio) and player creation by uuid also need header x-api-secret with the game's server secret of the environment (POST /admin/v1/games/{gameId}/server-secrets/{environment}), "+
			"else 403 SERVER_SECRET_REQUIRED. "+
			"`purchaseBudgetPerDay` `{live, test}` (deployment currency; -1 for unlimited; default live 100,000 and test unlimited): store purchases whose face value would take the UTC day's total of non-failed purchases of that environment past it answer 429 PURCHASE_BUDGET_EXCEEDED with Retry-After until the next UTC day, and take nothing; a failed (refunded) order gives its share back. "+
			"`allowedOrigins` `{live, test}` (default none): the browser origins (exact: `https://play.example.com`, scheme, host and optional port, at most 20 per environment; `[]` clears) from which web games and web views may call the API with the game's key. "+
			"A preflight (OPTIONS) from an origin that a game of the host's environment allows answers 204 with Access-Control-Allow-Methods, Access-Control-Allow-Headers (x-api-key, authorization, content-type, x-idempotency-key, x-language, x-api-version, x-game-uuid; never x-api-secret) and Access-Control-Max-Age 600; "+
			"a request with the game's key from an allowed origin gets Access-Control-Allow-Origin and exposes x-request-id, x-idempotent-replay and Retry-After. Other origins get no CORS headers; /admin/v1, /metrics and the provider webhooks never do. "+
			"The change applies at once on the instance that made it and within 1 s on others. "+
			"404 GAME_NOT_FOUND for an unknown game.",
		http.StatusBadRequest, http.StatusNotFound), serve(h.updateGame))
	httpapi.Register(ops, httpapi.WithStatus(http.StatusCreated, httpapi.Op("admin-issue-server-secret", http.MethodPost, "/admin/v1/games/{gameId}/server-secrets/{environment}",
		"Issue a game's server secret",
		"Issues the game's server secret of the environment (rks_live_… or rks_test_…), for the studio's servers: with the game's serverOnlyCoinMovements on, distribute, deduct, federated login and player creation by uuid need it in x-api-secret. A new secret replaces the old one at once. The plaintext secret is in this response only; the service keeps a hash. 404 GAME_NOT_FOUND for an unknown game.",
		http.StatusBadRequest, http.StatusNotFound)), serve(func(ctx context.Context, id uuid.UUID, in *serverSecretInput) (ServerSecretResponse, error) {
		secret, err := svc.IssueServerSecret(ctx, id, studio.Environment(in.Environment))
		return ServerSecretResponse{Environment: in.Environment, ServerSecret: secret}, err
	}))
}

func (h handlers) updateGame(ctx context.Context, id uuid.UUID, in *updateGameInput) (GameBody, error) {
	g, err := h.svc.GetGame(ctx, id)
	if err != nil {
		return GameBody{}, err
	}
	if p := in.Body.PurchaseBudgetPerDay; p != nil {
		b, set, err := toCoreBudgets(ctx, *p)
		if err != nil {
			return GameBody{}, err
		}
		if g, err = h.svc.SetPurchaseBudget(ctx, id, b, set); err != nil {
			return GameBody{}, err
		}
	}
	if o := in.Body.AllowedOrigins; o != nil {
		var origins studio.Origins
		set := map[studio.Environment]bool{}
		if o.Live != nil {
			origins.Live, set[studio.Live] = *o.Live, true
		}
		if o.Test != nil {
			origins.Test, set[studio.Test] = *o.Test, true
		}
		if g, err = h.svc.SetAllowedOrigins(ctx, id, origins, set); err != nil {
			return GameBody{}, err
		}
	}
	if in.Body.ServerOnlyCoinMovements != nil {
		if g, err = h.svc.SetServerOnlyCoinMovements(ctx, id, *in.Body.ServerOnlyCoinMovements); err != nil {
			return GameBody{}, err
		}
	}
	return toGameBody(g), nil
}
