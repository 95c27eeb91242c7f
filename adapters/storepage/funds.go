package storepage

import (
	"context"

	"github.com/google/uuid"
)

// fundView is the store's coin (the game's first) and the player's holding of it.
type fundView struct {
	id      uuid.UUID
	name    string
	balance int64
}

func (p *Pages) fund(ctx context.Context, s shopper) (fundView, error) {
	funds, err := p.cfg.Wallet.Funds(ctx, s.Player.GameID, s.Player.ID)
	if err != nil {
		return fundView{}, err
	}
	if len(funds) == 0 {
		return fundView{}, errNoCoin
	}
	f := funds[0]
	return fundView{id: f.Coin.ID, name: f.Coin.Name, balance: f.Balance}, nil
}
