package console

import (
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
	"github.com/rewardsco/rewards/core/webhooks"
)

// The modules' services are what app wires into Deps.
var (
	_ Studios     = (*studio.Service)(nil)
	_ Partner     = (*partner.Service)(nil)
	_ Touchpoints = (*touchpoints.Service)(nil)
	_ Webhooks    = (*webhooks.Service)(nil)
	_ Players     = (*players.Service)(nil)
	_ Coins       = (*coins.Service)(nil)
	_ Orders      = (*orders.Service)(nil)
)
