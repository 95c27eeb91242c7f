package partner

import (
	"context"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/studio"
)

// PutSettings enables (or disables) a game for the partner API with its settlement model and
// discount. Enabling a game that has no live client secret issues one, in the same transaction,
// and returns it in plaintext (liveSecret, only here; "" when the game had one): on live the API
// key, which ships inside game clients, never authenticates a partner alone.
func (s *Service) PutSettings(ctx context.Context, in Settings) (out Settings, liveSecret string, err error) {
	if in.Settlement != orders.Wallet && in.Settlement != orders.Cash {
		return Settings{}, "", errs.Invalidf("settlement must be WALLET or CASH")
	}
	if in.DiscountPct < 0 || in.DiscountPct > MaxDiscount {
		return Settings{}, "", errs.Invalidf("discountPct must be from 0 to 90")
	}
	if _, err := s.games.GetGame(ctx, in.GameID); err != nil {
		return Settings{}, "", err
	}
	err = s.partner.InTx(ctx, func(r Repo) error {
		if out, err = r.PutSettings(ctx, in); err != nil || !in.Enabled {
			return err
		}
		// The settings row is locked by the write above, so two enablings issue one secret.
		_, has, err := r.SecretHash(ctx, in.GameID, studio.Live)
		if err != nil || has {
			return err
		}
		liveSecret = NewClientSecret()
		return r.PutSecret(ctx, in.GameID, studio.Live, studio.HashKey(liveSecret))
	})
	s.dropGame(in.GameID) // callers carry the settings
	if err != nil {
		return Settings{}, "", err
	}
	return out, liveSecret, nil
}

// NewClientSecret returns a new client secret in plaintext (rcs_ and 40 base62 characters).
func NewClientSecret() string { return "rcs_" + studio.RandomBase62(40) }

// GetSettings returns a game's partner settings (disabled WALLET at 0 % when never set).
func (s *Service) GetSettings(ctx context.Context, gameID uuid.UUID) (Settings, error) {
	if _, err := s.games.GetGame(ctx, gameID); err != nil {
		return Settings{}, err
	}
	st, found, err := s.partner.Repo().GetSettings(ctx, gameID)
	if err != nil || found {
		return st, err
	}
	return Settings{GameID: gameID, Settlement: orders.Wallet}, nil
}

// IssueSecret issues a game's client secret of env, returned in plaintext only here: the old
// secret and every token issued before stop working when this commits.
func (s *Service) IssueSecret(ctx context.Context, gameID uuid.UUID, env studio.Environment) (string, error) {
	if !env.Valid() {
		return "", errs.Invalidf("environment must be live or test")
	}
	if _, err := s.games.GetGame(ctx, gameID); err != nil {
		return "", err
	}
	plain := NewClientSecret()
	err := s.partner.InTx(ctx, func(r Repo) error {
		if err := r.PutSecret(ctx, gameID, env, studio.HashKey(plain)); err != nil {
			return err
		}
		return r.DeleteTokens(ctx, gameID, env)
	})
	s.dropGame(gameID)
	return plain, err
}
