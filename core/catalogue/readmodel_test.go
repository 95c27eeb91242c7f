package catalogue_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
)

// fakeSource is a catalogue in memory with a version, whose storage can be made unreachable and
// whose notifications can be lost.
type fakeSource struct {
	mu      sync.Mutex
	data    catalogue.SnapshotData
	down    bool
	loads   int
	watches int
	// notify, when the watcher listens, is how a change reaches it; deaf drops every
	// notification (a listener that never hears).
	notify chan struct{}
	deaf   bool
}

var errDown = errors.New("database unreachable")

func (f *fakeSource) Version(context.Context) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return 0, errDown
	}
	return f.data.Version, nil
}

func (f *fakeSource) Load(context.Context, time.Time) (catalogue.SnapshotData, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return catalogue.SnapshotData{}, errDown
	}
	f.loads++
	d := f.data
	d.Rewards = append([]catalogue.Reward(nil), d.Rewards...)
	return d, nil
}

func (f *fakeSource) LoadChanges(context.Context, int64, int) (catalogue.Changes, bool, error) {
	return catalogue.Changes{}, false, nil // the whole catalogue, always
}

func (f *fakeSource) OrderCounts(context.Context, time.Time) (map[uuid.UUID]catalogue.OrderCount, error) {
	return nil, nil
}

func (f *fakeSource) Watch(ctx context.Context, changed func()) error {
	f.mu.Lock()
	f.watches++
	f.mu.Unlock()
	changed()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-f.notify:
			if !f.deaf {
				changed()
			}
		}
	}
}

// change replaces the catalogue's rewards and moves its version, as a committed write does.
func (f *fakeSource) change(rewards ...catalogue.Reward) {
	f.mu.Lock()
	f.data.Rewards = rewards
	f.data.Version++
	f.mu.Unlock()
	select {
	case f.notify <- struct{}{}:
	default:
	}
}

func (f *fakeSource) setDown(down bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

func reward(name string, end *time.Time) catalogue.Reward {
	return catalogue.Reward{ID: uuid.New(), Type: catalogue.Coupon, BrandCode: "HOUSE", Name: name, IsActive: true,
		MRP: units(10), SellingPrice: units(5), EndDate: end, CreatedAt: time.Now()}
}

func newFake(rewards ...catalogue.Reward) *fakeSource {
	return &fakeSource{notify: make(chan struct{}, 1), data: catalogue.SnapshotData{Version: 1,
		Brands: []catalogue.Brand{{Code: "HOUSE", Name: "House", IsActive: true}}, Rewards: rewards}}
}

func names(t *testing.T, m *catalogue.ReadModel, now time.Time) []string {
	t.Helper()
	snap, err := m.Current(context.Background())
	require.NoError(t, err)
	list, _ := snap.List(catalogue.ListQuery{GameID: uuid.New(), CoinsPerUnit: 1, Order: catalogue.OrderDefault, Limit: 10, Now: now})
	out := []string{}
	for _, l := range list {
		out = append(out, l.Reward.Name)
	}
	return out
}

// Without a watcher, every read compares the version first: a change is loaded once, and an
// unreachable storage leaves the last snapshot serving.
func TestReadModelLoadsOnlyNewVersionsAndOutlivesAnOutage(t *testing.T) {
	t.Parallel()
	src := newFake(reward("A", nil))
	m := catalogue.NewReadModel(src, nil)
	now := time.Now()
	require.Equal(t, []string{"A"}, names(t, m, now))
	require.Equal(t, []string{"A"}, names(t, m, now))
	require.Equal(t, 1, src.loads, "an unchanged version is not loaded again")

	src.change(reward("B", nil))
	require.Equal(t, []string{"B"}, names(t, m, now))
	require.Equal(t, 2, src.loads)

	src.setDown(true)
	require.Equal(t, []string{"B"}, names(t, m, now), "the last snapshot serves while the storage is unreachable")
	require.Error(t, m.Refresh(context.Background()))

	cold := catalogue.NewReadModel(src, nil)
	_, err := cold.Current(context.Background())
	require.ErrorIs(t, err, errDown, "with no snapshot yet, an outage is an error")
}

// A sorted view is kept for its snapshot until the first end date among its rewards: then the
// ended reward leaves the list, with no new load.
func TestReadModelViewsEndWithTheirRewards(t *testing.T) {
	t.Parallel()
	now := time.Now()
	end := now.Add(time.Hour)
	src := newFake(reward("A", &end), reward("B", nil))
	m := catalogue.NewReadModel(src, nil)
	require.ElementsMatch(t, []string{"A", "B"}, names(t, m, now))
	require.Equal(t, []string{"B"}, names(t, m, end))
	require.Equal(t, []string{"B"}, names(t, m, end.Add(time.Minute)))
	require.Equal(t, 1, src.loads)
}

// Run loads what is notified, and what the version check finds when notifications are lost;
// a read never triggers a load while it runs.
func TestReadModelRunCatchesLostNotifications(t *testing.T) {
	t.Parallel()
	src := newFake(reward("A", nil))
	m := catalogue.NewReadModel(src, nil)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go m.Run(ctx)
	now := time.Now()
	require.Eventually(t, func() bool { return len(names(t, m, now)) == 1 }, time.Second, 5*time.Millisecond)

	src.change(reward("B", nil))
	require.Eventually(t, func() bool { return names(t, m, now)[0] == "B" }, time.Second, 5*time.Millisecond, "a notified change")

	src.mu.Lock()
	src.deaf = true
	src.mu.Unlock()
	src.change(reward("C", nil))
	require.Eventually(t, func() bool { return names(t, m, now)[0] == "C" }, 3*catalogue.VersionCheckInterval, 5*time.Millisecond,
		"a change whose notification was lost")

	src.setDown(true)
	require.Equal(t, []string{"C"}, names(t, m, now), "the storage is down: the last snapshot serves")
	src.setDown(false)
}
