package filestore_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/filestore"
	"github.com/rewardsco/rewards/core/players"
)

func TestDiskPutOpenDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := filestore.Disk{Dir: t.TempDir()}
	require.NoError(t, d.Put(ctx, "a.png", "image/png", []byte("first")))
	require.NoError(t, d.Put(ctx, "b.png", "image/png", []byte("second")))

	rc, ct, err := d.Open(ctx, "a.png")
	require.NoError(t, err)
	data, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, "first", string(data))
	require.Equal(t, "image/png", ct)

	require.NoError(t, d.Delete(ctx, "a.png"))
	_, _, err = d.Open(ctx, "a.png")
	require.ErrorIs(t, err, players.ErrFileNotFound)
	entries, err := os.ReadDir(d.Dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.ElementsMatch(t, []string{"b.png", "b.png.meta"}, names, "the file and its sidecar are gone, nothing else")

	require.NoError(t, d.Delete(ctx, "a.png"), "deleting a missing file is not an error")
	require.ErrorIs(t, d.Delete(ctx, "../outside.png"), players.ErrFileNotFound)
	require.FileExists(t, filepath.Join(d.Dir, "b.png"))
}
