package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/errs"
)

// ErrUnavailable means the database did not answer (unreachable, too slow, shutting down): the
// request did not happen and may be retried shortly. The HTTP layer answers it 503 with
// Retry-After.
var ErrUnavailable = errs.New(errs.Unavailable, "SERVICE_UNAVAILABLE",
	"the service is temporarily unavailable; retry shortly").WithRetryAfter(5 * time.Second)

// unavailable marks err as ErrUnavailable when it means the database could not be reached or
// gave up on the statement (a connection failure, a timeout, statement_timeout or lock_timeout,
// a server shutting down), keeping the cause for the log; any other error is returned as is.
func unavailable(err error) error {
	if err == nil || !outage(err) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

func outage(err error) bool {
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connectErr), errors.As(err, &netErr), pgconn.Timeout(err),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, context.DeadlineExceeded):
		return true
	}
	code := pgCode(err)
	switch {
	case code == "57014", // query_canceled: statement_timeout
		code == "55P03",                  // lock_not_available: lock_timeout
		code == "57P01", code == "57P02", // the server is shutting down
		code == "57P03",               // cannot connect now
		strings.HasPrefix(code, "08"): // connection exceptions
		return true
	}
	return false
}

// outages is the DBTX every repository runs on: errors that mean the database is unavailable
// come back as ErrUnavailable.
type outages struct{ db.DBTX }

func (o outages) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	tag, err := o.DBTX.Exec(ctx, sql, args...)
	return tag, unavailable(err)
}

func (o outages) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	rows, err := o.DBTX.Query(ctx, sql, args...)
	if err != nil {
		return nil, unavailable(err)
	}
	// A dead connection often shows only once the rows are read.
	return outageRows{rows}, nil
}

type outageRows struct{ pgx.Rows }

func (r outageRows) Err() error { return unavailable(r.Rows.Err()) }

func (o outages) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return outageRow{o.DBTX.QueryRow(ctx, sql, args...)}
}

type outageRow struct{ pgx.Row }

func (r outageRow) Scan(dest ...any) error { return unavailable(r.Row.Scan(dest...)) }
