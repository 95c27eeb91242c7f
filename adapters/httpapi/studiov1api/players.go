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
	"github.com/rewardsco/rewards/core/studio"
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
	GameEnvPath
	Ref string `query:"ref" required:"true" minLength:"1" maxLength:"128" doc:"The player's studio uuid, its player id, or its phone in E.164 (+919876543210)" example:"user-8812"`
}

type transactionsInput struct {
	PlayerPath
	Paging
}

type ordersInput struct {
	GameEnvPath
	Status   string    `query:"status" enum:"INITIATED,PROCESSING,PENDING_PAYMENT,SUCCESS,FAILED,TIMEOUT,REFUNDED" doc:"Only orders in this status"`
	PlayerID string    `query:"playerId" maxLength:"64" doc:"Only this player's orders (an id that is no player's lists none)"`
	From     time.Time `query:"from" doc:"Only orders placed at or after this time (RFC 3339)"`
	To       time.Time `query:"to" doc:"Only orders placed before this time (RFC 3339)"`
	Limit    int       `query:"limit" minimum:"1" maximum:"200" default:"50" doc:"Page size, at most 200"`
	Cursor   string    `query:"cursor" maxLength:"200" doc:"The next of the page before (400 CURSOR_INVALID for anything else)"`
}

func (a *api) registerPlayers() {
	g := a.group(tagPlayers)
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-lookup-player", http.MethodGet, "/studio/v1/games/{gameId}/players/{environment}",
		"Look a player up",
		"Finds the player of the game and environment by the studio's uuid, the player id or the phone (E.164), with its coin holdings, its newest 20 coin movements and its newest 20 orders (codes left out). 404 GAME_NOT_FOUND, PLAYER_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound), serve(a.lookupPlayer))
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-player-transactions", http.MethodGet, "/studio/v1/games/{gameId}/players/{environment}/{playerId}/transactions",
		"A player's coin movements",
		"A page of the player's coin movements of every coin, newest first. 404 GAME_NOT_FOUND, PLAYER_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound), serve(a.playerTransactions))
	changePlayer(g, "studio-block-player", http.MethodPost, "/studio/v1/games/{gameId}/players/{environment}/{playerId}/block",
		"Block a player",
		"Blocks the player: its tokens, OTP and federated sign-ins answer 403 PLAYER_DISABLED. Blocking a blocked player changes nothing. 404 GAME_NOT_FOUND, PLAYER_NOT_FOUND.",
		a.console.BlockPlayer)
	changePlayer(g, "studio-unblock-player", http.MethodPost, "/studio/v1/games/{gameId}/players/{environment}/{playerId}/unblock",
		"Unblock a player",
		"Lets a blocked player sign in again. 404 GAME_NOT_FOUND, PLAYER_NOT_FOUND.",
		a.console.UnblockPlayer)
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-list-orders", http.MethodGet, "/studio/v1/games/{gameId}/orders/{environment}",
		"A game's orders",
		"Store and partner orders of the game and environment, newest first, filtered by status, player and time (`from` inclusive, `to` exclusive; from must be before to, else 400 VALIDATION_FAILED). Codes and PINs are never shown: a studio sees that codes were delivered, with their provider ids, values and expiries. Continue with `cursor` = the `next` of the page before (400 CURSOR_INVALID otherwise). 404 GAME_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound), serve(a.listOrders))
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-get-order", http.MethodGet, "/studio/v1/games/{gameId}/orders/{environment}/{orderId}",
		"An order with its history",
		"One order of the game and environment (codes left out) with its steps, oldest first. 404 GAME_NOT_FOUND, ORDER_NOT_FOUND.",
		http.StatusNotFound), serve(a.getOrder))
}

func (a *api) lookupPlayer(ctx context.Context, s scope, in *lookupInput) (PlayerViewBody, error) {
	v, err := a.console.Player(ctx, s.p, s.game, s.env, in.Ref)
	if err != nil {
		return PlayerViewBody{}, err
	}
	b := PlayerViewBody{Player: toPlayerBody(v.Player), Transactions: httpapi.Map(v.Transactions, toTransactionBody),
		TransactionsTotal: v.TransactionsTotal, Orders: httpapi.Map(v.Orders, toOrderBody), OrdersNext: v.OrdersNext,
		Funds: make([]FundBody, 0, len(v.Funds))}
	for _, f := range v.Funds {
		b.Funds = append(b.Funds, FundBody{CoinID: f.Coin.ID, CoinName: f.Coin.Name, Balance: f.Balance,
			LifetimeEarned: f.LifetimeEarned, LifetimeSpent: f.LifetimeSpent})
	}
	return b, nil
}

func (a *api) playerTransactions(ctx context.Context, s scope, in *transactionsInput) (TransactionPageBody, error) {
	t, err := a.console.PlayerTransactions(ctx, s.p, s.game, s.env, s.id, in.Limit, in.offset())
	return TransactionPageBody{Items: httpapi.Map(t.Transactions, toTransactionBody), Page: in.Page, Limit: in.Limit, Total: t.Total}, err
}

// changePlayer registers an operation that changes the player of the path, for a DEVELOPER, and
// answers the player.
func changePlayer(g group, id, method, path, summary, description string,
	change func(context.Context, members.Principal, uuid.UUID, studio.Environment, uuid.UUID) (players.Player, error)) {
	huma.Register(g.a.s.StudioAPI, g.op(members.Developer, id, method, path, summary, description, http.StatusNotFound),
		serve(func(ctx context.Context, s scope, _ *PlayerPath) (PlayerBody, error) {
			p, err := change(ctx, s.p, s.game, s.env, s.id)
			return toPlayerBody(p), err
		}))
}

func (a *api) listOrders(ctx context.Context, s scope, in *ordersInput) (OrderPageBody, error) {
	f := console.OrderFilter{Status: orders.Status(in.Status), Limit: in.Limit, Cursor: in.Cursor}
	if in.PlayerID != "" {
		id, err := uuid.Parse(in.PlayerID)
		if err != nil {
			// No player has an id that is not one: the list is empty.
			return OrderPageBody{Orders: []OrderBody{}}, nil
		}
		f.PlayerID = &id
	}
	if !in.From.IsZero() {
		f.From = &in.From
	}
	if !in.To.IsZero() {
		f.To = &in.To
	}
	page, err := a.console.Orders(ctx, s.p, s.game, s.env, f)
	return OrderPageBody{Orders: httpapi.Map(page.Orders, toOrderBody), Next: page.Next}, err
}

func (a *api) getOrder(ctx context.Context, s scope, _ *orderPath) (OrderViewBody, error) {
	v, err := a.console.Order(ctx, s.p, s.game, s.env, s.id)
	if err != nil {
		return OrderViewBody{}, err
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
	return b, nil
}
