package console

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/studio"
)

// Integration returns the game's integration settings.
func (s *Service) Integration(ctx context.Context, p members.Principal, gameID uuid.UUID) (Integration, error) {
	g, err := s.read(ctx, p, gameID)
	if err != nil {
		return Integration{}, err
	}
	return s.integration(ctx, g)
}

func (s *Service) integration(ctx context.Context, g studio.Game) (Integration, error) {
	in := Integration{GameID: g.ID, StoreURL: g.StoreURL, AllowedOrigins: g.AllowedOrigins,
		ServerOnlyCoinMovements: g.ServerOnlyCoinMovements}
	var err error
	if in.Store, err = s.d.Players.StoreSettings(ctx, g.ID); err != nil {
		return Integration{}, err
	}
	if in.TouchpointCoinID, err = s.d.Store.Repo().TouchpointCoin(ctx, g.ID); err != nil {
		return Integration{}, err
	}
	if in.Coins, err = s.d.Coins.ListCoins(ctx, g.ID); err != nil {
		return Integration{}, err
	}
	return in, nil
}

// SetIntegration applies ch and returns the settings after it. Each setting is checked by its
// module as when the operator sets it (an absolute http or https storeUrl, exact origins, a
// theme that is a JSON object, a coin of the game).
func (s *Service) SetIntegration(ctx context.Context, p members.Principal, gameID uuid.UUID, ch IntegrationChange) (Integration, error) {
	ctx, g, err := s.change(ctx, p, gameID)
	if err != nil {
		return Integration{}, err
	}
	if ch.StoreURL != nil {
		if g, err = s.d.Studio.SetStoreURL(ctx, gameID, *ch.StoreURL); err != nil {
			return Integration{}, fmt.Errorf("storeUrl: %w", err)
		}
	}
	if ch.AllowedOriginsLive != nil || ch.AllowedOriginsTest != nil {
		var o studio.Origins
		set := map[studio.Environment]bool{}
		if ch.AllowedOriginsLive != nil {
			o.Live, set[studio.Live] = *ch.AllowedOriginsLive, true
		}
		if ch.AllowedOriginsTest != nil {
			o.Test, set[studio.Test] = *ch.AllowedOriginsTest, true
		}
		if g, err = s.d.Studio.SetAllowedOrigins(ctx, gameID, o, set); err != nil {
			return Integration{}, fmt.Errorf("allowedOrigins: %w", err)
		}
	}
	if ch.ServerOnlyCoinMovements != nil {
		if g, err = s.d.Studio.SetServerOnlyCoinMovements(ctx, gameID, *ch.ServerOnlyCoinMovements); err != nil {
			return Integration{}, fmt.Errorf("serverOnlyCoinMovements: %w", err)
		}
	}
	st := ch.Store
	if st.RewardsEnabled != nil || st.GcommerceEnabled != nil || st.DefaultLandingPage != nil || st.Theme != nil {
		if _, err = s.d.Players.ChangeStoreSettings(ctx, gameID, st); err != nil {
			return Integration{}, fmt.Errorf("store settings: %w", err)
		}
	}
	if ch.TouchpointCoinID != nil {
		if err = s.d.Touchpoints.SetCoin(ctx, gameID, *ch.TouchpointCoinID); err != nil {
			return Integration{}, fmt.Errorf("touchpoint coin: %w", err)
		}
	}
	return s.integration(ctx, g)
}
