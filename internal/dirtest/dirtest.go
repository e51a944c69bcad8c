// Package dirtest compares folders in tests: a snapshot of a folder's
// files and their bytes, taken before and after something that must leave
// it as it was.
package dirtest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Snapshot returns the files directly in dir (hidden ones included) with
// their contents, failing the test when dir cannot be read.
func Snapshot(tb testing.TB, dir string) map[string][]byte {
	tb.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	m := map[string][]byte{}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		m[e.Name()] = data
	}
	return m
}

// Equal reports whether two snapshots hold the same files, byte for byte.
func Equal(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}
