package partner

import (
	"context"
	"strconv"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/store"
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
	e := audit.Entry{GameID: &in.GameID, Action: "partner_settings.put", TargetType: "game", TargetID: in.GameID.String(),
		Details: map[string]string{"enabled": strconv.FormatBool(in.Enabled), "settlement": string(in.Settlement),
			"discountPct": strconv.FormatFloat(in.DiscountPct.Float(), 'f', -1, 64)}}
	err = s.cfg.Audit.InTx(ctx, func(tx store.Tx) error {
		r := s.partner.WithTx(tx)
		if out, err = r.PutSettings(ctx, in); err != nil {
			return err
		}
		if in.Enabled {
			// The settings row is locked by the write above, so two enablings issue one secret.
			_, has, err := r.SecretHash(ctx, in.GameID, studio.Live)
			if err != nil {
				return err
			}
			if !has {
				liveSecret = NewClientSecret()
				if err := r.PutSecret(ctx, in.GameID, studio.Live, studio.HashKey(liveSecret)); err != nil {
					return err
				}
				e.Details["liveSecretIssued"] = "true"
			}
		}
		return s.cfg.Audit.Record(ctx, tx, e)
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
	e := audit.Entry{GameID: &gameID, Action: "partner_secret.issue", TargetType: "game", TargetID: gameID.String(), Environment: string(env)}
	err := s.cfg.Audit.Change(ctx, e, func(tx store.Tx) error {
		r := s.partner.WithTx(tx)
		if err := r.PutSecret(ctx, gameID, env, studio.HashKey(plain)); err != nil {
			return err
		}
		return r.DeleteTokens(ctx, gameID, env)
	})
	s.dropGame(gameID)
	return plain, err
}
