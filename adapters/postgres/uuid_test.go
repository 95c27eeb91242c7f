package postgres_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
)

// uuidValues is what a uuid round trip reads back: a value, a nullable one set and unset, an
// array, a NULL scanned into a value (left as it was), and the text PostgreSQL makes of them.
type uuidValues struct {
	Value, NullIntoValue uuid.UUID
	Set, Unset           *uuid.UUID
	Array                []uuid.UUID
	Texts                string
}

// roundTripUUIDs sends uuids as parameters and scans them back (the binary format: a
// statement cached and described once, as sqlc's queries run, and described at each query).
func roundTripUUIDs(t *testing.T, pool *pgxpool.Pool, mode pgx.QueryExecMode) uuidValues {
	t.Helper()
	a, b := uuid.MustParse("0190c3e5-5a1b-7cde-8f00-0123456789ab"), uuid.MustParse("ffffffff-0000-4000-8000-00000000000f")
	var none *uuid.UUID
	out := uuidValues{NullIntoValue: a}
	err := pool.QueryRow(context.Background(), `SELECT $1::uuid, $2::uuid, $3::uuid, $4::uuid[], NULL::uuid,
		$1::uuid::text || ' ' || $2::uuid::text || ' ' || coalesce($3::uuid::text, 'null') || ' ' || $4::uuid[]::text`,
		mode, a, &b, none, []uuid.UUID{b, a}).
		Scan(&out.Value, &out.Set, &out.Unset, &out.Array, &out.NullIntoValue, &out.Texts)
	require.NoError(t, err)
	return out
}

// The uuid codec that ConfigurePool registers sends and reads google/uuid's UUID as pgx's own
// path did (the same values, NULL included, in both formats), and takes the direct plan for it.
// Not parallel: it counts allocations.
func TestUUIDCodecKeepsValues(t *testing.T) {
	ctx := context.Background()
	plain, err := pgxpool.New(ctx, pgtest.URL(t))
	require.NoError(t, err)
	t.Cleanup(plain.Close)
	configured := pgtest.Pool(t) // ConfigurePool, as the service's pool

	a, b := uuid.MustParse("0190c3e5-5a1b-7cde-8f00-0123456789ab"), uuid.MustParse("ffffffff-0000-4000-8000-00000000000f")
	want := uuidValues{Value: a, NullIntoValue: a, Set: &b, Array: []uuid.UUID{b, a},
		Texts: "0190c3e5-5a1b-7cde-8f00-0123456789ab ffffffff-0000-4000-8000-00000000000f null {ffffffff-0000-4000-8000-00000000000f,0190c3e5-5a1b-7cde-8f00-0123456789ab}"}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeDescribeExec} {
		require.Equal(t, want, roundTripUUIDs(t, plain, mode), "pgx's own path, mode %v", mode)
		require.Equal(t, want, roundTripUUIDs(t, configured, mode), "the registered codec, mode %v", mode)
	}

	conn, err := configured.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	m := conn.Conn().TypeMap()
	buf, err := m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, a, nil)
	require.NoError(t, err)
	require.Equal(t, a[:], buf)
	for _, v := range []any{a, &a} {
		require.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
			buf, _ = m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, v, buf[:0])
		}), "a uuid parameter (%T) is its 16 bytes, not a string parsed back", v)
		require.Equal(t, a[:], buf)
	}

	var got uuid.UUID
	require.NoError(t, m.Scan(pgtype.UUIDOID, pgtype.BinaryFormatCode, b[:], &got))
	require.Equal(t, b, got)
	require.Error(t, m.Scan(pgtype.UUIDOID, pgtype.BinaryFormatCode, b[:15], &got), "a uuid is 16 bytes")
	fresh := pgtype.NewMap()
	postgres.RegisterTypes(fresh)
	require.NoError(t, fresh.Scan(pgtype.UUIDOID, pgtype.BinaryFormatCode, nil, &got), "NULL into a value leaves it")
	require.Equal(t, b, got)
}
