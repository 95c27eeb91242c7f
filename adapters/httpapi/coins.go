package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/rewardsco/rewards/core/coins"
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
func coinsError(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, coins.ErrCoinNotFound):
		return newAPIError(ctx, http.StatusNotFound, "COIN_NOT_FOUND", err.Error())
	case errors.Is(err, coins.ErrInvalid):
		return newAPIError(ctx, http.StatusBadRequest, "VALIDATION_FAILED", err.Error())
	default:
		return internal(ctx, err)
	}
}
