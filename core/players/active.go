package players

import (
	"context"

	"github.com/google/uuid"
)

// Active returns the player of scope s that may still use the service: ErrPlayerNotFound when
// there is none, ErrPlayerDisabled when it is blocked or deleted its account. It answers from
// the players this instance looked up in the last authcache.TTL, as Authenticate does.
func (s *Service) Active(ctx context.Context, sc Scope, id uuid.UUID) (Player, error) {
	p, err := s.player(ctx, sc, id)
	if err != nil {
		return Player{}, err
	}
	if p.IsBlocked {
		return Player{}, ErrPlayerDisabled
	}
	return p, nil
}
