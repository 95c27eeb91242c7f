package studiov1api

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
	"github.com/rewardsco/rewards/core/webhooks"
)

// The paths of the studio API, what each names and how it is read: every id of a path is
// parsed before the operation runs, and one that cannot be an id is the 404 of what it names,
// as an unknown one is. Inputs embed the path types (Huma reads exported embedded structs only).

// scope is what an operation acts on: the caller, and what its path names, parsed.
type scope struct {
	p    members.Principal
	game uuid.UUID
	env  studio.Environment
	// id is the path's last id, under the game: a player, order, placement, configuration, …
	id uuid.UUID
}

// pathScope is an input whose path names a game (and more): scope parses it, 404 when an id
// cannot be one.
type pathScope interface{ scope() (scope, error) }

// scopeOf is the scope of an operation's input: the caller in ctx, and the ids of a path.
func scopeOf(ctx context.Context, in any) (scope, error) {
	var s scope
	if ps, ok := in.(pathScope); ok {
		var err error
		if s, err = ps.scope(); err != nil {
			return s, err
		}
	}
	s.p = principal(ctx)
	return s, nil
}

// GamePath names a game of the caller's studio.
type GamePath struct {
	GameID string `path:"gameId" maxLength:"64" doc:"A game of the studio (another studio's game is 404 GAME_NOT_FOUND, as an unknown id)"`
}

func (in *GamePath) scope() (scope, error) {
	g, err := gameID(in.GameID)
	return scope{game: g}, err
}

// GameEnvPath names a game of the caller's studio and one of its environments.
type GameEnvPath struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio (another studio's game is 404 GAME_NOT_FOUND, as an unknown id)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live or test"`
}

func (in *GameEnvPath) scope() (scope, error) { return gameEnv(in.GameID, in.Environment) }

// gameEnv is the scope of a game and environment.
func gameEnv(game, environment string) (scope, error) {
	g, err := gameID(game)
	return scope{game: g, env: env(environment)}, err
}

// under is the scope of an id of a thing of a game and environment, notFound when it cannot be
// one (after the game's own 404).
func under(game, environment, id string, notFound error) (scope, error) {
	s, err := gameEnv(game, environment)
	if err != nil {
		return s, err
	}
	s.id, err = httpapi.ParseID(id, notFound)
	return s, err
}

// gameID parses the path's game id (404 GAME_NOT_FOUND when it cannot be one).
func gameID(s string) (uuid.UUID, error) { return httpapi.ParseID(s, studio.ErrGameNotFound) }

// env is a path's environment.
func env(s string) studio.Environment { return studio.Environment(strings.ToLower(s)) }

// MemberPath names a member of the caller's studio.
type MemberPath struct {
	MemberID string `path:"memberId" maxLength:"64" doc:"A member of the studio (another studio's member is 404 MEMBER_NOT_FOUND)"`
}

func (in *MemberPath) scope() (scope, error) {
	id, err := httpapi.ParseID(in.MemberID, members.ErrMemberNotFound)
	return scope{id: id}, err
}

// tokenPath names an access token of the caller's studio.
type tokenPath struct {
	TokenID string `path:"tokenId" maxLength:"64" doc:"An access token of the studio (another studio's is 404 TOKEN_NOT_FOUND)"`
}

func (in *tokenPath) scope() (scope, error) {
	id, err := httpapi.ParseID(in.TokenID, members.ErrTokenNotFound)
	return scope{id: id}, err
}

// PlacementsPath names the placements of a game of the caller's studio in an environment.
type PlacementsPath struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio (another studio's game is 404 GAME_NOT_FOUND, as an unknown id)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: only test is edited (live is 400 LIVE_PLACEMENTS_READ_ONLY)"`
}

func (in *PlacementsPath) scope() (scope, error) { return gameEnv(in.GameID, in.Environment) }

// PutPlacementPath names a placement to create or replace.
type PutPlacementPath struct {
	PlacementsPath
	PlacementID string `path:"placementId" maxLength:"64" doc:"Placement id, a UUID (404 PLACEMENT_NOT_FOUND otherwise)"`
}

func (in *PutPlacementPath) scope() (scope, error) {
	return under(in.GameID, in.Environment, in.PlacementID, touchpoints.ErrPlacementNotFound)
}

// placementPath names a placement of a game of the caller's studio in an environment.
type placementPath struct {
	PlacementsPath
	PlacementID string `path:"placementId" maxLength:"64" doc:"Placement id (404 PLACEMENT_NOT_FOUND when the game has none with it)"`
}

func (in *placementPath) scope() (scope, error) {
	return under(in.GameID, in.Environment, in.PlacementID, touchpoints.ErrPlacementNotFound)
}

// PlayerPath names a player of a game of the caller's studio in an environment.
type PlayerPath struct {
	GameEnvPath
	PlayerID string `path:"playerId" maxLength:"64" doc:"The player's id (404 PLAYER_NOT_FOUND when the game and environment have none with it)"`
}

func (in *PlayerPath) scope() (scope, error) {
	return under(in.GameID, in.Environment, in.PlayerID, players.ErrPlayerNotFound)
}

// orderPath names an order of a game of the caller's studio in an environment.
type orderPath struct {
	GameEnvPath
	OrderID string `path:"orderId" maxLength:"64" doc:"The order's id (404 ORDER_NOT_FOUND when the game and environment have none with it)"`
}

func (in *orderPath) scope() (scope, error) {
	return under(in.GameID, in.Environment, in.OrderID, orders.ErrOrderNotFound)
}

// WebhookPath names the webhook configurations of the studio in an environment, through one of
// its games.
type WebhookPath struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio, for whose studio the configurations are (another studio's game is 404 GAME_NOT_FOUND)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live (PRODUCTION) or test (DEVELOPMENT)"`
}

func (in *WebhookPath) scope() (scope, error) { return gameEnv(in.GameID, in.Environment) }

// ConfigPath names a webhook configuration of the studio in an environment.
type ConfigPath struct {
	WebhookPath
	ConfigID string `path:"configId" maxLength:"64" doc:"A configuration of the studio in the environment (404 WEBHOOK_CONFIG_NOT_FOUND otherwise)"`
}

func (in *ConfigPath) scope() (scope, error) {
	return under(in.GameID, in.Environment, in.ConfigID, webhooks.ErrConfigNotFound)
}

// WebhookTestPath names a webhook configuration through the game whose key a test event is
// sent as.
type WebhookTestPath struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio, whose key the synthetic event is sent as (another studio's game is 404 GAME_NOT_FOUND)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live (PRODUCTION) or test (DEVELOPMENT)"`
	ConfigID    string `path:"configId" maxLength:"64" doc:"A configuration of the studio in the environment (404 WEBHOOK_CONFIG_NOT_FOUND otherwise)"`
}

func (in *WebhookTestPath) scope() (scope, error) {
	return under(in.GameID, in.Environment, in.ConfigID, webhooks.ErrConfigNotFound)
}

// deliveryPath names a webhook delivery of the studio in an environment.
type deliveryPath struct {
	WebhookPath
	DeliveryID string `path:"deliveryId" maxLength:"64" doc:"A delivery of the studio in the environment (404 DELIVERY_NOT_FOUND otherwise)"`
}

func (in *deliveryPath) scope() (scope, error) {
	return under(in.GameID, in.Environment, in.DeliveryID, webhooks.ErrDeliveryNotFound)
}
