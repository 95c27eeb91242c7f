// Package filestore implements the players module's FileStorage port on the local disk.
package filestore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewardsco/rewards/core/players"
)

// Disk keeps files under Dir, each with a small sidecar holding its content type.
type Disk struct {
	Dir string
}

var _ players.FileStorage = Disk{}

func (d Disk) path(key string) (string, error) {
	clean := filepath.Clean("/" + key)
	if clean == "/" || strings.Contains(key, "..") {
		return "", fmt.Errorf("%w: %q", players.ErrFileNotFound, key)
	}
	return filepath.Join(d.Dir, clean), nil
}

type meta struct {
	ContentType string `json:"contentType"`
}

// Put implements players.FileStorage. It writes to a temporary file and renames, so a reader
// never sees half a file.
func (d Disk) Put(_ context.Context, key, contentType string, data []byte) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	m, _ := json.Marshal(meta{ContentType: contentType})
	for _, f := range []struct {
		path string
		data []byte
	}{{p + ".meta", m}, {p, data}} {
		tmp := f.path + ".tmp"
		if err := os.WriteFile(tmp, f.data, 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, f.path); err != nil {
			return err
		}
	}
	return nil
}

// Open implements players.FileStorage.
func (d Disk) Open(_ context.Context, key string) (io.ReadCloser, string, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, "", err
	}
	raw, err := os.ReadFile(p + ".meta")
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", fmt.Errorf("%w: %q", players.ErrFileNotFound, key)
	}
	if err != nil {
		return nil, "", err
	}
	var m meta
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, "", err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %q", players.ErrFileNotFound, key)
	}
	return f, m.ContentType, nil
}

// Delete implements players.FileStorage: the sidecar goes first, so that readers see the file
// gone at once. A file that is not there is no error.
func (d Disk) Delete(_ context.Context, key string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	for _, f := range []string{p + ".meta", p} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
