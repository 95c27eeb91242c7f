// Package coinsapi serves the coins module: the game's coins, distribute and deduct, the
// player's balances and journal, and the operator's coin creation.
package coinsapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/studio"
)

// Tags of the coins operations on the docs page.
const (
	tagCoins  = "Coins"
	tagPlayer = "Player"
)

// CoinBody is a coin as every API shows it.
type CoinBody struct {
	ID   uuid.UUID `json:"id" doc:"Coin id (coinId)"`
	Name string    `json:"name" doc:"Coin name" example:"Gems"`
	URL  string    `json:"url" doc:"Coin image address" example:"https://cdn.example.com/gem.png"`
}

// CoinMovementBody is the answer of distribute and deduct.
type CoinMovementBody struct {
	TransactionID uuid.UUID `json:"transactionId" doc:"Journal entry id"`
	CoinID        uuid.UUID `json:"coinId" doc:"Coin id"`
	PlayerID      uuid.UUID `json:"playerId" doc:"Player id"`
	UUID          *string   `json:"uuid" doc:"The player's studio uuid, or null"`
	Type          string    `json:"type" enum:"CREDIT,DEBIT" doc:"Direction"`
	Amount        int64     `json:"amount" doc:"Coins moved" example:"50"`
	Balance       int64     `json:"balance" doc:"Balance after the movement" example:"150"`
	Reason        string    `json:"reason" doc:"Reason recorded" example:"GAME_CREDIT"`
	ReferenceID   *string   `json:"referenceId" doc:"The studio's reference, or null"`
	CreatedAt     time.Time `json:"createdAt" doc:"When it happened"`
}

// TransactionBody is one journal entry.
type TransactionBody struct {
	ID           uuid.UUID `json:"id" doc:"Journal entry id"`
	CoinID       uuid.UUID `json:"coinId" doc:"Coin id"`
	Type         string    `json:"type" enum:"CREDIT,DEBIT" doc:"Direction"`
	Amount       int64     `json:"amount" doc:"Coins moved"`
	BalanceAfter int64     `json:"balanceAfter" doc:"Balance after this entry"`
	Reason       string    `json:"reason" doc:"Reason"`
	ReferenceID  *string   `json:"referenceId" doc:"Reference, or null"`
	Description  *string   `json:"description" doc:"Description, or null"`
	CreatedAt    time.Time `json:"createdAt" doc:"When it happened"`
}

// WalletBody is WalletResponseDTO: the player's holding of one coin.
type WalletBody struct {
	CoinID         uuid.UUID `json:"coinId" doc:"Coin id"`
	CoinName       string    `json:"coinName" doc:"Coin name"`
	CoinImageURL   string    `json:"coinImageUrl" doc:"Coin image address"`
	Balance        int64     `json:"balance" doc:"Current balance"`
	LifetimeEarned int64     `json:"lifetimeEarned" doc:"Coins ever credited"`
	LifetimeSpent  int64     `json:"lifetimeSpent" doc:"Coins ever debited"`
}

// HistorySummaryBody sums up a player's holding of one coin.
type HistorySummaryBody struct {
	CurrentBalance  int64   `json:"currentBalance" doc:"Current balance of the coin"`
	LifetimeEarning int64   `json:"lifetimeEarning" doc:"Coins ever credited"`
	LifetimeSpends  int64   `json:"lifetimeSpends" doc:"Coins ever debited"`
	Savings         float64 `json:"savings" doc:"Money value of rewards bought with this coin, in the deployment currency"`
}

// CoinsHistoryBody is CoinsHistoryResponseDto.
type CoinsHistoryBody struct {
	Summary      HistorySummaryBody            `json:"summary"`
	Transactions httpapi.Page[TransactionBody] `json:"transactions"`
}

// PlayerGameBody describes the game that owns the key.
type PlayerGameBody struct {
	ID          uuid.UUID  `json:"id" doc:"Game id"`
	StudioID    uuid.UUID  `json:"studioId" doc:"Owning studio"`
	Name        string     `json:"name" doc:"Game name"`
	StoreURL    string     `json:"storeUrl" doc:"Base address of the game's store"`
	Environment string     `json:"environment" doc:"live or test, from the host called" example:"test"`
	Currency    string     `json:"currency" doc:"Deployment currency" example:"INR"`
	Coins       []CoinBody `json:"coins" doc:"The game's coins"`
}

