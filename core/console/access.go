package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/studio"
)

// The roles the console asks for: reads need a VIEWER, changes a DEVELOPER.
const (
	viewer    = members.Viewer
	developer = members.Developer
)

// read checks that p may read and that gameID is a game of p's studio, and returns the game.
func (s *Service) read(ctx context.Context, p members.Principal, gameID uuid.UUID) (studio.Game, error) {
	if err := p.Require(viewer); err != nil {
		return studio.Game{}, err
	}
	return s.game(ctx, p, gameID)
}

// change checks that p may change and that gameID is a game of p's studio, and returns the game
// and ctx naming p as the actor when it names nobody yet.
func (s *Service) change(ctx context.Context, p members.Principal, gameID uuid.UUID) (context.Context, studio.Game, error) {
	if err := p.Require(developer); err != nil {
		return ctx, studio.Game{}, err
	}
	g, err := s.game(ctx, p, gameID)
	return withActor(ctx, p), g, err
}

// readEnv is read for a view of one environment of the game, which must be live or test.
func (s *Service) readEnv(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment) error {
	if _, err := s.read(ctx, p, gameID); err != nil {
		return err
	}
	return validEnv(env)
}

// changeEnv is change for one environment of the game, which must be live or test.
func (s *Service) changeEnv(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment) (context.Context, error) {
	ctx, _, err := s.change(ctx, p, gameID)
	if err != nil {
		return ctx, err
	}
	return ctx, validEnv(env)
}

// game returns gameID when it is a game of p's studio, and studio.ErrGameNotFound otherwise:
// another studio's game is answered as one that does not exist.
func (s *Service) game(ctx context.Context, p members.Principal, gameID uuid.UUID) (studio.Game, error) {
	g, err := s.d.Studio.GetGame(ctx, gameID)
	if err != nil {
		return studio.Game{}, err
	}
	if g.StudioID != p.StudioID || p.StudioID == uuid.Nil {
		return studio.Game{}, studio.ErrGameNotFound
	}
	return g, nil
}

// withActor returns ctx naming p as the actor of the changes made with it, unless it names an
// actor already (the adapters set one with the client's address and user agent).
func withActor(ctx context.Context, p members.Principal) context.Context {
	if audit.ActorOf(ctx).Kind != audit.System {
		return ctx
	}
	return audit.WithActor(ctx, p.Actor("", ""))
}

// validEnv is the environment check of every method that takes one.
func validEnv(env studio.Environment) error {
	if !env.Valid() {
		return errInvalidEnv
	}
	return nil
}

// pageBounds is the page a wallet's or a player's list reads: limit 1 to 200, 50 when out of
// that range, and no negative offset.
func pageBounds(limit, offset int) (int, int) {
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	return limit, max(offset, 0)
}
