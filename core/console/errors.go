package console

import (
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/touchpoints"
)

var (
	// ErrLivePlacements means a placement of live was to be created, replaced or deleted: live
	// placements change only by promoting the test ones (the go-live).
	ErrLivePlacements = errs.New(errs.Invalid, "LIVE_PLACEMENTS_READ_ONLY",
		"live placements change only by promoting the test placements: edit them in test, then promote")
	// ErrPromoteChanged means the placements changed since the difference the promote was
	// confirmed against: read the difference again.
	ErrPromoteChanged = touchpoints.ErrPromoteChanged
	// ErrCursorInvalid means a listing's cursor is not one the listing gave.
	ErrCursorInvalid = errs.New(errs.Invalid, "CURSOR_INVALID", "cursor is not one a listing returned")
)

var errInvalidEnv = errs.Invalidf("environment must be live or test")
