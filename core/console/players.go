package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// Player looks a player of the game's env up by ref: the studio's uuid for it, the player's id,
// or its phone in E.164 (+919876543210). It returns the player with its balances, its newest
// transactions and orders, or players.ErrPlayerNotFound.
func (s *Service) Player(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment, ref string) (PlayerView, error) {
	if err := s.readEnv(ctx, p, gameID, env); err != nil {
		return PlayerView{}, err
	}
	pl, err := s.d.Players.Lookup(ctx, players.Scope{GameID: gameID, Environment: env}, ref)
	if err != nil {
		return PlayerView{}, err
	}
	v := PlayerView{Player: pl}
	if v.Funds, err = s.d.Coins.Funds(ctx, gameID, pl.ID); err != nil {
		return PlayerView{}, err
	}
	if v.Transactions, v.TransactionsTotal, err = s.d.Coins.Transactions(ctx, pl.ID, PlayerPage, 0); err != nil {
		return PlayerView{}, err
	}
	page, err := s.orders(ctx, gameID, env, OrderFilter{PlayerID: &pl.ID, Limit: PlayerPage})
	if err != nil {
		return PlayerView{}, err
	}
	v.Orders, v.OrdersNext = page.Orders, page.Next
	return v, nil
}

// PlayerTransactions returns a page of a player's movements of every coin, newest first, and
// their total (limit 1 to 200, default 50).
func (s *Service) PlayerTransactions(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment,
	playerID uuid.UUID, limit, offset int) (PlayerTransactions, error) {
	if err := s.readEnv(ctx, p, gameID, env); err != nil {
		return PlayerTransactions{}, err
	}
	if _, err := s.d.Players.Lookup(ctx, players.Scope{GameID: gameID, Environment: env}, playerID.String()); err != nil {
		return PlayerTransactions{}, err
	}
	limit, offset = pageBounds(limit, offset)
	list, total, err := s.d.Coins.Transactions(ctx, playerID, limit, offset)
	return PlayerTransactions{Transactions: list, Total: total}, err
}

// BlockPlayer blocks a player of the game's env: its tokens, logins and store session stop
// working (on this instance at once, on others within a second). Blocking a blocked player
// changes nothing but is recorded again.
func (s *Service) BlockPlayer(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment, playerID uuid.UUID) (players.Player, error) {
	return s.setBlocked(ctx, p, gameID, env, playerID, true)
}

// UnblockPlayer lets a blocked player of the game's env use the service again.
func (s *Service) UnblockPlayer(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment, playerID uuid.UUID) (players.Player, error) {
	return s.setBlocked(ctx, p, gameID, env, playerID, false)
}

func (s *Service) setBlocked(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment, playerID uuid.UUID, blocked bool) (players.Player, error) {
	ctx, err := s.changeEnv(ctx, p, gameID, env)
	if err != nil {
		return players.Player{}, err
	}
	action := "player.unblock"
	if blocked {
		action = "player.block"
	}
	e := audit.Entry{StudioID: p.StudioID, GameID: &gameID, Action: action, TargetType: "player",
		TargetID: playerID.String(), Environment: string(env)}
	var out players.Player
	err = s.d.Audit.Change(ctx, e, func(tx store.Tx) error {
		var err error
		out, err = s.d.Store.WithTx(tx).SetPlayerBlocked(ctx, players.Scope{GameID: gameID, Environment: env}, playerID, blocked)
		return err
	})
	s.d.Players.Forget(playerID)
	return out, err
}
