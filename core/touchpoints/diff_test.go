package touchpoints_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
)

func TestDiffPlacements(t *testing.T) {
	t.Parallel()
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	mk := func(env studio.Environment, id uuid.UUID, typ touchpoints.ItemType) touchpoints.Placement {
		return touchpoints.Placement{ID: id, Environment: env, Screen: "home", Type: typ, ProductID: "p-1", IsActive: true,
			Asset: touchpoints.Asset{Source: touchpoints.SourcePreset, PresetID: "frame-1", ImageURL: "https://cdn/a.png"}, UpdatedAt: at}
	}
	same, changed, added, removed := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	liveOnly := mk(studio.Live, removed, touchpoints.TypeCoupon)
	liveSame := mk(studio.Live, same, touchpoints.TypeProduct)
	liveSame.Asset.ImageURL = "https://cdn/other.png" // a PRESET frame is its library asset, whatever image was read
	liveSame.UpdatedAt = at.Add(time.Hour)            // nor does the time of the last change count
	liveChanged := mk(studio.Live, changed, touchpoints.TypeGiftCard)
	testChanged := mk(studio.Test, changed, touchpoints.TypeGiftCard)
	testChanged.IsActive = false
	testChanged.Rule = &touchpoints.Rule{SortBy: touchpoints.SortNewest}
	testAdded := mk(studio.Test, added, touchpoints.TypeCoupon)

	test := []touchpoints.Placement{testAdded, mk(studio.Test, same, touchpoints.TypeProduct), testChanged}
	live := []touchpoints.Placement{liveChanged, liveOnly, liveSame}
	d := touchpoints.DiffPlacements(test, live)
	require.Equal(t, []touchpoints.Placement{testAdded}, d.Added)
	require.Equal(t, []touchpoints.Placement{liveOnly}, d.Removed)
	require.Equal(t, []touchpoints.PlacementChange{{Test: testChanged, Live: liveChanged, Fields: []string{"rule", "isActive"}}}, d.Changed)
	require.False(t, d.Empty())
	require.NotEmpty(t, d.Version)

	require.Equal(t, d.Version, touchpoints.DiffPlacements([]touchpoints.Placement{testChanged, testAdded, test[1]}, live).Version,
		"the version does not depend on the order of the lists")
	edited := testAdded
	edited.UpdatedAt = at.Add(time.Second)
	require.NotEqual(t, d.Version, touchpoints.DiffPlacements([]touchpoints.Placement{edited, test[1], testChanged}, live).Version,
		"an edit since makes another version")

	upload := func(env studio.Environment, url string) touchpoints.Placement {
		p := mk(env, same, touchpoints.TypeProduct)
		p.Asset = touchpoints.Asset{Source: touchpoints.SourceUpload, ImageURL: url, Orientation: touchpoints.Portrait, Width: 300, Height: 400}
		return p
	}
	d = touchpoints.DiffPlacements([]touchpoints.Placement{upload(studio.Test, "https://cdn/new.png")}, []touchpoints.Placement{upload(studio.Live, "https://cdn/old.png")})
	require.Len(t, d.Changed, 1)
	require.Equal(t, []string{"asset"}, d.Changed[0].Fields, "an uploaded frame is its artwork")

	d = touchpoints.DiffPlacements(nil, nil)
	require.True(t, d.Empty())
	require.NotNil(t, d.Added, "empty lists, not null, for the API")
}
