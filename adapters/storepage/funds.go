package storepage

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
)

// fundView is the store's coin (the game's first) and the player's holding of it.
type fundView struct {
	id      uuid.UUID
	name    string
	balance int64
}

// balanceTTL is how long a player's balance is shown from memory: a page after a purchase made
// here reads it again (buy drops it), a credit from the game's server shows within this time.
const balanceTTL = time.Second

// maxBalances bounds the balances kept; past it, the cache starts again empty.
const maxBalances = 100_000

type balanceEntry struct {
	f  fundView
	at time.Time
}

// balances keeps the players' store balances for balanceTTL.
type balances struct {
	mu sync.Mutex
	m  map[uuid.UUID]balanceEntry
}

func (b *balances) get(id uuid.UUID) (fundView, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.m[id]
	return e.f, ok && time.Since(e.at) < balanceTTL
}

func (b *balances) put(id uuid.UUID, f fundView) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.m) >= maxBalances {
		b.m = map[uuid.UUID]balanceEntry{}
	}
	b.m[id] = balanceEntry{f: f, at: time.Now()}
}

func (b *balances) drop(id uuid.UUID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, id)
}

func (p *Pages) fund(ctx context.Context, s shopper) (fundView, error) {
	if f, ok := p.balances.get(s.Player.ID); ok {
		return f, nil
	}
	funds, err := p.cfg.Wallet.Funds(ctx, s.Player.GameID, s.Player.ID)
	if err != nil {
		return fundView{}, err
	}
	if len(funds) == 0 {
		return fundView{}, errNoCoin
	}
	f := fundView{id: funds[0].Coin.ID, name: funds[0].Coin.Name, balance: funds[0].Balance}
	p.balances.put(s.Player.ID, f)
	return f, nil
}
