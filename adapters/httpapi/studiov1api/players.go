package studiov1api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
)

// PlayerBody is a player of a game and environment.
type PlayerBody struct {
	ID uuid.UUID `json:"id" doc:"Player id"`
	// UUID and Phone are pointers: null when the player has none.
	UUID      *string   `json:"uuid" doc:"The studio's identifier of the player, or null"`
	Phone     *string   `json:"phone" doc:"The E.164 phone the player signs in with, or null" example:"+919876543210"`
	Name      string    `json:"name" doc:"The player's name, when given"`
	Email     string    `json:"email" doc:"The player's email, when given"`
	IsBlocked bool      `json:"isBlocked" doc:"A blocked player's tokens and sign-ins answer 403 PLAYER_DISABLED"`
	CreatedAt time.Time `json:"createdAt" doc:"When the player was created"`
}

func toPlayerBody(p players.Player) PlayerBody {
	return PlayerBody{ID: p.ID, UUID: p.UUID, Phone: p.Phone, Name: p.Name, Email: p.Email, IsBlocked: p.IsBlocked, CreatedAt: p.CreatedAt}
}

// FundBody is a player's holding of one coin.
type FundBody struct {
	CoinID         uuid.UUID `json:"coinId" doc:"Coin id"`
	CoinName       string    `json:"coinName" doc:"Coin name" example:"Gems"`
	Balance        int64     `json:"balance" doc:"Coins held"`
	LifetimeEarned int64     `json:"lifetimeEarned" doc:"Coins credited in all"`
	LifetimeSpent  int64     `json:"lifetimeSpent" doc:"Coins debited in all"`
}

// TransactionBody is one coin movement.
type TransactionBody struct {
	ID           uuid.UUID `json:"id" doc:"Transaction id"`
	CoinID       uuid.UUID `json:"coinId" doc:"Coin id"`
	Type         string    `json:"type" enum:"CREDIT,DEBIT" doc:"CREDIT adds, DEBIT removes"`
	Amount       int64     `json:"amount" doc:"Coins moved"`
	BalanceAfter int64     `json:"balanceAfter" doc:"The balance after it"`
	Reason       string    `json:"reason" doc:"Why" example:"GAME_CREDIT"`
	ReferenceID  string    `json:"referenceId" doc:"The studio's reference"`
	Description  string    `json:"description" doc:"The studio's description"`
	CreatedAt    time.Time `json:"createdAt" doc:"When it happened"`
}

func toTransactionBody(t coins.Transaction) TransactionBody {
	return TransactionBody{ID: t.ID, CoinID: t.CoinID, Type: string(t.Type), Amount: t.Amount, BalanceAfter: t.BalanceAfter,
		Reason: t.Reason, ReferenceID: t.ReferenceID, Description: t.Description, CreatedAt: t.CreatedAt}
}

// CodeSummaryBody is what a studio sees of a delivered code: never the code or its PIN.
type CodeSummaryBody struct {
	ProviderVoucherID string  `json:"providerVoucherId" doc:"The provider's id of the voucher"`
	Value             float64 `json:"value" doc:"Face value, in units of the deployment currency"`
	// Expiry is a pointer: null when the code does not expire.
	Expiry *time.Time `json:"expiry" doc:"When the code expires, or null"`
}

// OrderBody is an order as its studio sees it, without codes or PINs.
type OrderBody struct {
	ID      uuid.UUID `json:"id" doc:"Order id"`
	Channel string    `json:"channel" enum:"STORE,PARTNER" doc:"STORE: a player bought with coins; PARTNER: a partner bought for its user"`
	// PlayerID and CoinID are pointers: null on a partner order.
	PlayerID      *uuid.UUID        `json:"playerId" nullable:"true" doc:"The buying player (a store order), or null"`
	UserRef       string            `json:"userRef" doc:"How the studio knows the player (its uuid, else the player id)"`
	RewardID      uuid.UUID         `json:"rewardId" doc:"The reward bought"`
	RewardType    string            `json:"rewardType" doc:"GIFT_CARD, COUPON, DIGITAL_CREDIT or PHYSICAL" example:"GIFT_CARD"`
	CoinID        *uuid.UUID        `json:"coinId" nullable:"true" doc:"The coin paid with (a store order), or null"`
	Status        string            `json:"status" enum:"INITIATED,PROCESSING,PENDING_PAYMENT,SUCCESS,FAILED,TIMEOUT,REFUNDED" doc:"Where the order is"`
	Denomination  float64           `json:"denomination" doc:"Face value of one unit"`
	Quantity      int               `json:"quantity" doc:"Units bought"`
	FaceValue     float64           `json:"faceValue" doc:"denomination × quantity"`
	CoinsSpent    int64             `json:"coinsSpent" doc:"Coins debited (a store order)"`
	FailureReason string            `json:"failureReason" doc:"Why it failed, when it did"`
	Codes         []CodeSummaryBody `json:"codes" doc:"The codes delivered, without the codes themselves (the player's to redeem)"`
	CreatedAt     time.Time         `json:"createdAt" doc:"When it was placed"`
	UpdatedAt     time.Time         `json:"updatedAt" doc:"Its last change"`
}