// AdminCoinBody is a coin as the operator API shows it: with its value.
type AdminCoinBody struct {
	CoinBody
	CoinsPerUnit int64 `json:"coinsPerUnit" doc:"Coins worth one unit of the deployment currency; coin prices are ceil(selling price × coinsPerUnit)" example:"10"`
}

func toCoinBody(c coins.Coin) CoinBody { return CoinBody{ID: c.ID, Name: c.Name, URL: c.ImageURL} }

func toAdminCoinBody(c coins.Coin) AdminCoinBody {
	return AdminCoinBody{CoinBody: toCoinBody(c), CoinsPerUnit: c.CoinsPerUnit}
}

func toMovementBody(t coins.Transaction, playerUUID *string) CoinMovementBody {
	return CoinMovementBody{TransactionID: t.ID, CoinID: t.CoinID, PlayerID: t.PlayerID, UUID: playerUUID,
		Type: string(t.Type), Amount: t.Amount, Balance: t.BalanceAfter, Reason: t.Reason,
		ReferenceID: httpapi.Optional(t.ReferenceID), CreatedAt: t.CreatedAt}
}

func toTransactionBody(t coins.Transaction) TransactionBody {
	return TransactionBody{ID: t.ID, CoinID: t.CoinID, Type: string(t.Type), Amount: t.Amount, BalanceAfter: t.BalanceAfter,
		Reason: t.Reason, ReferenceID: httpapi.Optional(t.ReferenceID), Description: httpapi.Optional(t.Description), CreatedAt: t.CreatedAt}
}

func toWalletBody(f coins.Fund) WalletBody {
	return WalletBody{CoinID: f.Coin.ID, CoinName: f.Coin.Name, CoinImageURL: f.Coin.ImageURL,
		Balance: f.Balance, LifetimeEarned: f.LifetimeEarned, LifetimeSpent: f.LifetimeSpent}
}

func toHistoryBody(h coins.History, q httpapi.PageQuery) CoinsHistoryBody {
	savings, _ := strconv.ParseFloat(h.Savings, 64)
	return CoinsHistoryBody{
		Summary: HistorySummaryBody{CurrentBalance: h.CurrentBalance, LifetimeEarning: h.LifetimeEarned,
			LifetimeSpends: h.LifetimeSpent, Savings: savings},
		Transactions: httpapi.PageOf(q, h.Transactions, h.Total, toTransactionBody),
	}
}

// coinDistributionBody is CoinDistributionDto.
type coinDistributionBody struct {
	Amount      int64          `json:"amount" minimum:"1" maximum:"1000000000" doc:"Whole coins, 1 to 1,000,000,000" example:"50"`
	Reason      string         `json:"reason,omitempty" pattern:"^[A-Z][A-Z0-9_]{0,63}$" doc:"UPPER_SNAKE_CASE reason; defaults to GAME_CREDIT or GAME_DEBIT" example:"LEVEL_COMPLETE"`
	ReferenceID string         `json:"referenceId,omitempty" maxLength:"128" doc:"The studio's reference" example:"match-7781"`
	Description string         `json:"description,omitempty" maxLength:"256" doc:"Free text"`
	Metadata    map[string]any `json:"metadata,omitempty" doc:"Any JSON object, at most 4 KiB as JSON, kept with the entry"`
}

type coinMoveInput struct {
	CoinID         string `path:"coinId" doc:"Coin id"`
	IdempotencyKey string `header:"X-Idempotency-Key" maxLength:"255" doc:"Optional, 1 to 255 characters: the same key with the same body replays the first answer (x-idempotent-replay: true); with another body 422 IDEMPOTENCY_KEY_REUSED; while the first is running 409 IDEMPOTENCY_IN_PROGRESS. Kept 24 hours, per player."`
	httpapi.GameUUIDHeader
	Body coinDistributionBody
}

