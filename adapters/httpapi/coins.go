package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/idempotency"
)

type coinsOutput struct{ Body []CoinBody }

func (a *handlers) registerCoins() {
	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "list-coins",
		Method:      http.MethodGet,
		Path:        "/coins",
		Summary:     "List the game's coins",
		Description: "Every coin of the game that owns the API key, oldest first.",
		Tags:        []string{tagCoins},
	}), func(ctx context.Context, _ *struct{}) (*coinsOutput, error) {
		list, err := a.Coins.ListCoins(ctx, callerFrom(ctx).GameID)
		if err != nil {
			return nil, coinsError(ctx, err)
		}
		out := &coinsOutput{Body: make([]CoinBody, len(list))}
		for i, c := range list {
			out.Body[i] = toCoinBody(c)
		}
		return out, nil
	})
}

// coinsError maps the coins module's errors to responses.
func coinsError(ctx context.Context, err error) *APIError {
	switch {
	case errors.Is(err, coins.ErrCoinNotFound):
		return newAPIError(ctx, http.StatusNotFound, "COIN_NOT_FOUND", err.Error())
	case errors.Is(err, coins.ErrNoCoins):
		return newAPIError(ctx, http.StatusNotFound, "NO_COINS", err.Error())
	case errors.Is(err, coins.ErrInsufficientBalance):
		return newAPIError(ctx, http.StatusBadRequest, "INSUFFICIENT_BALANCE", "insufficient balance for this deduction")
	case errors.Is(err, coins.ErrInvalid):
		return newAPIError(ctx, http.StatusBadRequest, "VALIDATION_FAILED", err.Error())
	case errors.Is(err, idempotency.ErrKeyReused):
		return newAPIError(ctx, http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED", err.Error())
	case errors.Is(err, idempotency.ErrInProgress):
		return newAPIError(ctx, http.StatusConflict, "IDEMPOTENCY_IN_PROGRESS", idempotency.ErrInProgress.Error())
	default:
		return internal(ctx, err)
	}
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

// TransactionPage is a page of journal entries.
type TransactionPage struct {
	Items []TransactionBody `json:"items" doc:"Entries, newest first"`
	Page  int               `json:"page" doc:"Page number, from 1"`
	Limit int               `json:"limit" doc:"Page size"`
	Total int64             `json:"total" doc:"Entries in all"`
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

// CoinsHistoryBody is CoinsHistoryResponseDto.
type CoinsHistoryBody struct {
	Summary struct {
		CurrentBalance  int64   `json:"currentBalance" doc:"Current balance of the coin"`
		LifetimeEarning int64   `json:"lifetimeEarning" doc:"Coins ever credited"`
		LifetimeSpends  int64   `json:"lifetimeSpends" doc:"Coins ever debited"`
		Savings         float64 `json:"savings" doc:"Money value of rewards bought with this coin, in the deployment currency"`
	} `json:"summary"`
	Transactions TransactionPage `json:"transactions"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toTransactionBody(t coins.Transaction) TransactionBody {
	return TransactionBody{ID: t.ID, CoinID: t.CoinID, Type: string(t.Type), Amount: t.Amount, BalanceAfter: t.BalanceAfter,
		Reason: t.Reason, ReferenceID: optional(t.ReferenceID), Description: optional(t.Description), CreatedAt: t.CreatedAt}
}

// coinDistributionBody is CoinDistributionDto.
type coinDistributionBody struct {
	Amount      int64          `json:"amount" minimum:"1" maximum:"1000000000" doc:"Whole coins, 1 to 1,000,000,000" example:"50"`
	Reason      string         `json:"reason,omitempty" pattern:"^[A-Z][A-Z0-9_]{0,63}$" doc:"UPPER_SNAKE_CASE reason; defaults to GAME_CREDIT or GAME_DEBIT" example:"LEVEL_COMPLETE"`
	ReferenceID string         `json:"referenceId,omitempty" maxLength:"128" doc:"The studio's reference" example:"match-7781"`
	Description string         `json:"description,omitempty" maxLength:"256" doc:"Free text"`
	Metadata    map[string]any `json:"metadata,omitempty" doc:"Any JSON object, kept with the entry"`
}

type coinMoveInput struct {
	CoinID         string `path:"coinId" format:"uuid" doc:"Coin id"`
	IdempotencyKey string `header:"x-idempotency-key" maxLength:"255" doc:"Optional, 1 to 255 characters: the same key with the same body replays the first answer (x-idempotent-replay: true); with another body 422 IDEMPOTENCY_KEY_REUSED; while the first is running 409 IDEMPOTENCY_IN_PROGRESS. Kept 24 hours, per player."`
	GameUUID       string `header:"x-game-uuid" maxLength:"128" doc:"Optional: the player's studio uuid; must match the token's player"`
	Body           coinDistributionBody
}

type coinMoveOutput struct {
	Replay string `header:"x-idempotent-replay" doc:"true when this answer replays an earlier request with the same idempotency key"`
	Body   CoinMovementBody
}

type transactionsInput struct {
	Limit    int    `query:"limit" minimum:"1" maximum:"100" default:"10" doc:"Page size, at most 100"`
	Page     int    `query:"page" minimum:"1" maximum:"1000000" default:"1" doc:"Page number, from 1"`
	Language string `header:"x-language" required:"true" pattern:"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$" doc:"Language code, e.g. en" example:"en"`
}

type historyInput struct {
	CoinID string `query:"coinId" format:"uuid" doc:"Coin; default the game's first coin"`
	Limit  int    `query:"limit" minimum:"1" maximum:"100" default:"10" doc:"Page size, at most 100"`
	Page   int    `query:"page" minimum:"1" maximum:"1000000" default:"1" doc:"Page number, from 1"`
}

func (a *handlers) registerLedger() {
	tags := []string{tagCoins}
	move := func(debit bool) func(ctx context.Context, in *coinMoveInput) (*coinMoveOutput, error) {
		return func(ctx context.Context, in *coinMoveInput) (*coinMoveOutput, error) {
			c, p := callerFrom(ctx), playerFrom(ctx)
			m := coins.Movement{
				GameID: c.GameID, Environment: c.Environment, PlayerID: p.ID, UserUUID: p.StudioRef(),
				CoinID: uuid.MustParse(in.CoinID), Amount: in.Body.Amount, Reason: in.Body.Reason,
				ReferenceID: in.Body.ReferenceID, Description: in.Body.Description, IdempotencyKey: in.IdempotencyKey,
			}
			if in.Body.Metadata != nil {
				m.Metadata, _ = json.Marshal(in.Body.Metadata)
			}
			if m.IdempotencyKey != "" {
				body, _ := json.Marshal(in.Body)
				op := "distribute"
				if debit {
					op = "deduct"
				}
				m.RequestHash = idempotency.HashRequest([]byte(op), []byte(in.CoinID), body)
			}
			var t coins.Transaction
			var replayed bool
			var err error
			if debit {
				t, replayed, err = a.Coins.Deduct(ctx, m)
			} else {
				t, replayed, err = a.Coins.Distribute(ctx, m)
			}
			out := &coinMoveOutput{}
			if replayed {
				out.Replay = "true"
			}
			if err != nil {
				e := coinsError(ctx, err)
				if replayed {
					e = e.WithHeader("x-idempotent-replay", "true")
				}
				return nil, e
			}
			out.Body = CoinMovementBody{TransactionID: t.ID, CoinID: t.CoinID, PlayerID: t.PlayerID, UUID: p.UUID,
				Type: string(t.Type), Amount: t.Amount, Balance: t.BalanceAfter, Reason: t.Reason,
				ReferenceID: optional(t.ReferenceID), CreatedAt: t.CreatedAt}
			return out, nil
		}
	}
	huma.Register(a.api, a.playerOperation(huma.Operation{
		OperationID:   "coins-distribute",
		Method:        http.MethodPost,
		Path:          "/coins/{coinId}/distribute",
		Summary:       "Credit coins to the player",
		Description:   "Credits the token's player. The balance, a journal entry and the COINS_CREDITED event for webhooks are written in one transaction. 404 COIN_NOT_FOUND for a coin of another game. With x-idempotency-key the credit happens at most once.",
		Tags:          tags,
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}), move(false))
	huma.Register(a.api, a.playerOperation(huma.Operation{
		OperationID:   "coins-deduct",
		Method:        http.MethodPost,
		Path:          "/coins/{coinId}/deduct",
		Summary:       "Debit coins from the player",
		Description:   "Debits the token's player in one conditional update: a balance never goes below zero, under any concurrency; 400 INSUFFICIENT_BALANCE otherwise. The balance, a journal entry and the COINS_DEBITED event are written in one transaction. With x-idempotency-key the debit happens at most once (a refusal is replayed too).",
		Tags:          tags,
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}), move(true))

	huma.Register(a.api, a.playerOperation(huma.Operation{
		OperationID: "player-funds",
		Method:      http.MethodGet,
		Path:        "/player/funds",
		Summary:     "The player's balances",
		Description: "Every coin of the game with the player's balance, lifetime earned and lifetime spent (zero where it has none).",
		Tags:        []string{tagPlayer},
	}), func(ctx context.Context, _ *gameUUIDHeader) (*struct{ Body []WalletBody }, error) {
		funds, err := a.Coins.Funds(ctx, callerFrom(ctx).GameID, playerFrom(ctx).ID)
		if err != nil {
			return nil, coinsError(ctx, err)
		}
		out := &struct{ Body []WalletBody }{Body: make([]WalletBody, len(funds))}
		for i, f := range funds {
			out.Body[i] = WalletBody{CoinID: f.Coin.ID, CoinName: f.Coin.Name, CoinImageURL: f.Coin.ImageURL,
				Balance: f.Balance, LifetimeEarned: f.LifetimeEarned, LifetimeSpent: f.LifetimeSpent}
		}
		return out, nil
	})

	huma.Register(a.api, a.playerOperation(huma.Operation{
		OperationID: "player-transactions",
		Method:      http.MethodGet,
		Path:        "/player/transactions",
		Summary:     "The player's coin transactions",
		Description: "The journal over every coin, newest first, paginated (`limit` default 10, at most 100; `page` from 1). x-language is required.",
		Tags:        []string{tagPlayer},
		Errors:      []int{http.StatusBadRequest},
	}), func(ctx context.Context, in *transactionsInput) (*struct{ Body TransactionPage }, error) {
		list, total, err := a.Coins.Transactions(ctx, playerFrom(ctx).ID, in.Limit, (in.Page-1)*in.Limit)
		if err != nil {
			return nil, coinsError(ctx, err)
		}
		return &struct{ Body TransactionPage }{Body: toPage(list, total, in.Page, in.Limit)}, nil
	})

	huma.Register(a.api, a.playerOperation(huma.Operation{
		OperationID: "player-coins-history",
		Method:      http.MethodGet,
		Path:        "/player/coins-history",
		Summary:     "The player's history of one coin",
		Description: "A summary (current balance, lifetime earning and spends, savings: the money value of rewards bought with the coin in the deployment currency) and the coin's journal, newest first, paginated. `coinId` defaults to the game's first coin; 404 COIN_NOT_FOUND for another game's coin.",
		Tags:        []string{tagPlayer},
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound},
	}), func(ctx context.Context, in *historyInput) (*struct{ Body CoinsHistoryBody }, error) {
		var coinID *uuid.UUID
		if in.CoinID != "" {
			id := uuid.MustParse(in.CoinID)
			coinID = &id
		}
		h, err := a.Coins.History(ctx, callerFrom(ctx).GameID, playerFrom(ctx).ID, coinID, in.Limit, (in.Page-1)*in.Limit)
		if err != nil {
			return nil, coinsError(ctx, err)
		}
		var body CoinsHistoryBody
		body.Summary.CurrentBalance, body.Summary.LifetimeEarning, body.Summary.LifetimeSpends = h.CurrentBalance, h.LifetimeEarned, h.LifetimeSpent
		body.Summary.Savings, _ = strconv.ParseFloat(h.Savings, 64)
		body.Transactions = toPage(h.Transactions, h.Total, in.Page, in.Limit)
		return &struct{ Body CoinsHistoryBody }{Body: body}, nil
	})
}

func toPage(list []coins.Transaction, total int64, page, limit int) TransactionPage {
	p := TransactionPage{Items: make([]TransactionBody, len(list)), Page: page, Limit: limit, Total: total}
	for i, t := range list {
		p.Items[i] = toTransactionBody(t)
	}
	return p
}
