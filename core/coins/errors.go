package coins

import "github.com/rewardsco/rewards/core/errs"

var (
	// ErrCoinNotFound means the coin does not exist or belongs to another game.
	ErrCoinNotFound = errs.New(errs.NotFound, "COIN_NOT_FOUND", "coin not found")
	// ErrNoCoins means the game has no coin yet.
	ErrNoCoins = errs.New(errs.NotFound, "NO_COINS", "the game has no coins")
	// ErrInsufficientBalance means a debit would take the balance below zero.
	ErrInsufficientBalance = errs.New(errs.Invalid, "INSUFFICIENT_BALANCE", "insufficient balance for this deduction")
)
