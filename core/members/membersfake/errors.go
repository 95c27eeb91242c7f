package membersfake

import (
	"fmt"

	"github.com/google/uuid"
)

// errForeignKey is what PostgreSQL answers for a row whose member does not exist: an internal
// error, not a coded one.
func errForeignKey(table string, memberID uuid.UUID) error {
	return fmt.Errorf("insert into %s: member %s does not exist (foreign key violation)", table, memberID)
}
