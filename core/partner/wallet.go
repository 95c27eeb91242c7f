package partner

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// Credit funds a wallet; a reference seen before on this wallet is not credited again (credited
// is false). It returns the balance.
func (s *Service) Credit(ctx context.Context, gameID uuid.UUID, env studio.Environment, amount money.Amount, reference string) (balance money.Amount, credited bool, err error) {
	if !env.Valid() {
		return 0, false, errs.Invalidf("environment must be live or test")
	}
	if amount <= 0 || amount > MaxCredit {
		return 0, false, errs.Invalidf("amount must be positive and at most %s", MaxCredit)
	}
	reference = strings.TrimSpace(reference)
	if reference == "" || len(reference) > 128 {
		return 0, false, errs.Invalidf("reference is required (1 to 128 characters): it keeps a credit from being applied twice")
	}
	if _, err := s.games.GetGame(ctx, gameID); err != nil {
		return 0, false, err
	}
	err = s.cfg.Audit.InTx(ctx, func(tx store.Tx) error {
		r := s.partner.WithTx(tx)
		bal, err := r.LockWallet(ctx, gameID, env)
		if err != nil {
			return err
		}
		balance = bal
		seen, err := r.CreditExists(ctx, gameID, env, reference)
		if err != nil || seen {
			return err
		}
		if bal > MaxBalance-amount {
			return errs.Invalidf("this credit would take the wallet past %s", MaxBalance)
		}
		e, err := r.Apply(ctx, Entry{GameID: gameID, Environment: env, Kind: Credit, Amount: amount, BalanceAfter: bal + amount, Reference: reference})
		if err != nil {
			return err
		}
		balance, credited = e.BalanceAfter, true
		return s.cfg.Audit.Record(ctx, tx, audit.Entry{GameID: &gameID, Action: "partner_wallet.credit", TargetType: "partner_wallet",
			TargetID: gameID.String(), Environment: string(env),
			Details: map[string]string{"amount": amount.String(), "balance": e.BalanceAfter.String(), "reference": reference}})
	})
	return balance, credited, err
}

// Entries returns a wallet's ledger, oldest first.
func (s *Service) Entries(ctx context.Context, gameID uuid.UUID, env studio.Environment) ([]Entry, error) {
	return s.partner.Repo().Entries(ctx, gameID, env)
}

// Ledger returns a wallet's balance and a page of its entries, oldest first, with their number.
func (s *Service) Ledger(ctx context.Context, gameID uuid.UUID, env studio.Environment, limit, offset int) (money.Amount, []Entry, int64, error) {
	if !env.Valid() {
		return 0, nil, 0, errs.Invalidf("environment must be live or test")
	}
	repo := s.partner.Repo()
	bal, err := repo.Wallet(ctx, gameID, env)
	if err != nil {
		return 0, nil, 0, err
	}
	list, total, err := repo.EntriesPage(ctx, gameID, env, limit, offset)
	return bal, list, total, err
}

// Wallet returns the caller's wallet balance.
func (s *Service) Wallet(ctx context.Context, c Caller) (money.Amount, error) {
	return s.partner.Repo().Wallet(ctx, c.GameID, c.Environment)
}
