package playersfake

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/rewardsco/rewards/core/players"
)

// Files is an in-memory players.FileStorage that behaves like the disk one
// (adapters/filestore): Open of a missing key wraps players.ErrFileNotFound, and Delete of a
// missing key does nothing.
type Files struct {
	mu    sync.Mutex
	files map[string]file
}

type file struct {
	contentType string
	data        []byte
}

var _ players.FileStorage = (*Files)(nil)

// NewFiles returns an empty store.
func NewFiles() *Files { return &Files{files: map[string]file{}} }

// Put implements players.FileStorage.
func (f *Files) Put(_ context.Context, key, contentType string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[key] = file{contentType: contentType, data: bytes.Clone(data)}
	return nil
}

// Open implements players.FileStorage.
func (f *Files) Open(_ context.Context, key string) (io.ReadCloser, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	got, ok := f.files[key]
	if !ok {
		return nil, "", fmt.Errorf("%w: %q", players.ErrFileNotFound, key)
	}
	return io.NopCloser(bytes.NewReader(got.data)), got.contentType, nil
}

// Delete implements players.FileStorage.
func (f *Files) Delete(_ context.Context, key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.files, key)
	return nil
}

// Keys returns the keys of the stored files, sorted.
func (f *Files) Keys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var keys []string
	for k := range f.files {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
