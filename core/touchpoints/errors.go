package touchpoints

import "github.com/rewardsco/rewards/core/errs"

var (
	// ErrPromoteChanged means the placements changed since the difference the promote was
	// confirmed against: read the difference again.
	ErrPromoteChanged = errs.New(errs.Conflict, "PROMOTE_DIFF_CHANGED",
		"the placements changed since this difference was read: read the difference again and confirm it")
	// ErrUnknownScreen means the screen asked for is not one the service serves.
	ErrUnknownScreen = errs.New(errs.Invalid, "UNKNOWN_SCREEN", "unknown screen: valid values are home")
	// ErrTypeRequired means the screen has placements of several types and the request did not
	// say which.
	ErrTypeRequired = errs.New(errs.Invalid, "PLACEMENT_TYPE_REQUIRED", "this screen has several placements: send type (product, coupon or gift-card)")
	// ErrTouchpointNotFound means the game has no tree of that name or id (names are case
	// sensitive).
	ErrTouchpointNotFound = errs.New(errs.NotFound, "TOUCHPOINT_NOT_FOUND", "touchpoint not found (names are case sensitive)")
	// ErrTreeTooLarge means a tree could serve more than MaxServedNodes nodes once expanded.
	ErrTreeTooLarge = errs.New(errs.Invalid, "TREE_TOO_LARGE", "this tree could serve more than 2,000 nodes once its DYNAMIC nodes are expanded")
	// ErrAssetNotFound means no library asset has the id.
	ErrAssetNotFound = errs.New(errs.NotFound, "ASSET_NOT_FOUND", "asset not found in the library")
	// ErrPlacementNotFound means no placement can have the id sent: placement ids are UUIDs.
	ErrPlacementNotFound = errs.New(errs.NotFound, "PLACEMENT_NOT_FOUND", "placement not found (placement ids are UUIDs)")
	// ErrPlacementConflict means another placement of the game and environment already has the
	// screen and type.
	ErrPlacementConflict = errs.New(errs.Conflict, "PLACEMENT_CONFLICT", "another placement of this game and environment already serves this screen and type")
)
