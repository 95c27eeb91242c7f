package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/studio"
)

// RotateKey replaces the game's API key of env and returns the new key, in plaintext only here:
// the old key stops working when this returns. The key's last characters are kept to tell it
// apart in reads (Game).
func (s *Service) RotateKey(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment) (string, error) {
	ctx, err := s.changeEnv(ctx, p, gameID, env)
	if err != nil {
		return "", err
	}
	return s.d.Studio.RotateKey(ctx, gameID, env)
}

// IssueServerSecret issues the game's server secret of env, replacing the one it had, and
// returns it in plaintext only here.
func (s *Service) IssueServerSecret(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment) (string, error) {
	ctx, err := s.changeEnv(ctx, p, gameID, env)
	if err != nil {
		return "", err
	}
	return s.d.Studio.IssueServerSecret(ctx, gameID, env)
}

// IssuePartnerSecret issues the game's partner client secret of env, returned in plaintext only
// here: the old secret and the tokens exchanged with it stop working.
func (s *Service) IssuePartnerSecret(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment) (string, error) {
	ctx, err := s.changeEnv(ctx, p, gameID, env)
	if err != nil {
		return "", err
	}
	return s.d.Partner.IssueSecret(ctx, gameID, env)
}

// PartnerWallet returns the game's partner terms and wallet of env, with a page of the wallet's
// entries (limit 1 to 200, default 50), oldest first.
func (s *Service) PartnerWallet(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment, limit, offset int) (Wallet, error) {
	if err := s.readEnv(ctx, p, gameID, env); err != nil {
		return Wallet{}, err
	}
	limit, offset = pageBounds(limit, offset)
	settings, err := s.d.Partner.GetSettings(ctx, gameID)
	if err != nil {
		return Wallet{}, err
	}
	bal, entries, total, err := s.d.Partner.Ledger(ctx, gameID, env, limit, offset)
	if err != nil {
		return Wallet{}, err
	}
	return Wallet{Settings: settings, Balance: bal, Entries: entries, Total: total}, nil
}
