package studiov1api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/adapters/httpapi/partnerapi"
	"github.com/rewardsco/rewards/adapters/httpapi/studioapi"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

// GameSummaryBody is a game as the list shows it.
type GameSummaryBody struct {
	ID        uuid.UUID `json:"id" doc:"Game id"`
	Name      string    `json:"name" doc:"Game name" example:"Tower Tactics"`
	StoreURL  string    `json:"storeUrl" doc:"Base address of the game's store" example:"https://store.example.com"`
	CreatedAt time.Time `json:"createdAt" doc:"When the game was created"`
}

func toGameSummaryBody(g studio.Game) GameSummaryBody {
	return GameSummaryBody{ID: g.ID, Name: g.Name, StoreURL: g.StoreURL, CreatedAt: g.CreatedAt}
}

// CredentialsBody is what may be shown of a game's credentials of one environment.
type CredentialsBody struct {
	Environment string    `json:"environment" enum:"live,test" doc:"The environment"`
	APIKey      string    `json:"apiKey" doc:"The API key, masked: its prefix and last characters only" example:"rk_live_…a1b2"`
	KeyIssuedAt time.Time `json:"keyIssuedAt" doc:"When the current key was issued"`
	// ServerSecretIssuedAt and PartnerSecretIssuedAt are pointers: null when none was issued.
	ServerSecretIssuedAt  *time.Time `json:"serverSecretIssuedAt" doc:"When the current server secret was issued, or null"`
	PartnerSecretIssuedAt *time.Time `json:"partnerSecretIssuedAt" doc:"When the current partner client secret was issued, or null"`
}

// PartnerTermsBody are a game's partner terms, which the operator sets.
type PartnerTermsBody struct {
	Enabled     bool    `json:"enabled" doc:"Whether the game may use the partner API"`
	Settlement  string  `json:"settlement" enum:"WALLET,CASH" doc:"How the partner pays for its orders"`
	DiscountPct float64 `json:"discountPct" doc:"The partner's discount on face value, percent" example:"2.5"`
}

func toPartnerTermsBody(s partner.Settings) PartnerTermsBody {
	settlement := string(s.Settlement)
	if settlement == "" {
		settlement = "WALLET"
	}
	return PartnerTermsBody{Enabled: s.Enabled, Settlement: settlement, DiscountPct: s.DiscountPct.Float()}
}

// GameBody is one game with its masked credentials.
type GameBody struct {
	ID          uuid.UUID         `json:"id" doc:"Game id"`
	Name        string            `json:"name" doc:"Game name" example:"Tower Tactics"`
	StoreURL    string            `json:"storeUrl" doc:"Base address of the game's store" example:"https://store.example.com"`
	CreatedAt   time.Time         `json:"createdAt" doc:"When the game was created"`
	Credentials []CredentialsBody `json:"credentials" doc:"Per environment, live first: masked key and when secrets were issued"`
	Partner     PartnerTermsBody  `json:"partner" doc:"The partner terms (the operator's to change)"`
}

func toGameBody(v console.GameView) GameBody {
	b := GameBody{ID: v.Game.ID, Name: v.Game.Name, StoreURL: v.Game.StoreURL, CreatedAt: v.Game.CreatedAt,
		Credentials: make([]CredentialsBody, 0, len(v.Credentials)), Partner: toPartnerTermsBody(v.Partner)}
	for _, c := range v.Credentials {
		b.Credentials = append(b.Credentials, CredentialsBody{Environment: string(c.Environment), APIKey: c.APIKey,
			KeyIssuedAt: c.KeyIssuedAt, ServerSecretIssuedAt: c.ServerSecretIssuedAt, PartnerSecretIssuedAt: c.PartnerSecretIssuedAt})
	}
	return b
}

// APIKeyBody is a new API key.
type APIKeyBody struct {
	Environment string `json:"environment" enum:"live,test" doc:"The key's environment" example:"test"`
	APIKey      string `json:"apiKey" doc:"The new key; shown only here" example:"rk_test_4eC39HqLyjWDarjtT1zdp7dc0000000000"`
}

// ServerSecretBody is a new server secret.
type ServerSecretBody struct {
	Environment  string `json:"environment" enum:"live,test" doc:"The secret's environment" example:"test"`
	ServerSecret string `json:"serverSecret" doc:"The new secret; shown only here" example:"rks_test_4eC39HqLyjWDarjtT1zdp7dc0000000000"`
}