type coinMoveOutput struct {
	Replay string `header:"X-Idempotent-Replay" doc:"true when this answer replays an earlier request with the same idempotency key"`
	Body   CoinMovementBody
}

type transactionsInput struct {
	httpapi.PageQuery
	Language string `header:"X-Language" required:"true" pattern:"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$" doc:"Language code, e.g. en" example:"en"`
}

type historyInput struct {
	CoinID string `query:"coinId" doc:"Coin; default the game's first coin"`
	httpapi.PageQuery
}

type createCoinInput struct {
	GameID string `path:"gameId" doc:"Game id"`
	Body   struct {
		Name         string `json:"name" minLength:"1" maxLength:"100" doc:"Coin name" example:"Gems"`
		ImageURL     string `json:"imageUrl" format:"uri" doc:"Coin image address, at most 2,048 characters" example:"https://cdn.example.com/gem.png"`
		CoinsPerUnit int64  `json:"coinsPerUnit,omitempty" minimum:"1" maximum:"1000000" doc:"Coins worth one unit of the deployment currency (default 10)" example:"10"`
	}
}

type setCoinValueInput struct {
	CoinID string `path:"coinId" doc:"Coin id"`
	Body   struct {
		CoinsPerUnit int64 `json:"coinsPerUnit" minimum:"1" maximum:"1000000" doc:"Coins worth one unit of the deployment currency" example:"10"`
	}
}

type (
	coinOutput         = httpapi.Output[AdminCoinBody]
	coinsOutput        = httpapi.Output[[]CoinBody]
	fundsOutput        = httpapi.Output[[]WalletBody]
	transactionsOutput = httpapi.Output[httpapi.Page[TransactionBody]]
	historyOutput      = httpapi.Output[CoinsHistoryBody]
	playerGameOutput   = httpapi.Output[PlayerGameBody]
)

// serverOnlyNote tells distribute and deduct callers about the game's serverOnlyCoinMovements.
const serverOnlyNote = "The API key ships inside game clients, so a game may keep coin movements on its own servers: " +
	"with the game's `serverOnlyCoinMovements` setting on (operator API, default off), this call also needs header `x-api-secret` " +
	"with the game's server secret of the environment (rks_live_… or rks_test_…), else 403 SERVER_SECRET_REQUIRED. " +
	"Never put the server secret in a game client."

// handlers serve the coins operations: decode, one core call, encode.
type handlers struct {
	svc      *coins.Service
	currency string
}

// Register adds the coins module's operations to s; currency is the deployment currency.
func Register(s *httpapi.Server, svc *coins.Service, currency string) {
	h := handlers{svc: svc, currency: currency}
	s.AddTag(tagCoins, "The game's coins and the players' balances.")
	// The order of these calls is the order of the operations in the OpenAPI document.
	registerCoins(s, h)
	registerPlayer(s, h)
	registerOperator(s, h)
}

// registerCoins adds the game's coin list and the distribute and deduct movements.
func registerCoins(s *httpapi.Server, h handlers) {
	tags := []string{tagCoins}
	httpapi.Register(httpapi.Operations{API: s.API, Auth: s.APIKey, Tags: tags}, httpapi.Op("list-coins", http.MethodGet, "/coins", "List the game's coins",
		"Every coin of the game that owns the API key, oldest first."), h.listCoins)
	movements := httpapi.Operations{API: s.API, Auth: s.CoinMovementWith(s.Player), Tags: tags}
	httpapi.Register(movements, httpapi.WithStatus(http.StatusCreated, httpapi.Op("coins-distribute", http.MethodPost, "/coins/{coinId}/distribute", "Credit coins to the player",
		"Credits the token's player. The balance, a journal entry and the COINS_CREDITED event for webhooks are written in one transaction. 404 COIN_NOT_FOUND for a coin of another game (or an id that is no coin at all). With x-idempotency-key the credit happens at most once. "+
			"`metadata` is at most 4 KiB as JSON, and no text may contain a NUL character (400 VALIDATION_FAILED). "+
			serverOnlyNote,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity)), h.distribute)
	httpapi.Register(movements, httpapi.WithStatus(http.StatusCreated, httpapi.Op("coins-deduct", http.MethodPost, "/coins/{coinId}/deduct", "Debit coins from the player",
		"Debits the token's player in one conditional update: a balance never goes below zero, under any concurrency; 400 INSUFFICIENT_BALANCE otherwise. The balance, a journal entry and the COINS_DEBITED event are written in one transaction. 404 COIN_NOT_FOUND for a coin of another game. With x-idempotency-key the debit happens at most once (a refusal is replayed too). "+
			"`metadata` is at most 4 KiB as JSON, and no text may contain a NUL character (400 VALIDATION_FAILED). "+
			serverOnlyNote,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity)), h.deduct)
}

