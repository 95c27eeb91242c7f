package coins

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/weburl"
)

// Service holds the coin use cases.
type Service struct {
	runner store.Runner
	coins  store.Of[Repo]
	games  store.Of[studio.Repo]
	keeper *idempotency.Keeper

	// Audit, when set, records coin definitions and value changes (a studio's data) in their
	// transaction; app sets it.
	Audit *audit.Log

	// Values, when set, is this instance's cache of coin values: SetCoinsPerUnit drops the coin
	// from it once the change is committed, so this instance prices in the new value at once.
	Values *Values
}

// NewService returns a Service over the coins storage; games is the studio module's storage,
// for the game a coin belongs to; runner opens the transactions both take part in; keeper makes
// movements idempotent.
func NewService(runner store.Runner, coins store.Of[Repo], games store.Of[studio.Repo], keeper *idempotency.Keeper) *Service {
	return &Service{runner: runner, coins: coins, games: games, keeper: keeper}
}

// CreateCoin defines a new coin for a game, whose image address is at most weburl.MaxLen
// characters: ErrGameNotFound (studio) when there is no such game. The game is locked while
// the coin is created, so it cannot vanish in between.
func (s *Service) CreateCoin(ctx context.Context, c Coin) (Coin, error) {
	c.Name = strings.TrimSpace(c.Name)
	if c.Name == "" {
		return Coin{}, errs.Invalidf("name must not be blank")
	}
	if len(c.ImageURL) > weburl.MaxLen {
		return Coin{}, errs.Invalidf("imageUrl must be at most %d characters", weburl.MaxLen)
	}
	if c.CoinsPerUnit == 0 {
		c.CoinsPerUnit = DefaultCoinsPerUnit
	}
	if err := validCoinsPerUnit(c.CoinsPerUnit); err != nil {
		return Coin{}, err
	}
	var out Coin
	err := s.runner.InTx(ctx, func(t store.Tx) error {
		if _, err := s.games.WithTx(t).LockGame(ctx, c.GameID); err != nil {
			return err
		}
		var err error
		if out, err = s.coins.WithTx(t).CreateCoin(ctx, c); err != nil {
			return err
		}
		return s.record(ctx, t, out, "coin.create", map[string]string{"name": out.Name, "coinsPerUnit": strconv.FormatInt(out.CoinsPerUnit, 10)})
	})
	return out, err
}

// record writes the audit entry of a change of coin c in t, when the service has a log.
func (s *Service) record(ctx context.Context, t store.Tx, c Coin, action string, details map[string]string) error {
	if s.Audit == nil {
		return nil
	}
	return s.Audit.Record(ctx, t, audit.Entry{GameID: &c.GameID, Action: action, TargetType: "coin", TargetID: c.ID.String(), Details: details})
}

func validCoinsPerUnit(n int64) error {
	if n < 1 || n > MaxCoinsPerUnit {
		return errs.Invalidf("coinsPerUnit must be a whole number from 1 to %d", MaxCoinsPerUnit)
	}
	return nil
}

// SetCoinsPerUnit changes what a coin is worth: n coins a unit of the deployment currency.
// Coin prices follow at once; orders already placed keep what they cost.
func (s *Service) SetCoinsPerUnit(ctx context.Context, coinID uuid.UUID, n int64) (Coin, error) {
	if err := validCoinsPerUnit(n); err != nil {
		return Coin{}, err
	}
	var c Coin
	err := s.runner.InTx(ctx, func(t store.Tx) error {
		var err error
		if c, err = s.coins.WithTx(t).SetCoinsPerUnit(ctx, coinID, n); err != nil {
			return err
		}
		return s.record(ctx, t, c, "coin.value_set", map[string]string{"coinsPerUnit": strconv.FormatInt(n, 10)})
	})
	if s.Values != nil {
		s.Values.Forget(coinID)
	}
	return c, err
}

// ListCoins returns the coins of a game, oldest first.
func (s *Service) ListCoins(ctx context.Context, gameID uuid.UUID) ([]Coin, error) {
	return s.coins.Repo().ListCoins(ctx, gameID)
}

// GameCoins returns a game and its coins, oldest first: what a player's client shows of the
// game.
func (s *Service) GameCoins(ctx context.Context, gameID uuid.UUID) (studio.Game, []Coin, error) {
	g, err := s.games.Repo().GetGame(ctx, gameID)
	if err != nil {
		return studio.Game{}, nil, err
	}
	list, err := s.coins.Repo().ListCoins(ctx, gameID)
	return g, list, err
}

