package postgres

import (
	"context"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// CoinBatchCounts returns how many batches of two movements or more the coins store s sent, how
// many movements they held, and how many of the batches did not commit.
func CoinBatchCounts(s store.Of[coins.Repo]) (batches, batched, failed int64) {
	h := s.Repo().(*CoinsRepo).hot
	return h.batches.Load(), h.batched.Load(), h.failed.Load()
}

// CoinLine reports whether a movement of the line of the player's coin is running on s, and how
// many wait in it.
func CoinLine(s store.Of[coins.Repo], playerID, coinID uuid.UUID) (running bool, queued int) {
	h := s.Repo().(*CoinsRepo).hot
	return h.line(h.keyOf(playerID, coinID))
}

// SameCoinLine reports whether the balances of two players' coin queue in the same line.
func SameCoinLine(s store.Of[coins.Repo], player, other, coin uuid.UUID) bool {
	h := s.Repo().(*CoinsRepo).hot
	return h.keyOf(player, coin) == h.keyOf(other, coin)
}

// SetCoinBatchHook makes s call f with a batch's size once it is taken, before it is sent; set
// it before any movement runs.
func SetCoinBatchHook(s store.Of[coins.Repo], f func(n int)) {
	s.Repo().(*CoinsRepo).hot.beforeSend = f
}

// WalletTurnCounts returns how many turns of two orders or more d placed in one transaction, how
// many orders they held, how many of their transactions did not commit, and how many orders
// were left out of a turn because the balance read did not cover them.
func WalletTurnCounts(d *DB) (batches, batched, failed, short int64) {
	h := d.wallets
	return h.batches.Load(), h.batched.Load(), h.failed.Load(), h.short.Load()
}

// WalletLine reports whether an order of the wallet is running on d, and how many wait.
func WalletLine(d *DB, gameID uuid.UUID, env studio.Environment) (running bool, queued int) {
	return d.wallets.line(walletKey{gameID, env})
}

// SetWalletTurnHook makes d call f with a turn's size once it is taken, before its transaction
// begins; set it before any order runs.
func SetWalletTurnHook(d *DB, f func(n int)) { d.wallets.beforeSend = f }

// QueueMovement is the coins repository r's queued movement (queueMovement), which orders'
// Charge makes with the take of a coupon's codes.
func QueueMovement(ctx context.Context, r coins.Repo, m coins.Movement, typ coins.TxType, event coins.EventType) func(context.Context) (coins.Transaction, error) {
	return r.(*CoinsRepo).queueMovement(ctx, m, typ, event)
}
