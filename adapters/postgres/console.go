package postgres

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// ConsoleRepo is the storage of the studio console: reads of a studio's data no module offers,
// and the changes the console makes itself.
type ConsoleRepo struct{ conn }

// Credentials implements console.Repo.
func (r *ConsoleRepo) Credentials(ctx context.Context, gameID uuid.UUID) ([]console.Credentials, error) {
	rows, err := r.q.ConsoleCredentials(ctx, gameID)
	return toCoreAll(rows, err, toCoreCredentials, "read the credentials of game %s", gameID)
}

func toCoreCredentials(r db.ConsoleCredentialsRow) console.Credentials {
	return console.Credentials{Environment: studio.Environment(r.Environment), KeyHint: r.Hint, KeyIssuedAt: r.KeyIssuedAt,
		ServerSecretIssuedAt: r.ServerSecretIssuedAt, PartnerSecretIssuedAt: r.PartnerSecretIssuedAt}
}

// TouchpointCoin implements console.Repo.
func (r *ConsoleRepo) TouchpointCoin(ctx context.Context, gameID uuid.UUID) (*uuid.UUID, error) {
	id, err := r.q.ConsoleTouchpointCoin(ctx, gameID)
	if isNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the touchpoint coin of game %s: %w", gameID, err)
	}
	return &id, nil
}

// SetPlayerBlocked implements console.Repo.
func (r *ConsoleRepo) SetPlayerBlocked(ctx context.Context, sc players.Scope, id uuid.UUID, blocked bool) (players.Player, error) {
	row, err := r.q.ConsoleSetPlayerBlocked(ctx, db.ConsoleSetPlayerBlockedParams{Blocked: blocked, ID: id,
		GameID: sc.GameID, Environment: string(sc.Environment)})
	return playerResult(row, err, "set player "+id.String()+" blocked")
}

// Orders implements console.Repo.
func (r *ConsoleRepo) Orders(ctx context.Context, q console.OrderQuery) ([]orders.Order, error) {
	p := db.ConsoleOrdersParams{GameID: q.GameID, Environment: string(q.Environment), PlayerID: q.PlayerID,
		FromAt: q.From, ToAt: q.To, Lim: int32(q.Limit)}
	if q.Status != "" {
		s := string(q.Status)
		p.Status = &s
	}
	if q.After != nil {
		p.AfterAt, p.AfterID = &q.After.CreatedAt, &q.After.ID
	}
	rows, err := r.q.ConsoleOrders(ctx, p)
	out, err := toCoreAllOrErr(rows, err, toCoreOrder, "list the orders of game %s", q.GameID)
	if err != nil {
		return nil, err
	}
	return out, (&OrdersRepo{conn: r.conn}).withCodes(ctx, out)
}

// DeletePlacement implements console.Repo.
func (r *ConsoleRepo) DeletePlacement(ctx context.Context, gameID uuid.UUID, env studio.Environment, id uuid.UUID) error {
	n, err := r.q.ConsoleDeletePlacement(ctx, db.ConsoleDeletePlacementParams{GameID: gameID, Environment: string(env), ID: id})
	if err != nil {
		return fmt.Errorf("delete placement %s: %w", id, err)
	}
	if n == 0 {
		return touchpoints.ErrPlacementNotFound
	}
	return nil
}
