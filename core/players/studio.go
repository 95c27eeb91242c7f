package players

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"
)

// Lookup finds a player of scope sc for its studio's support: ref is the studio's uuid for the
// player, the player's id, or its phone in E.164 (+ and digits). A ref starting with + is tried
// as a phone first; the studio's uuid is tried before the id, as a studio names its players by
// its own uuids. ErrPlayerNotFound when none matches.
func (s *Service) Lookup(ctx context.Context, sc Scope, ref string) (Player, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return Player{}, ErrPlayerNotFound
	}
	r := s.store.Repo()
	if strings.HasPrefix(ref, "+") {
		// A phone, unless no player has it and a studio named a player so.
		p, err := r.GetByPhone(ctx, sc, ref)
		if !errors.Is(err, ErrPlayerNotFound) {
			return p, err
		}
	}
	if validUUID(ref) {
		p, err := r.GetByUUID(ctx, sc, ref)
		if !errors.Is(err, ErrPlayerNotFound) {
			return p, err
		}
	}
	id, err := uuid.Parse(ref)
	if err != nil {
		return Player{}, ErrPlayerNotFound
	}
	return r.Get(ctx, sc, id)
}

// Forget drops what this instance remembers of a player (Active, Authenticate), after a change
// made to it outside this service, such as a studio blocking it: the change then holds here at
// once, and on other instances within authcache.TTL.
func (s *Service) Forget(id uuid.UUID) {
	s.changed(Player{ID: id}, nil)
}