// PartnerSecretBody is a new partner client secret.
type PartnerSecretBody struct {
	Environment  string `json:"environment" enum:"live,test" doc:"The secret's environment" example:"test"`
	ClientSecret string `json:"clientSecret" doc:"The new client secret; shown only here" example:"rcs_9a8b7c6d5e4f3g2h1i0jKLMNOPQRSTUVWXYZabcd"`
}

// WalletBody is a game's partner wallet of one environment.
type WalletBody struct {
	Terms   PartnerTermsBody              `json:"terms" doc:"The partner terms"`
	Balance float64                       `json:"balance" doc:"The balance, in units of the deployment currency"`
	Entries []partnerapi.PartnerEntryBody `json:"entries" doc:"A page of the entries, oldest first"`
	Page    int                           `json:"page" doc:"Page number, from 1"`
	Limit   int                           `json:"limit" doc:"Page size"`
	Total   int64                         `json:"total" doc:"Entries in all"`
}

// StoreBody is the store's switches.
type StoreBody struct {
	RewardsEnabled     bool   `json:"rewardsEnabled" doc:"Whether the rewards store is on"`
	GcommerceEnabled   bool   `json:"gcommerceEnabled" doc:"Whether goods commerce is on"`
	DefaultLandingPage string `json:"defaultLandingPage" doc:"Page the store opens on" example:"rewards"`
}

// CoinOptionBody is a coin of the game.
type CoinOptionBody struct {
	ID   uuid.UUID `json:"id" doc:"Coin id"`
	Name string    `json:"name" doc:"Coin name" example:"Gems"`
}

// IntegrationBody is how a game is wired to its players.
type IntegrationBody struct {
	GameID                  uuid.UUID             `json:"gameId" doc:"The game"`
	StoreURL                string                `json:"storeUrl" doc:"Base address of the game's store" example:"https://store.example.com"`
	AllowedOrigins          studioapi.OriginsBody `json:"allowedOrigins" doc:"The browser origins allowed to call the API with the game's keys (CORS)"`
	ServerOnlyCoinMovements bool                  `json:"serverOnlyCoinMovements" doc:"Whether coin movements also need the game's server secret (x-api-secret)"`
	Store                   StoreBody             `json:"store" doc:"The store's switches"`
	StoreTheme              map[string]any        `json:"storeTheme" doc:"The store's theme and configuration object ({} when none is set)"`
	// TouchpointCoinID is a pointer: null when none was chosen.
	TouchpointCoinID *uuid.UUID       `json:"touchpointCoinId" nullable:"true" doc:"The coin touchpoints price in; null: the game's oldest coin"`
	Coins            []CoinOptionBody `json:"coins" doc:"The game's coins, to choose the touchpoint coin from"`
}

func toIntegrationBody(in console.Integration) (IntegrationBody, error) {
	b := IntegrationBody{GameID: in.GameID, StoreURL: in.StoreURL,
		AllowedOrigins:          studioapi.ToOriginsBody(in.AllowedOrigins),
		ServerOnlyCoinMovements: in.ServerOnlyCoinMovements,
		Store: StoreBody{RewardsEnabled: in.Store.RewardsEnabled, GcommerceEnabled: in.Store.GcommerceEnabled,
			DefaultLandingPage: in.Store.DefaultLandingPage},
		StoreTheme: map[string]any{}, TouchpointCoinID: in.TouchpointCoinID, Coins: make([]CoinOptionBody, 0, len(in.Coins))}
	if len(in.Store.Theme) > 0 {
		if err := json.Unmarshal(in.Store.Theme, &b.StoreTheme); err != nil {
			return b, err
		}
		if b.StoreTheme == nil {
			b.StoreTheme = map[string]any{}
		}
	}
	for _, c := range in.Coins {
		b.Coins = append(b.Coins, CoinOptionBody{ID: c.ID, Name: c.Name})
	}
	return b, nil
}

type walletInput struct {
	GameEnvPath
	Paging
}

// StoreChangeBody changes the store's switches; fields left out stay.
type StoreChangeBody struct {
	RewardsEnabled     *bool   `json:"rewardsEnabled,omitempty" doc:"Whether the rewards store is on"`
	GcommerceEnabled   *bool   `json:"gcommerceEnabled,omitempty" doc:"Whether goods commerce is on"`
	DefaultLandingPage *string `json:"defaultLandingPage,omitempty" maxLength:"64" doc:"Page the store opens on" example:"rewards"`
}

