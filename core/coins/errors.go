package coins

import "errors"

var (
	// ErrCoinNotFound means the coin does not exist or belongs to another game.
	ErrCoinNotFound = errors.New("coin not found")
	// ErrNoCoins means the game has no coin yet.
	ErrNoCoins = errors.New("the game has no coins")
	// ErrInsufficientBalance means a debit would take the balance below zero.
	ErrInsufficientBalance = errors.New("insufficient balance")
	// ErrInvalid wraps a rule broken by the caller's input.
	ErrInvalid = errors.New("invalid input")
)

// replayable are the business errors whose outcome an idempotency key keeps, by stable code.
var replayable = map[string]error{
	"COIN_NOT_FOUND":       ErrCoinNotFound,
	"INSUFFICIENT_BALANCE": ErrInsufficientBalance,
}

func replayCode(err error) string {
	for code, e := range replayable {
		if errors.Is(err, e) {
			return code
		}
	}
	return ""
}
