package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// OrdersRepo is the storage of the orders module.
type OrdersRepo struct{ conn }

var _ orders.Repo = (*OrdersRepo)(nil)

// NewOrdersStore returns the storage of the orders module on d.
func NewOrdersStore(d *DB) store.Of[orders.Repo] {
	return newModuleStore(d, func(c conn) orders.Repo { return &OrdersRepo{c} })
}

func toCoreOrder(r db.Order) (orders.Order, error) {
	o := orders.Order{
		ID: r.ID, GameID: r.GameID, Environment: studio.Environment(r.Environment), PlayerID: r.PlayerID, UserRef: r.UserRef,
		RewardID: r.RewardID, RewardType: catalogue.Type(r.RewardType), CoinID: r.CoinID, Status: orders.Status(r.Status),
		Denomination: money.Amount(r.Denomination), Quantity: int(r.Quantity), FaceValue: money.Amount(r.FaceValue),
		CoinsSpent: r.CoinsSpent, DebitTxID: r.DebitTxID, RefundTxID: r.RefundTxID, FailureReason: r.FailureReason,
		DeadlineAt: r.DeadlineAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	if r.ProviderProduct != nil {
		o.ProviderProduct = *r.ProviderProduct
	}
	if r.Address != nil {
		o.Address = &players.Address{}
		if err := json.Unmarshal(r.Address, o.Address); err != nil {
			return orders.Order{}, fmt.Errorf("decode the address of order %s: %w", r.ID, err)
		}
	}
	return o, nil
}

// Insert implements orders.Repo.
func (r *OrdersRepo) Insert(ctx context.Context, o orders.Order, reason string) (orders.Order, error) {
	var provider *string
	if o.ProviderProduct != "" {
		provider = &o.ProviderProduct
	}
	var address []byte
	if o.Address != nil {
		address, _ = json.Marshal(o.Address)
	}
	row, err := r.q.OrdersInsert(ctx, db.OrdersInsertParams{ID: o.ID, GameID: o.GameID, Environment: string(o.Environment),
		PlayerID: o.PlayerID, UserRef: o.UserRef, RewardID: o.RewardID, RewardType: string(o.RewardType), CoinID: o.CoinID,
		Status: string(o.Status), Denomination: int64(o.Denomination), Quantity: int32(o.Quantity), FaceValue: int64(o.FaceValue),
		CoinsSpent: o.CoinsSpent, DebitTxID: o.DebitTxID, ProviderProduct: provider, Address: address, DeadlineAt: o.DeadlineAt})
	if err != nil {
		return orders.Order{}, fmt.Errorf("insert order: %w", err)
	}
	o.CreatedAt, o.UpdatedAt = row.CreatedAt, row.UpdatedAt
	if err := r.q.OrdersAddTransition(ctx, db.OrdersAddTransitionParams{OrderID: o.ID, ToStatus: string(o.Status), Reason: reason}); err != nil {
		return orders.Order{}, fmt.Errorf("record the first transition of %s: %w", o.ID, err)
	}
	r.onCommit(func() { r.metrics.OrderTransition(string(o.Status)) })
	return o, nil
}

// Move implements orders.Repo.
func (r *OrdersRepo) Move(ctx context.Context, id uuid.UUID, from, to orders.Status, reason string, refundTxID *uuid.UUID) (bool, error) {
	_, err := r.q.OrdersMove(ctx, db.OrdersMoveParams{ID: id, FromStatus: string(from), ToStatus: string(to), Reason: reason, RefundTxID: refundTxID})
	if isNoRows(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("move order %s to %s: %w", id, to, err)
	}
	f := string(from)
	if err := r.q.OrdersAddTransition(ctx, db.OrdersAddTransitionParams{OrderID: id, FromStatus: &f, ToStatus: string(to), Reason: reason}); err != nil {
		return false, fmt.Errorf("record the move of %s to %s: %w", id, to, err)
	}
	r.onCommit(func() { r.metrics.OrderTransition(string(to)) })
	return true, nil
}

// AddCodes implements orders.Repo.
func (r *OrdersRepo) AddCodes(ctx context.Context, id uuid.UUID, codes []orders.SealedCode) error {
	for i, c := range codes {
		if err := r.q.OrdersAddCode(ctx, db.OrdersAddCodeParams{OrderID: id, Position: int32(i + 1), Code: c.Code, Pin: c.Pin,
			ProviderVoucherID: c.ProviderVoucherID, Value: int64(c.Value), Expiry: c.Expiry}); err != nil {
			return fmt.Errorf("store a code of order %s: %w", id, err)
		}
	}
	return nil
}

// withCodes fills the codes of list.
func (r *OrdersRepo) withCodes(ctx context.Context, list []orders.Order) error {
	if len(list) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(list))
	at := make(map[uuid.UUID]int, len(list))
	for i, o := range list {
		ids[i], at[o.ID] = o.ID, i
	}
	rows, err := r.q.OrdersCodes(ctx, ids)
	if err != nil {
		return fmt.Errorf("read codes: %w", err)
	}
	for _, c := range rows {
		o := &list[at[c.OrderID]]
		o.Codes = append(o.Codes, orders.SealedCode{Code: c.Code, Pin: c.Pin, ProviderVoucherID: c.ProviderVoucherID,
			Value: money.Amount(c.Value), Expiry: c.Expiry})
	}
	return nil
}