// OriginsChangeBody replaces the origins of the environments sent.
type OriginsChangeBody struct {
	Live *[]string `json:"live,omitempty" maxItems:"20" doc:"Exact origins (scheme, host, optional port) allowed on the live hosts; [] allows none"`
	Test *[]string `json:"test,omitempty" maxItems:"20" doc:"Exact origins allowed on the development hosts; [] allows none"`
}

type setIntegrationInput struct {
	GamePath
	Body struct {
		StoreURL                *string            `json:"storeUrl,omitempty" maxLength:"2048" doc:"Base address of the game's store: an absolute https address (http outside production)" example:"https://store.example.com"`
		AllowedOrigins          *OriginsChangeBody `json:"allowedOrigins,omitempty" doc:"The browser origins allowed to call the API with the game's keys, per environment"`
		ServerOnlyCoinMovements *bool              `json:"serverOnlyCoinMovements,omitempty" doc:"true: distribute, deduct, federated login and player creation by uuid also need the game's server secret in x-api-secret"`
		Store                   *StoreChangeBody   `json:"store,omitempty" doc:"The store's switches"`
		StoreTheme              map[string]any     `json:"storeTheme,omitempty" doc:"Replaces the store's theme and configuration object"`
		TouchpointCoinID        *string            `json:"touchpointCoinId,omitempty" format:"uuid" doc:"A coin of the game for touchpoints to price in"`
	}
}

func (a *api) registerGames() {
	g := a.group(tagGames)
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-list-games", http.MethodGet, "/studio/v1/games",
		"The studio's games",
		"Every game of the studio, oldest first. Games are made by the operator."), serve(a.listGames))
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-get-game", http.MethodGet, "/studio/v1/games/{gameId}",
		"A game with its masked keys",
		"The game, its credentials per environment (the API key masked, rk_live_…a1b2; when the secrets were issued, never the secrets) and its partner terms. 404 GAME_NOT_FOUND.",
		http.StatusNotFound), serve(a.getGame))
	a.registerSecrets(g)
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-partner-wallet", http.MethodGet, "/studio/v1/games/{gameId}/partner/{environment}/wallet",
		"The partner wallet",
		"The partner terms, the wallet's balance and a page of its entries, oldest first. Funding it is the operator's. 404 GAME_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound), serve(a.partnerWallet))
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-get-integration", http.MethodGet, "/studio/v1/games/{gameId}/integration",
		"A game's integration settings",
		"The store address, the allowed browser origins per environment, serverOnlyCoinMovements, the store's switches and theme, and the touchpoint coin. 404 GAME_NOT_FOUND.",
		http.StatusNotFound), serve(a.getIntegration))
	huma.Register(a.s.StudioAPI, g.op(members.Developer, "studio-set-integration", http.MethodPatch, "/studio/v1/games/{gameId}/integration",
		"Change a game's integration settings",
		"Changes the settings sent; the rest stay. Each setting is its own change (and audit entry): when one is refused, those before it in this order are changed already: storeUrl, allowedOrigins, serverOnlyCoinMovements, store with storeTheme, touchpointCoinId. Origins are exact (`https://play.example.com`), at most 20 per environment. The purchase budget and partner terms are the operator's. 404 GAME_NOT_FOUND; 400 VALIDATION_FAILED (a touchpointCoinId that is not a coin of the game included).",
		http.StatusBadRequest, http.StatusNotFound), serve(a.setIntegration))
}

// registerSecrets registers issuing a game's key and secrets.
func (a *api) registerSecrets(g group) {
	issue(g, "studio-rotate-api-key", http.MethodPost, "/studio/v1/games/{gameId}/api-keys/{environment}/rotate",
		"Rotate a game's API key",
		"Issues a new key for the environment and revokes the previous one: calls with the old key get 401 API_KEY_REVOKED at once on this instance and within a second on every other, and partner tokens exchanged with it stop working. The new key is in this answer only. 404 GAME_NOT_FOUND.",
		a.console.RotateKey, func(env, key string) APIKeyBody { return APIKeyBody{Environment: env, APIKey: key} })
	issue(g, "studio-issue-server-secret", http.MethodPost, "/studio/v1/games/{gameId}/server-secrets/{environment}",
		"Issue a game's server secret",
		"Issues the game's server secret of the environment (rks_live_… or rks_test_…), for the studio's servers; a new one replaces the old at once. The secret is in this answer only. 404 GAME_NOT_FOUND.",
		a.console.IssueServerSecret, func(env, secret string) ServerSecretBody {
			return ServerSecretBody{Environment: env, ServerSecret: secret}
		})
	issue(g, "studio-issue-partner-secret", http.MethodPost, "/studio/v1/games/{gameId}/partner/{environment}/secret",
		"Issue the partner client secret",
		"Issues the partner API's client secret (rcs_…) of the environment and revokes the old one with every partner token issued under it. The secret is in this answer only. Enabling the partner API is the operator's. 404 GAME_NOT_FOUND.",
		a.console.IssuePartnerSecret, func(env, secret string) PartnerSecretBody {
			return PartnerSecretBody{Environment: env, ClientSecret: secret}
		})
}

