package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// Placements returns the game's placements of env.
func (s *Service) Placements(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment) ([]touchpoints.Placement, error) {
	if err := s.readEnv(ctx, p, gameID, env); err != nil {
		return nil, err
	}
	return s.d.Touchpoints.Placements(ctx, gameID, env)
}

// PutPlacement creates or replaces a placement of the game's test environment (pl.ID names it;
// uuid.Nil makes a new id) and reports whether it created it. Live placements are not edited:
// env live is ErrLivePlacements; they change by Promote.
func (s *Service) PutPlacement(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment,
	pl touchpoints.Placement) (touchpoints.Placement, bool, error) {
	ctx, _, err := s.change(ctx, p, gameID)
	if err != nil {
		return touchpoints.Placement{}, false, err
	}
	if err := testOnly(env); err != nil {
		return touchpoints.Placement{}, false, err
	}
	pl.GameID, pl.Environment = gameID, env
	if pl.ID == uuid.Nil {
		pl.ID = uuid.New()
	}
	return s.d.Touchpoints.PutPlacement(ctx, pl)
}

// DeletePlacement deletes a placement of the game's test environment (env live is
// ErrLivePlacements), or returns touchpoints.ErrPlacementNotFound.
func (s *Service) DeletePlacement(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment, placementID uuid.UUID) error {
	ctx, _, err := s.change(ctx, p, gameID)
	if err != nil {
		return err
	}
	if err := testOnly(env); err != nil {
		return err
	}
	e := audit.Entry{StudioID: p.StudioID, GameID: &gameID, Action: "placement.delete", TargetType: "placement",
		TargetID: placementID.String(), Environment: string(env)}
	return s.d.Audit.Change(ctx, e, func(tx store.Tx) error {
		return s.d.Store.WithTx(tx).DeletePlacement(ctx, gameID, env, placementID)
	})
}

// PromoteDiff returns what promoting the game's test placements to live would change.
func (s *Service) PromoteDiff(ctx context.Context, p members.Principal, gameID uuid.UUID) (touchpoints.Diff, error) {
	if _, err := s.read(ctx, p, gameID); err != nil {
		return touchpoints.Diff{}, err
	}
	return s.diff(ctx, gameID)
}

// Promote is the go-live: the game's live placements become copies of its test placements.
// With version set (a Diff's Version, as confirmed by a person), a difference that changed since
// is refused with ErrPromoteChanged and nothing is copied; "" promotes whatever test holds. It
// returns the difference it applied.
func (s *Service) Promote(ctx context.Context, p members.Principal, gameID uuid.UUID, version string) (touchpoints.Diff, error) {
	ctx, _, err := s.change(ctx, p, gameID)
	if err != nil {
		return touchpoints.Diff{}, err
	}
	return s.d.Touchpoints.PromoteChecked(ctx, gameID, version)
}

func (s *Service) diff(ctx context.Context, gameID uuid.UUID) (touchpoints.Diff, error) {
	test, err := s.d.Touchpoints.Placements(ctx, gameID, studio.Test)
	if err != nil {
		return touchpoints.Diff{}, err
	}
	live, err := s.d.Touchpoints.Placements(ctx, gameID, studio.Live)
	if err != nil {
		return touchpoints.Diff{}, err
	}
	return touchpoints.DiffPlacements(test, live), nil
}

// testOnly refuses every environment but test for a placement change.
func testOnly(env studio.Environment) error {
	if err := validEnv(env); err != nil {
		return err
	}
	if env != studio.Test {
		return ErrLivePlacements
	}
	return nil
}
