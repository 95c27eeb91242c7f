package memstore_test

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/store/memstore"
)

type tableState struct {
	names map[string][]byte
	log   []string
}

func (s tableState) clone() tableState {
	return tableState{names: memstore.CloneMap(s.names, slices.Clone), log: memstore.CloneSlice(s.log, nil)}
}

func TestTableRestoresAsOften(t *testing.T) {
	t.Parallel()
	tab := memstore.NewTable(tableState{names: map[string][]byte{"a": []byte("1")}}, tableState.clone)

	restore := tab.Snapshot()
	st := tab.Lock()
	st.names["a"][0] = '2' // a write into a value the snapshot must not share
	st.names["b"] = []byte("3")
	st.log = append(st.log, "written")
	tab.Unlock()

	for range 2 {
		restore()
		st = tab.Lock()
		require.Equal(t, tableState{names: map[string][]byte{"a": []byte("1")}}, *st)
		st.names["a"][0] = '9' // nor may a restored state share with the snapshot
		tab.Unlock()
	}
}

func TestClockNeverRepeats(t *testing.T) {
	t.Parallel()
	var c memstore.Clock
	var mu sync.Mutex
	var all []time.Time
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 500 {
				now := c.Now()
				mu.Lock()
				all = append(all, now)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.SortFunc(all, time.Time.Compare)
	for i, now := range all {
		require.Equal(t, memstore.PGTime(now), now, "microseconds, no monotonic reading")
		if i > 0 {
			require.True(t, now.After(all[i-1]), "readings never repeat")
		}
	}
}

func TestCompareCreated(t *testing.T) {
	t.Parallel()
	at := time.Now()
	low, high := uuid.UUID{1}, uuid.UUID{2}
	require.Equal(t, -1, memstore.CompareCreated(at, high, at.Add(time.Microsecond), low), "created_at first")
	require.Equal(t, -1, memstore.CompareCreated(at, low, at, high), "then id")
	require.Equal(t, 1, memstore.CompareCreated(at, high, at, low))
	require.Equal(t, 0, memstore.CompareCreated(at, low, at, low))
}

func TestClones(t *testing.T) {
	t.Parallel()
	require.Nil(t, memstore.ClonePtr[int](nil))
	v := 1
	p := memstore.ClonePtr(&v)
	*p = 2
	require.Equal(t, 1, v)

	require.Nil(t, memstore.CloneSlice[int](nil, nil), "nil stays nil")
	require.NotNil(t, memstore.CloneSlice([]int{}, nil), "empty stays empty")
	require.NotNil(t, memstore.CloneMap[string, int](nil, nil), "a map is always made")
	double := func(i int) int { return 2 * i }
	require.Equal(t, []int{2, 4}, memstore.CloneSlice([]int{1, 2}, double))
	require.Equal(t, map[string]int{"a": 2}, memstore.CloneMap(map[string]int{"a": 1}, double))
}

func TestGet(t *testing.T) {
	t.Parallel()
	errMissing := errors.New("missing")
	m := map[string]int{"a": 1}
	v, err := memstore.Get(m, "a", errMissing)
	require.NoError(t, err)
	require.Equal(t, 1, v)
	_, err = memstore.Get(m, "b", errMissing)
	require.ErrorIs(t, err, errMissing)
}
