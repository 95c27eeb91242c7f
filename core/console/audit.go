package console

import (
	"context"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/members"
)

// Audit returns the entries of the principal's studio that f selects, newest first (at most
// 200 a page; f.Before continues). f.StudioID is ignored: a studio reads its own log only.
func (s *Service) Audit(ctx context.Context, p members.Principal, f audit.Filter) ([]audit.Entry, error) {
	if err := p.Require(viewer); err != nil {
		return nil, err
	}
	f.StudioID = p.StudioID
	return s.d.Audit.List(ctx, f)
}
