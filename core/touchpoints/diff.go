package touchpoints

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// Diff is what a go-live (Promote) would change in a game's live placements: placements are
// matched by id, since Promote copies the test placements with their ids.
type Diff struct {
	// Added are the test placements live does not have yet.
	Added []Placement
	// Changed are the placements whose test configuration differs from the live one.
	Changed []PlacementChange
	// Removed are the live placements test no longer has: Promote deletes them.
	Removed []Placement
	// Version names the two sets of placements the difference was taken between; a promote
	// confirmed against one version can refuse to copy another (console.Promote).
	Version string
}

// Empty reports whether promoting would change nothing.
func (d Diff) Empty() bool { return len(d.Added) == 0 && len(d.Changed) == 0 && len(d.Removed) == 0 }

// PlacementChange is one placement in both environments.
type PlacementChange struct {
	Test, Live Placement
	// Fields names what differs, in the names of the API (screen, type, asset, rewardId,
	// productId, rule, isActive).
	Fields []string
}

// DiffPlacements returns what copying test over live would change. Only the configuration is
// compared: the environment and the time of the last change are not.
func DiffPlacements(test, live []Placement) Diff {
	liveByID := make(map[uuid.UUID]Placement, len(live))
	for _, p := range live {
		liveByID[p.ID] = p
	}
	testIDs := make(map[uuid.UUID]bool, len(test))
	d := Diff{Added: []Placement{}, Changed: []PlacementChange{}, Removed: []Placement{}}
	for _, t := range test {
		testIDs[t.ID] = true
		l, ok := liveByID[t.ID]
		if !ok {
			d.Added = append(d.Added, t)
			continue
		}
		if f := differences(t, l); len(f) > 0 {
			d.Changed = append(d.Changed, PlacementChange{Test: t, Live: l, Fields: f})
		}
	}
	for _, l := range live {
		if !testIDs[l.ID] {
			d.Removed = append(d.Removed, l)
		}
	}
	byID := func(a, b Placement) int { return strings.Compare(a.ID.String(), b.ID.String()) }
	slices.SortFunc(d.Added, byID)
	slices.SortFunc(d.Removed, byID)
	slices.SortFunc(d.Changed, func(a, b PlacementChange) int { return byID(a.Test, b.Test) })
	d.Version = version(test, live)
	return d
}

// differences names the configuration fields in which a and b differ.
func differences(a, b Placement) []string {
	var f []string
	if a.Screen != b.Screen {
		f = append(f, "screen")
	}
	if a.Type != b.Type {
		f = append(f, "type")
	}
	if !sameAsset(a.Asset, b.Asset) {
		f = append(f, "asset")
	}
	if !samePtr(a.RewardID, b.RewardID) {
		f = append(f, "rewardId")
	}
	if a.ProductID != b.ProductID {
		f = append(f, "productId")
	}
	if !samePtr(a.Rule, b.Rule) {
		f = append(f, "rule")
	}
	if a.IsActive != b.IsActive {
		f = append(f, "isActive")
	}
	return f
}

// sameAsset compares frames as Promote copies them: a PRESET frame by the library asset it
// names (its image is the library's when served), an UPLOAD frame by its artwork and size.
func sameAsset(a, b Asset) bool {
	if a.Source != b.Source {
		return false
	}
	if a.Source == SourcePreset {
		return a.PresetID == b.PresetID
	}
	return a == b
}

func samePtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// version is a digest of both sets of placements, ids and times of last change.
func version(test, live []Placement) string {
	lines := make([]string, 0, len(test)+len(live))
	for _, p := range slices.Concat(test, live) {
		lines = append(lines, fmt.Sprintf("%s %s %d", p.Environment, p.ID, p.UpdatedAt.UnixMicro()))
	}
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:8])
}