func toOrderBody(o console.OrderSummary) OrderBody {
	b := OrderBody{ID: o.ID, Channel: string(o.Channel), UserRef: o.UserRef, RewardID: o.RewardID, RewardType: string(o.RewardType),
		Status: string(o.Status), Denomination: o.Denomination.Units(), Quantity: o.Quantity, FaceValue: o.FaceValue.Units(),
		CoinsSpent: o.CoinsSpent, FailureReason: o.FailureReason, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt,
		Codes: make([]CodeSummaryBody, 0, len(o.Codes))}
	if o.PlayerID != uuid.Nil {
		id := o.PlayerID
		b.PlayerID = &id
	}
	if o.CoinID != uuid.Nil {
		id := o.CoinID
		b.CoinID = &id
	}
	for _, c := range o.Codes {
		b.Codes = append(b.Codes, CodeSummaryBody{ProviderVoucherID: c.ProviderVoucherID, Value: c.Value.Units(), Expiry: c.Expiry})
	}
	return b
}

// PlayerViewBody is one player with what support needs at a glance.
type PlayerViewBody struct {
	Player            PlayerBody        `json:"player" doc:"The player"`
	Funds             []FundBody        `json:"funds" doc:"The player's holding of each coin of the game"`
	Transactions      []TransactionBody `json:"transactions" doc:"The newest 20 coin movements, newest first"`
	TransactionsTotal int64             `json:"transactionsTotal" doc:"Coin movements in all (the rest: …/transactions)"`
	Orders            []OrderBody       `json:"orders" doc:"The newest 20 orders, newest first"`
	OrdersNext        string            `json:"ordersNext" doc:"The cursor of the orders after these (GET …/orders/{environment}?playerId=…&cursor=…), empty when there are no more"`
}

// TransactionPageBody is a page of a player's coin movements.
type TransactionPageBody struct {
	Items []TransactionBody `json:"items" doc:"The movements of this page, newest first"`
	Page  int               `json:"page" doc:"Page number, from 1"`
	Limit int               `json:"limit" doc:"Page size"`
	Total int64             `json:"total" doc:"Movements in all"`
}

// OrderPageBody is a page of orders.
type OrderPageBody struct {
	Orders []OrderBody `json:"orders" doc:"Orders, newest first"`
	Next   string      `json:"next" doc:"The cursor of the next page, empty at the end"`
}

// TransitionBody is one step of an order's history.
type TransitionBody struct {
	// From is a pointer: null for the first step.
	From   *string   `json:"from" doc:"The status before, or null for the first step"`
	To     string    `json:"to" doc:"The status after"`
	Reason string    `json:"reason" doc:"Why"`
	At     time.Time `json:"at" doc:"When"`
}

// OrderViewBody is one order with its history.
type OrderViewBody struct {
	Order   OrderBody        `json:"order" doc:"The order"`
	History []TransitionBody `json:"history" doc:"Its steps, oldest first"`
}

type lookupInput struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio (another studio's game is 404 GAME_NOT_FOUND, as an unknown id)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live or test"`
	Ref         string `query:"ref" required:"true" minLength:"1" maxLength:"128" doc:"The player's studio uuid, its player id, or its phone in E.164 (+919876543210)" example:"user-8812"`
}

type playerViewOutput struct{ Body PlayerViewBody }

type playerPath struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio (another studio's game is 404 GAME_NOT_FOUND, as an unknown id)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live or test"`
	PlayerID    string `path:"playerId" maxLength:"64" doc:"The player's id (404 PLAYER_NOT_FOUND when the game and environment have none with it)"`
}

type transactionsInput struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio (another studio's game is 404 GAME_NOT_FOUND, as an unknown id)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live or test"`
	PlayerID    string `path:"playerId" maxLength:"64" doc:"The player's id (404 PLAYER_NOT_FOUND when the game and environment have none with it)"`
	Limit       int    `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Page size, at most 100"`
	Page        int    `query:"page" minimum:"1" maximum:"10000" default:"1" doc:"Page number, from 1; page × limit is at most 10,000"`
}

