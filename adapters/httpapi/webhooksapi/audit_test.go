package webhooksapi

import (
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/audit/auditfake"
	"github.com/rewardsco/rewards/core/store/memstore"
)

// testAudit is an audit log for tests that do not read it.
func testAudit() *audit.Log {
	log, _ := auditfake.NewLog(&memstore.Runner{}, auditfake.OneStudio(uuid.New()))
	return log
}
