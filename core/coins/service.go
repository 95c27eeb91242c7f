package coins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/idempotency"
)

// Service holds the coin use cases.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService returns a Service over store.
func NewService(store Store) *Service { return &Service{store: store, now: time.Now} }

// CreateCoin defines a new coin for a game. The caller has checked that the game exists.
func (s *Service) CreateCoin(ctx context.Context, c Coin) (Coin, error) {
	c.Name = strings.TrimSpace(c.Name)
	if c.Name == "" {
		return Coin{}, fmt.Errorf("%w: name must not be blank", ErrInvalid)
	}
	return s.store.Repo().CreateCoin(ctx, c)
}

// ListCoins returns the coins of a game, oldest first.
func (s *Service) ListCoins(ctx context.Context, gameID uuid.UUID) ([]Coin, error) {
	return s.store.Repo().ListCoins(ctx, gameID)
}

var reasonPattern = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`)

func (m *Movement) validate(defaultReason string) error {
	if m.Amount < MinAmount || m.Amount > MaxAmount {
		return fmt.Errorf("%w: amount must be a whole number from %d to %d", ErrInvalid, MinAmount, MaxAmount)
	}
	if m.Reason == "" {
		m.Reason = defaultReason
	}
	if !reasonPattern.MatchString(m.Reason) {
		return fmt.Errorf("%w: reason must be UPPER_SNAKE_CASE, at most 64 characters", ErrInvalid)
	}
	if len(m.ReferenceID) > MaxReferenceIDLen {
		return fmt.Errorf("%w: referenceId must be at most %d characters", ErrInvalid, MaxReferenceIDLen)
	}
	if len(m.Description) > MaxDescriptionLen {
		return fmt.Errorf("%w: description must be at most %d characters", ErrInvalid, MaxDescriptionLen)
	}
	return nil
}

// Distribute credits a player's coins. See Move for idempotency.
func (s *Service) Distribute(ctx context.Context, m Movement) (Transaction, bool, error) {
	if err := m.validate(ReasonGameCredit); err != nil {
		return Transaction{}, false, err
	}
	return s.move(ctx, m, Credit, EventCredited)
}

// Deduct debits a player's coins; ErrInsufficientBalance when the balance is smaller than the
// amount, whatever runs concurrently. See Move for idempotency.
func (s *Service) Deduct(ctx context.Context, m Movement) (Transaction, bool, error) {
	if err := m.validate(ReasonGameDebit); err != nil {
		return Transaction{}, false, err
	}
	return s.move(ctx, m, Debit, EventDebited)
}

// move changes the balance, appends the journal entry and records the coin event in one
// transaction (see Repo.ApplyMovement). With an idempotency key, the outcome is stored in that same transaction, so a
// movement and its record commit together or not at all; the boolean result reports a replay.
func (s *Service) move(ctx context.Context, m Movement, typ TxType, event EventType) (Transaction, bool, error) {
	var claim idempotency.Claim
	if m.IdempotencyKey != "" {
		key := idempotency.Key{GameID: m.GameID, Environment: string(m.Environment), Scope: "player:" + m.PlayerID.String(), Key: m.IdempotencyKey}
		var rec *idempotency.Record
		var err error
		if claim, rec, err = idempotency.Begin(ctx, s.store.Repo(), key, m.RequestHash, s.now()); err != nil {
			return Transaction{}, false, err
		}
		if rec != nil {
			return replay(rec)
		}
		// The work under the claim must end well before a retry could take the key over.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, idempotency.WorkTimeout)
		defer cancel()
	}
	var out Transaction
	err := s.store.InTx(ctx, func(r Repo) error {
		var err error
		if out, err = r.ApplyMovement(ctx, m, typ, event); err != nil {
			return err
		}
		if m.IdempotencyKey != "" {
			result, err := json.Marshal(out)
			if err != nil {
				return err
			}
			return r.CompleteKey(ctx, claim, result, "")
		}
		return nil
	})
	if err != nil && m.IdempotencyKey != "" {
		// A business refusal is the request's outcome and is replayed; anything else (the
		// database went away) frees the key so that a retry runs afresh.
		// Both run even when the client has gone: a key must not stay held.
		bg := context.WithoutCancel(ctx)
		if code := replayCode(err); code != "" {
			if cerr := s.store.Repo().CompleteKey(bg, claim, nil, code); cerr != nil {
				return Transaction{}, false, errors.Join(err, cerr)
			}
		} else if rerr := s.store.Repo().ReleaseKey(bg, claim); rerr != nil {
			return Transaction{}, false, errors.Join(err, rerr)
		}
	}
	return out, false, err
}

func replay(rec *idempotency.Record) (Transaction, bool, error) {
	if rec.ErrorCode != "" {
		if err, ok := replayable[rec.ErrorCode]; ok {
			return Transaction{}, true, err
		}
		return Transaction{}, true, fmt.Errorf("stored outcome %q cannot be replayed", rec.ErrorCode)
	}
	var t Transaction
	if err := json.Unmarshal(rec.Result, &t); err != nil {
		return Transaction{}, true, fmt.Errorf("decode stored outcome: %w", err)
	}
	return t, true, nil
}

// Funds lists every coin of the game with the player's holding (zero where it has none).
func (s *Service) Funds(ctx context.Context, gameID, playerID uuid.UUID) ([]Fund, error) {
	return s.store.Repo().Funds(ctx, gameID, playerID)
}

// Transactions returns a page of the player's journal over every coin, newest first.
func (s *Service) Transactions(ctx context.Context, playerID uuid.UUID, limit, offset int) ([]Transaction, int64, error) {
	return s.store.Repo().ListTransactions(ctx, playerID, nil, limit, offset)
}

// History returns the summary and a page of the journal of one coin; coinID nil means the
// game's first coin.
func (s *Service) History(ctx context.Context, gameID, playerID uuid.UUID, coinID *uuid.UUID, limit, offset int) (History, error) {
	r := s.store.Repo()
	var coin Coin
	var err error
	if coinID == nil {
		coin, err = r.FirstCoin(ctx, gameID)
	} else {
		coin, err = r.GetCoin(ctx, gameID, *coinID)
	}
	if err != nil {
		return History{}, err
	}
	h := History{Coin: coin}
	funds, err := r.Funds(ctx, gameID, playerID)
	if err != nil {
		return History{}, err
	}
	for _, f := range funds {
		if f.Coin.ID == coin.ID {
			h.CurrentBalance, h.LifetimeEarned, h.LifetimeSpent = f.Balance, f.LifetimeEarned, f.LifetimeSpent
		}
	}
	if h.Savings, err = r.Savings(ctx, playerID, coin.ID); err != nil {
		return History{}, err
	}
	h.Transactions, h.Total, err = r.ListTransactions(ctx, playerID, &coin.ID, limit, offset)
	return h, err
}

// PurgeIdempotencyKeys deletes keys older than the retention period.
func (s *Service) PurgeIdempotencyKeys(ctx context.Context) (int64, error) {
	return s.store.Repo().PurgeKeys(ctx, s.now().Add(-idempotency.Retention))
}
