package postgres

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ConfigurePool sets up the connections of a pool as this package's queries need them: the
// uuid type encodes and scans github.com/google/uuid's UUID directly (RegisterTypes). Any
// AfterConnect already set still runs, after.
func ConfigurePool(cfg *pgxpool.Config) {
	next := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		RegisterTypes(c.TypeMap())
		if next != nil {
			return next(ctx, c)
		}
		return nil
	}
}

// RegisterTypes registers on m a uuid codec that takes github.com/google/uuid's UUID (the type
// sqlc generates for uuid columns) as the 16 bytes it is. Without it pgx sees a driver.Valuer:
// each parameter became a string (UUID.Value), failed to encode in the binary format (an error
// formatted with %#v), was parsed back from that text and encoded again; each scanned uuid went
// through sql.Scanner by way of its text. That was about a sixth of the service's CPU on a
// purchase. The bytes sent and the values read are the same.
func RegisterTypes(m *pgtype.Map) {
	t := &pgtype.Type{Name: "uuid", OID: pgtype.UUIDOID, Codec: uuidCodec{}}
	m.RegisterType(t)
	m.RegisterType(&pgtype.Type{Name: "_uuid", OID: pgtype.UUIDArrayOID, Codec: &pgtype.ArrayCodec{ElementType: t}})
}

// uuidCodec is pgx's UUIDCodec with binary plans for uuid.UUID; every other value and the text
// format go to pgx's own plans.
type uuidCodec struct{ pgtype.UUIDCodec }

// PlanEncode implements pgtype.Codec. A *uuid.UUID (a nullable column's parameter) is planned
// here too: pgx does not follow a pointer to a driver.Valuer, which *uuid.UUID is. A nil one
// never reaches the plan (pgx sends NULL for it first).
func (c uuidCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if format == pgtype.BinaryFormatCode {
		switch value.(type) {
		case uuid.UUID:
			return encodeUUIDBinary{}
		case *uuid.UUID:
			return encodeUUIDPointerBinary{}
		}
	}
	return c.UUIDCodec.PlanEncode(m, oid, format, value)
}

// PlanScan implements pgtype.Codec. A *uuid.UUID is scanned directly; a **uuid.UUID (a
// nullable column) reaches it through pgx's pointer-to-pointer plan, which handles NULL.
func (c uuidCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if _, ok := target.(*uuid.UUID); ok && format == pgtype.BinaryFormatCode {
		return scanUUIDBinary{}
	}
	return c.UUIDCodec.PlanScan(m, oid, format, target)
}

type encodeUUIDBinary struct{}

func (encodeUUIDBinary) Encode(value any, buf []byte) ([]byte, error) {
	u := value.(uuid.UUID)
	return append(buf, u[:]...), nil
}

type encodeUUIDPointerBinary struct{}

func (encodeUUIDPointerBinary) Encode(value any, buf []byte) ([]byte, error) {
	u := value.(*uuid.UUID)
	if u == nil {
		return nil, nil
	}
	return append(buf, u[:]...), nil
}

type scanUUIDBinary struct{}

func (scanUUIDBinary) Scan(src []byte, dst any) error {
	if src == nil {
		// As uuid.UUID's Scan (sql.Scanner, the plan before this one) took NULL: nothing changes.
		return nil
	}
	if len(src) != 16 {
		return fmt.Errorf("invalid length for UUID: %v", len(src))
	}
	copy(dst.(*uuid.UUID)[:], src)
	return nil
}