// issue registers an operation that issues a new key or secret of a game's environment, for a
// DEVELOPER: 201 with body, the only answer that shows it.
func issue[B any](g group, id, method, path, summary, description string,
	call func(context.Context, members.Principal, uuid.UUID, studio.Environment) (string, error), body func(environment, secret string) B) {
	huma.Register(g.a.s.StudioAPI, httpapi.WithStatus(http.StatusCreated, g.op(members.Developer, id, method, path, summary, description, http.StatusNotFound)),
		serve(func(ctx context.Context, s scope, in *GameEnvPath) (B, error) {
			secret, err := call(ctx, s.p, s.game, s.env)
			return body(in.Environment, secret), err
		}))
}

func (a *api) listGames(ctx context.Context, s scope, _ *struct{}) ([]GameSummaryBody, error) {
	list, err := a.console.Games(ctx, s.p)
	return httpapi.Map(list, toGameSummaryBody), err
}

func (a *api) getGame(ctx context.Context, s scope, _ *GamePath) (GameBody, error) {
	v, err := a.console.Game(ctx, s.p, s.game)
	return toGameBody(v), err
}

func (a *api) partnerWallet(ctx context.Context, s scope, in *walletInput) (WalletBody, error) {
	w, err := a.console.PartnerWallet(ctx, s.p, s.game, s.env, in.Limit, in.offset())
	if err != nil {
		return WalletBody{}, err
	}
	b := WalletBody{Terms: toPartnerTermsBody(w.Settings), Balance: w.Balance.Units(), Page: in.Page, Limit: in.Limit, Total: w.Total,
		Entries: make([]partnerapi.PartnerEntryBody, 0, len(w.Entries))}
	for _, e := range w.Entries {
		b.Entries = append(b.Entries, partnerapi.PartnerEntryBody{ID: e.ID, Kind: string(e.Kind), Amount: e.Amount.Units(),
			BalanceAfter: e.BalanceAfter.Units(), OrderID: e.OrderID, Reference: e.Reference, CreatedAt: e.CreatedAt})
	}
	return b, nil
}

func (a *api) getIntegration(ctx context.Context, s scope, _ *GamePath) (IntegrationBody, error) {
	v, err := a.console.Integration(ctx, s.p, s.game)
	if err != nil {
		return IntegrationBody{}, err
	}
	return toIntegrationBody(v)
}

func (a *api) setIntegration(ctx context.Context, s scope, in *setIntegrationInput) (IntegrationBody, error) {
	ch := console.IntegrationChange{StoreURL: in.Body.StoreURL, ServerOnlyCoinMovements: in.Body.ServerOnlyCoinMovements}
	if o := in.Body.AllowedOrigins; o != nil {
		ch.AllowedOriginsLive, ch.AllowedOriginsTest = o.Live, o.Test
	}
	if st := in.Body.Store; st != nil {
		ch.Store = players.SettingsChange{RewardsEnabled: st.RewardsEnabled, GcommerceEnabled: st.GcommerceEnabled,
			DefaultLandingPage: st.DefaultLandingPage}
	}
	if in.Body.StoreTheme != nil {
		raw, err := json.Marshal(in.Body.StoreTheme)
		if err != nil {
			return IntegrationBody{}, httpapi.ValidationError(ctx, "body.storeTheme", "the theme must be a JSON object", nil)
		}
		ch.Store.Theme = raw
	}
	if c := in.Body.TouchpointCoinID; c != nil {
		coinID, err := uuid.Parse(*c)
		if err != nil {
			return IntegrationBody{}, httpapi.ValidationError(ctx, "body.touchpointCoinId", "must be a coin id", *c)
		}
		ch.TouchpointCoinID = &coinID
	}
	v, err := a.console.SetIntegration(ctx, s.p, s.game, ch)
	if err != nil {
		return IntegrationBody{}, err
	}
	return toIntegrationBody(v)
}