// Resolve implements huma.Resolver: page × limit is at most httpapi.MaxListDepth.
func (in *transactionsInput) Resolve(huma.Context) []error {
	return httpapi.CheckDepth(in.Page, in.Limit)
}

type transactionsOutput struct{ Body TransactionPageBody }

type playerOutput struct{ Body PlayerBody }

type ordersInput struct {
	GameID      string    `path:"gameId" maxLength:"64" doc:"A game of the studio (another studio's game is 404 GAME_NOT_FOUND, as an unknown id)"`
	Environment string    `path:"environment" enum:"live,test" doc:"The environment: live or test"`
	Status      string    `query:"status" enum:"INITIATED,PROCESSING,PENDING_PAYMENT,SUCCESS,FAILED,TIMEOUT,REFUNDED" doc:"Only orders in this status"`
	PlayerID    string    `query:"playerId" maxLength:"64" doc:"Only this player's orders (an id that is no player's lists none)"`
	From        time.Time `query:"from" doc:"Only orders placed at or after this time (RFC 3339)"`
	To          time.Time `query:"to" doc:"Only orders placed before this time (RFC 3339)"`
	Limit       int       `query:"limit" minimum:"1" maximum:"200" default:"50" doc:"Page size, at most 200"`
	Cursor      string    `query:"cursor" maxLength:"200" doc:"The next of the page before (400 CURSOR_INVALID for anything else)"`
}

type ordersOutput struct{ Body OrderPageBody }

type orderPath struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio (another studio's game is 404 GAME_NOT_FOUND, as an unknown id)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live or test"`
	OrderID     string `path:"orderId" maxLength:"64" doc:"The order's id (404 ORDER_NOT_FOUND when the game and environment have none with it)"`
}

type orderViewOutput struct{ Body OrderViewBody }

func (a *api) registerPlayers() {
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID: "studio-lookup-player",
		Method:      http.MethodGet,
		Path:        "/studio/v1/games/{gameId}/players/{environment}",
		Summary:     "Look a player up",
		Description: "Finds the player of the game and environment by the studio's uuid, the player id or the phone (E.164), with its coin holdings, its newest 20 coin movements and its newest 20 orders (codes left out). 404 GAME_NOT_FOUND, PLAYER_NOT_FOUND.",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound},
	}, tagPlayers, members.Viewer), a.lookupPlayer)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID: "studio-player-transactions",
		Method:      http.MethodGet,
		Path:        "/studio/v1/games/{gameId}/players/{environment}/{playerId}/transactions",
		Summary:     "A player's coin movements",
		Description: "A page of the player's coin movements of every coin, newest first. 404 GAME_NOT_FOUND, PLAYER_NOT_FOUND.",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound},
	}, tagPlayers, members.Viewer), a.playerTransactions)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID: "studio-block-player",
		Method:      http.MethodPost,
		Path:        "/studio/v1/games/{gameId}/players/{environment}/{playerId}/block",
		Summary:     "Block a player",
		Description: "Blocks the player: its tokens, OTP and federated sign-ins answer 403 PLAYER_DISABLED. Blocking a blocked player changes nothing. 404 GAME_NOT_FOUND, PLAYER_NOT_FOUND.",
		Errors:      []int{http.StatusNotFound},
	}, tagPlayers, members.Developer), a.blockPlayer)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID: "studio-unblock-player",
		Method:      http.MethodPost,
		Path:        "/studio/v1/games/{gameId}/players/{environment}/{playerId}/unblock",
		Summary:     "Unblock a player",
		Description: "Lets a blocked player sign in again. 404 GAME_NOT_FOUND, PLAYER_NOT_FOUND.",
		Errors:      []int{http.StatusNotFound},
	}, tagPlayers, members.Developer), a.unblockPlayer)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID: "studio-list-orders",
		Method:      http.MethodGet,
		Path:        "/studio/v1/games/{gameId}/orders/{environment}",
		Summary:     "A game's orders",
		Description: "Store and partner orders of the game and environment, newest first, filtered by status, player and time (`from` inclusive, `to` exclusive; from must be before to, else 400 VALIDATION_FAILED). Codes and PINs are never shown: a studio sees that codes were delivered, with their provider ids, values and expiries. Continue with `cursor` = the `next` of the page before (400 CURSOR_INVALID otherwise). 404 GAME_NOT_FOUND.",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound},
	}, tagPlayers, members.Viewer), a.listOrders)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID: "studio-get-order",
		Method:      http.MethodGet,
		Path:        "/studio/v1/games/{gameId}/orders/{environment}/{orderId}",
		Summary:     "An order with its history",
		Description: "One order of the game and environment (codes left out) with its steps, oldest first. 404 GAME_NOT_FOUND, ORDER_NOT_FOUND.",
		Errors:      []int{http.StatusNotFound},
	}, tagPlayers, members.Viewer), a.getOrder)
}