// Get implements orders.Repo.
func (r *OrdersRepo) Get(ctx context.Context, id uuid.UUID) (orders.Order, error) {
	row, err := r.q.OrdersGet(ctx, id)
	if isNoRows(err) {
		return orders.Order{}, orders.ErrOrderNotFound
	}
	if err != nil {
		return orders.Order{}, fmt.Errorf("get order %s: %w", id, err)
	}
	o, err := toCoreOrder(row)
	if err != nil {
		return orders.Order{}, err
	}
	list := []orders.Order{o}
	return list[0], r.withCodes(ctx, list)
}

// ListForPlayer implements orders.Repo.
func (r *OrdersRepo) ListForPlayer(ctx context.Context, playerID uuid.UUID, rewardID *uuid.UUID, limit, offset int) ([]orders.Order, int64, error) {
	rows, err := r.q.OrdersListForPlayer(ctx, db.OrdersListForPlayerParams{PlayerID: playerID, RewardID: rewardID, Lim: int32(limit), Off: int32(offset)})
	if err != nil {
		return nil, 0, fmt.Errorf("list orders: %w", err)
	}
	out := make([]orders.Order, len(rows))
	var total int64
	for i, row := range rows {
		if out[i], err = toCoreOrder(db.Order{ID: row.ID, GameID: row.GameID, Environment: row.Environment, PlayerID: row.PlayerID,
			UserRef: row.UserRef, RewardID: row.RewardID, RewardType: row.RewardType, CoinID: row.CoinID, Status: row.Status,
			Denomination: row.Denomination, Quantity: row.Quantity, FaceValue: row.FaceValue, CoinsSpent: row.CoinsSpent,
			DebitTxID: row.DebitTxID, RefundTxID: row.RefundTxID, ProviderProduct: row.ProviderProduct, Address: row.Address,
			FailureReason: row.FailureReason, DeadlineAt: row.DeadlineAt, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt}); err != nil {
			return nil, 0, err
		}
		total = row.Total
	}
	return out, total, r.withCodes(ctx, out)
}

// Transitions implements orders.Repo.
func (r *OrdersRepo) Transitions(ctx context.Context, id uuid.UUID) ([]orders.Transition, error) {
	rows, err := r.q.OrdersTransitions(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("transitions of %s: %w", id, err)
	}
	out := make([]orders.Transition, len(rows))
	for i, row := range rows {
		out[i] = orders.Transition{To: orders.Status(row.ToStatus), Reason: row.Reason, At: row.At}
		if row.FromStatus != nil {
			from := orders.Status(*row.FromStatus)
			out[i].From = &from
		}
	}
	return out, nil
}

// LockPlayerReward implements orders.Repo with a transaction-scoped advisory lock.
func (r *OrdersRepo) LockPlayerReward(ctx context.Context, playerID, rewardID uuid.UUID) error {
	if err := r.q.OrdersLockPlayerReward(ctx, db.OrdersLockPlayerRewardParams{PlayerID: playerID.String(), RewardID: rewardID.String()}); err != nil {
		return fmt.Errorf("lock purchases of %s by %s: %w", rewardID, playerID, err)
	}
	return nil
}

// LastPurchase implements orders.Repo.
func (r *OrdersRepo) LastPurchase(ctx context.Context, playerID, rewardID uuid.UUID) (*time.Time, error) {
	at, err := r.q.OrdersLastPurchase(ctx, db.OrdersLastPurchaseParams{PlayerID: playerID, RewardID: rewardID})
	if isNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("last purchase: %w", err)
	}
	return &at, nil
}