// registerPlayer adds the player's balances, journal, coin history and game.
func registerPlayer(s *httpapi.Server, h handlers) {
	tags := []string{tagPlayer}
	player := httpapi.Operations{API: s.API, Auth: s.Player, Tags: tags}
	httpapi.Register(player, httpapi.Op("player-funds", http.MethodGet, "/player/funds", "The player's balances",
		"Every coin of the game with the player's balance, lifetime earned and lifetime spent (zero where it has none)."), h.funds)
	httpapi.Register(player, httpapi.Op("player-transactions", http.MethodGet, "/player/transactions", "The player's coin transactions",
		"The journal over every coin, newest first, paginated (`limit` default 10, at most 100; `page` from 1). x-language is required.",
		http.StatusBadRequest), h.transactions)
	httpapi.Register(player, httpapi.Op("player-coins-history", http.MethodGet, "/player/coins-history", "The player's history of one coin",
		"A summary (current balance, lifetime earning and spends, savings: the money value of rewards bought with the coin in the deployment currency) and the coin's journal, newest first, paginated. `coinId` defaults to the game's first coin (404 NO_COINS when the game has none); 404 COIN_NOT_FOUND for another game's coin.",
		http.StatusBadRequest, http.StatusNotFound), h.history)
	httpapi.Register(httpapi.Operations{API: s.API, Auth: s.APIKey, Tags: tags}, httpapi.Op("player-game", http.MethodGet, "/player/game", "The game that owns the key",
		"The game of the API key, the environment of the host called, the deployment currency and the game's coins."), h.playerGame)
}