func (a *api) lookupPlayer(ctx context.Context, in *lookupInput) (*playerViewOutput, error) {
	g, err := gameID(in.GameID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	v, err := a.console.Player(ctx, principal(ctx), g, env(in.Environment), in.Ref)
	if err != nil {
		return nil, fail(ctx, err)
	}
	b := PlayerViewBody{Player: toPlayerBody(v.Player), Transactions: httpapi.Map(v.Transactions, toTransactionBody),
		TransactionsTotal: v.TransactionsTotal, Orders: httpapi.Map(v.Orders, toOrderBody), OrdersNext: v.OrdersNext,
		Funds: make([]FundBody, 0, len(v.Funds))}
	for _, f := range v.Funds {
		b.Funds = append(b.Funds, FundBody{CoinID: f.Coin.ID, CoinName: f.Coin.Name, Balance: f.Balance,
			LifetimeEarned: f.LifetimeEarned, LifetimeSpent: f.LifetimeSpent})
	}
	return &playerViewOutput{Body: b}, nil
}

// playerIDs parses the game and player ids of a path.
func playerIDs(game, player string) (uuid.UUID, uuid.UUID, error) {
	g, err := gameID(game)
	if err != nil {
		return g, uuid.Nil, err
	}
	p, err := httpapi.ParseID(player, players.ErrPlayerNotFound)
	return g, p, err
}

func (a *api) playerTransactions(ctx context.Context, in *transactionsInput) (*transactionsOutput, error) {
	g, id, err := playerIDs(in.GameID, in.PlayerID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	t, err := a.console.PlayerTransactions(ctx, principal(ctx), g, env(in.Environment), id, in.Limit, (in.Page-1)*in.Limit)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &transactionsOutput{Body: TransactionPageBody{Items: httpapi.Map(t.Transactions, toTransactionBody),
		Page: in.Page, Limit: in.Limit, Total: t.Total}}, nil
}

func (a *api) blockPlayer(ctx context.Context, in *playerPath) (*playerOutput, error) {
	g, id, err := playerIDs(in.GameID, in.PlayerID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	p, err := a.console.BlockPlayer(ctx, principal(ctx), g, env(in.Environment), id)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &playerOutput{Body: toPlayerBody(p)}, nil
}

func (a *api) unblockPlayer(ctx context.Context, in *playerPath) (*playerOutput, error) {
	g, id, err := playerIDs(in.GameID, in.PlayerID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	p, err := a.console.UnblockPlayer(ctx, principal(ctx), g, env(in.Environment), id)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &playerOutput{Body: toPlayerBody(p)}, nil
}

func (a *api) listOrders(ctx context.Context, in *ordersInput) (*ordersOutput, error) {
	g, err := gameID(in.GameID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	f := console.OrderFilter{Status: orders.Status(in.Status), Limit: in.Limit, Cursor: in.Cursor}
	if in.PlayerID != "" {
		id, err := uuid.Parse(in.PlayerID)
		if err != nil {
			// No player has an id that is not one: the list is empty.
			return &ordersOutput{Body: OrderPageBody{Orders: []OrderBody{}}}, nil
		}
		f.PlayerID = &id
	}
	if !in.From.IsZero() {
		f.From = &in.From
	}
	if !in.To.IsZero() {
		f.To = &in.To
	}
	page, err := a.console.Orders(ctx, principal(ctx), g, env(in.Environment), f)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &ordersOutput{Body: OrderPageBody{Orders: httpapi.Map(page.Orders, toOrderBody), Next: page.Next}}, nil
}

func (a *api) getOrder(ctx context.Context, in *orderPath) (*orderViewOutput, error) {
	g, err := gameID(in.GameID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	id, err := httpapi.ParseID(in.OrderID, orders.ErrOrderNotFound)
	if err != nil {
		return nil, fail(ctx, err)
	}
	v, err := a.console.Order(ctx, principal(ctx), g, env(in.Environment), id)
	if err != nil {
		return nil, fail(ctx, err)
	}
	b := OrderViewBody{Order: toOrderBody(v.Order), History: make([]TransitionBody, 0, len(v.History))}
	for _, t := range v.History {
		tb := TransitionBody{To: string(t.To), Reason: t.Reason, At: t.At}
		if t.From != nil {
			from := string(*t.From)
			tb.From = &from
		}
		b.History = append(b.History, tb)
	}
	return &orderViewOutput{Body: b}, nil
}
