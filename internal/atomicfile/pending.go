package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/polluxsim/polluxsim/internal/fserr"
)

// Pending is a file being written over time (e.g. streamed as a run goes)
// that appears under its name only when committed. Its temporary name is
// ".<name>.stream-<random>" in the destination's folder.
type Pending struct {
	*os.File
	path string
}

// streamInfix marks the temporary files of Pending.
const streamInfix = ".stream-"

// Create starts a pending file for path. Temporary files an earlier,
// killed writer of path left behind are removed first.
func Create(path string) (*Pending, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "."+base+streamInfix) {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	f, err := os.CreateTemp(dir, "."+base+streamInfix+"*")
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, fserr.Cause(err))
	}
	return &Pending{File: f, path: path}, nil
}

// Path is the destination's name.
func (p *Pending) Path() string { return p.path }

// Commit syncs, closes and renames the file to its destination.
func (p *Pending) Commit() error {
	if err := p.File.Sync(); err != nil {
		p.Abort()
		return fmt.Errorf("cannot write %s: %w", p.path, err)
	}
	if err := p.File.Close(); err != nil {
		os.Remove(p.File.Name())
		return fmt.Errorf("cannot write %s: %w", p.path, err)
	}
	if err := os.Chmod(p.File.Name(), 0o644); err != nil {
		os.Remove(p.File.Name())
		return fmt.Errorf("cannot write %s: %w", p.path, err)
	}
	if err := os.Rename(p.File.Name(), p.path); err != nil {
		os.Remove(p.File.Name())
		return fmt.Errorf("cannot write %s: %w", p.path, err)
	}
	return nil
}

// Abort closes and removes the temporary file; the destination is
// untouched. Safe to call after Commit or twice.
func (p *Pending) Abort() {
	p.File.Close()
	os.Remove(p.File.Name())
}