// registerOperator adds the operator's coin creation and valuation.
func registerOperator(s *httpapi.Server, h handlers) {
	ops := httpapi.Operations{API: s.OperatorAPI, Auth: s.Operator}
	httpapi.Register(ops, httpapi.WithStatus(http.StatusCreated, httpapi.Op("admin-create-coin", http.MethodPost, "/admin/v1/games/{gameId}/coins", "Create a coin for a game",
		"Defines a coin the game can give its players. Balances are kept per environment. `coinsPerUnit` (default 10) is what the coin is worth: coins per unit of the deployment currency. 404 GAME_NOT_FOUND for an unknown game.",
		http.StatusBadRequest, http.StatusNotFound)), h.createCoin)
	httpapi.Register(ops, httpapi.Op("admin-set-coin-value", http.MethodPatch, "/admin/v1/coins/{coinId}", "Set what a coin is worth",
		"Sets `coinsPerUnit`: coins worth one unit of the deployment currency. The coin price of a reward is ceil(selling price × coinsPerUnit) unless the game set its own; prices follow at once. 404 COIN_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound), h.setCoinValue)
}

func (h handlers) listCoins(ctx context.Context, _ *struct{}) (*coinsOutput, error) {
	list, err := h.svc.ListCoins(ctx, httpapi.CallerFrom(ctx).GameID)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &coinsOutput{Body: httpapi.Map(list, toCoinBody)}, nil
}

func (h handlers) distribute(ctx context.Context, in *coinMoveInput) (*coinMoveOutput, error) {
	return h.move(ctx, in, h.svc.Distribute)
}

func (h handlers) deduct(ctx context.Context, in *coinMoveInput) (*coinMoveOutput, error) {
	return h.move(ctx, in, h.svc.Deduct)
}

// move decodes a distribute or deduct, makes it, and marks a replayed answer (or refusal).
func (h handlers) move(ctx context.Context, in *coinMoveInput, do func(context.Context, coins.Movement) (coins.Transaction, bool, error)) (*coinMoveOutput, error) {
	coinID, err := httpapi.ParseID(in.CoinID, coins.ErrCoinNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	c, p := httpapi.CallerFrom(ctx), httpapi.PlayerFrom(ctx)
	m := coins.Movement{
		GameID: c.GameID, Environment: c.Environment, PlayerID: p.ID, UserUUID: p.StudioRef(),
		CoinID: coinID, Amount: in.Body.Amount, Reason: in.Body.Reason,
		ReferenceID: in.Body.ReferenceID, Description: in.Body.Description, IdempotencyKey: in.IdempotencyKey,
	}
	if in.Body.Metadata != nil {
		if m.Metadata, err = encodeMetadata(in.Body.Metadata); err != nil {
			return nil, httpapi.ValidationError(ctx, "body.metadata", "metadata must be a JSON object", nil)
		}
	}
	t, replayed, err := do(ctx, m)
	if err != nil {
		return nil, httpapi.IdempotentError(ctx, err, replayed)
	}
	out := &coinMoveOutput{Body: toMovementBody(t, p.UUID)}
	if replayed {
		out.Replay = "true"
	}
	return out, nil
}

func (h handlers) funds(ctx context.Context, _ *httpapi.GameUUIDHeader) (*fundsOutput, error) {
	funds, err := h.svc.Funds(ctx, httpapi.CallerFrom(ctx).GameID, httpapi.PlayerFrom(ctx).ID)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &fundsOutput{Body: httpapi.Map(funds, toWalletBody)}, nil
}

func (h handlers) transactions(ctx context.Context, in *transactionsInput) (*transactionsOutput, error) {
	list, total, err := h.svc.Transactions(ctx, httpapi.PlayerFrom(ctx).ID, in.Limit, in.Offset())
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &transactionsOutput{Body: httpapi.PageOf(in.PageQuery, list, total, toTransactionBody)}, nil
}

func (h handlers) history(ctx context.Context, in *historyInput) (*historyOutput, error) {
	var coinID *uuid.UUID
	if in.CoinID != "" {
		id, err := httpapi.ParseID(in.CoinID, coins.ErrCoinNotFound)
		if err != nil {
			return nil, httpapi.ErrorFrom(ctx, err)
		}
		coinID = &id
	}
	hist, err := h.svc.History(ctx, httpapi.CallerFrom(ctx).GameID, httpapi.PlayerFrom(ctx).ID, coinID, in.Limit, in.Offset())
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &historyOutput{Body: toHistoryBody(hist, in.PageQuery)}, nil
}

func (h handlers) playerGame(ctx context.Context, _ *struct{}) (*playerGameOutput, error) {
	c := httpapi.CallerFrom(ctx)
	g, list, err := h.svc.GameCoins(ctx, c.GameID)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &playerGameOutput{Body: PlayerGameBody{ID: g.ID, StudioID: g.StudioID, Name: g.Name, StoreURL: g.StoreURL,
		Environment: string(c.Environment), Currency: h.currency, Coins: httpapi.Map(list, toCoinBody)}}, nil
}

func (h handlers) createCoin(ctx context.Context, in *createCoinInput) (*coinOutput, error) {
	gameID, err := httpapi.ParseID(in.GameID, studio.ErrGameNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	c, err := h.svc.CreateCoin(ctx, coins.Coin{GameID: gameID, Name: in.Body.Name, ImageURL: in.Body.ImageURL, CoinsPerUnit: in.Body.CoinsPerUnit})
	return httpapi.Reply(ctx, c, err, toAdminCoinBody)
}

func (h handlers) setCoinValue(ctx context.Context, in *setCoinValueInput) (*coinOutput, error) {
	coinID, err := httpapi.ParseID(in.CoinID, coins.ErrCoinNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	c, err := h.svc.SetCoinsPerUnit(ctx, coinID, in.Body.CoinsPerUnit)
	return httpapi.Reply(ctx, c, err, toAdminCoinBody)
}

// encodeMetadata is the JSON the core keeps and measures (coins.MaxMetadataBytes): compact, and
// without encoding/json's escaping of <, > and &, which would count each as six bytes.
func encodeMetadata(m map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