var reasonPattern = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`)

func (m *Movement) validate(defaultReason string) error {
	if m.Amount < MinAmount || m.Amount > MaxAmount {
		return errs.Invalidf("amount must be a whole number from %d to %d", MinAmount, MaxAmount)
	}
	if m.Reason == "" {
		m.Reason = defaultReason
	}
	if !reasonPattern.MatchString(m.Reason) {
		return errs.Invalidf("reason must be UPPER_SNAKE_CASE, at most 64 characters")
	}
	if len(m.ReferenceID) > MaxReferenceIDLen {
		return errs.Invalidf("referenceId must be at most %d characters", MaxReferenceIDLen)
	}
	if len(m.Description) > MaxDescriptionLen {
		return errs.Invalidf("description must be at most %d characters", MaxDescriptionLen)
	}
	if len(m.Metadata) > MaxMetadataBytes {
		return errs.Invalidf("metadata must be at most 4 KiB (%d bytes) as JSON; this is %d bytes", MaxMetadataBytes, len(m.Metadata))
	}
	return nil
}

// Distribute credits a player's coins. See move for idempotency.
func (s *Service) Distribute(ctx context.Context, m Movement) (Transaction, bool, error) {
	if err := m.validate(ReasonGameCredit); err != nil {
		return Transaction{}, false, err
	}
	return s.move(ctx, "coins.distribute", m, Credit, EventCredited)
}

// Deduct debits a player's coins; ErrInsufficientBalance when the balance is smaller than the
// amount, whatever runs concurrently. See move for idempotency.
func (s *Service) Deduct(ctx context.Context, m Movement) (Transaction, bool, error) {
	if err := m.validate(ReasonGameDebit); err != nil {
		return Transaction{}, false, err
	}
	return s.move(ctx, "coins.deduct", m, Debit, EventDebited)
}

// movementRequest is what two movements with one idempotency key must share.
type movementRequest struct {
	CoinID      uuid.UUID `json:"coinId"`
	Amount      int64     `json:"amount"`
	Reason      string    `json:"reason"`
	ReferenceID string    `json:"referenceId"`
	Description string    `json:"description"`
	Metadata    []byte    `json:"metadata"`
}

// move changes the balance, appends the journal entry and records the coin event in one
// transaction (see Repo.ApplyMovement), at most once per idempotency key; the boolean result
// reports a replay of an earlier outcome.
func (s *Service) move(ctx context.Context, op string, m Movement, typ TxType, event EventType) (Transaction, bool, error) {
	if m.IdempotencyKey == "" {
		// Nothing to record with it: the movement is a unit by itself (Repo.ApplyMovement
		// outside a transaction).
		t, err := s.coins.Repo().ApplyMovement(ctx, m, typ, event)
		return t, false, err
	}
	req := idempotency.Request{
		Key: idempotency.Key{GameID: m.GameID, Environment: string(m.Environment), Scope: "player:" + m.PlayerID.String(), Key: m.IdempotencyKey},
		Op:  op,
		Body: movementRequest{CoinID: m.CoinID, Amount: m.Amount, Reason: m.Reason, ReferenceID: m.ReferenceID,
			Description: m.Description, Metadata: m.Metadata},
	}
	return idempotency.Do(ctx, s.keeper, req, func(ctx context.Context, t store.Tx) (Transaction, error) {
		return s.coins.WithTx(t).ApplyMovement(ctx, m, typ, event)
	})
}

// Funds lists every coin of the game with the player's holding (zero where it has none).
func (s *Service) Funds(ctx context.Context, gameID, playerID uuid.UUID) ([]Fund, error) {
	return s.coins.Repo().Funds(ctx, gameID, playerID)
}

// Transactions returns a page of the player's journal over every coin, newest first.
func (s *Service) Transactions(ctx context.Context, playerID uuid.UUID, limit, offset int) ([]Transaction, int64, error) {
	return s.coins.Repo().ListTransactions(ctx, playerID, nil, limit, offset)
}

// History returns the summary and a page of the journal of one coin; coinID nil means the
// game's first coin.
func (s *Service) History(ctx context.Context, gameID, playerID uuid.UUID, coinID *uuid.UUID, limit, offset int) (History, error) {
	r := s.coins.Repo()
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
