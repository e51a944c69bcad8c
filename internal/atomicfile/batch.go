package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/polluxsim/polluxsim/internal/fserr"
)

// Batch writes several files that replace their destinations together: each
// is written completely to a hidden temporary file first (Write, Create),
// and only Commit renames them, the last one last. Until Commit every
// destination keeps its earlier content; Abort removes every temporary
// file. A folder whose last file (a run's summary.json) is present thus
// always holds one complete set: Commit removes the last file's earlier
// version before it renames the others.
//
// A Batch is safe for concurrent use: a signal handler may Abort it while
// the files are written.
type Batch struct {
	mu     sync.Mutex
	staged []staged
	open   []*Pending
	done   bool
}

type staged struct{ tmp, dest string }

// Write writes path's new content, as fill writes it, to a temporary file
// of the batch; path itself is untouched until Commit.
func (b *Batch) Write(path string, fill func(w io.Writer) error) error {
	dest, err := Check(path)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	tmp, err := b.create(dest, ".tmp-")
	if err != nil {
		return err
	}
	werr := fill(tmp)
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil && cerr != nil {
		werr = fmt.Errorf("cannot write %s: %w", path, cerr)
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.forget(tmp.Name())
	if werr != nil || b.done {
		os.Remove(tmp.Name())
		if werr == nil {
			werr = errAborted
		}
		return werr
	}
	b.staged = append(b.staged, staged{tmp.Name(), dest})
	return nil
}

// Create starts path's new content as a file written over time (e.g. a
// table streamed while a run goes); Stage hands it to the batch once it is
// complete and closed.
func (b *Batch) Create(path string) (*Pending, error) {
	dest, err := Check(path)
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	f, err := b.create(dest, streamInfix)
	if err != nil {
		return nil, err
	}
	return &Pending{File: f, path: dest}, nil
}

// Stage adds a complete, closed pending file to the files Commit renames.
func (b *Batch) Stage(p *Pending) error {
	if err := os.Chmod(p.File.Name(), 0o644); err != nil {
		return fmt.Errorf("cannot write %s: %w", p.path, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.forget(p.File.Name())
	if b.done {
		os.Remove(p.File.Name())
		return errAborted
	}
	b.staged = append(b.staged, staged{p.File.Name(), p.path})
	return nil
}

var errAborted = errors.New("aborted")

// create makes a temporary file beside dest and registers it in the same
// step, so that Abort removes it whenever it runs.
func (b *Batch) create(dest, infix string) (*os.File, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return nil, errAborted
	}
	f, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+infix+"*")
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", dest, fserr.Cause(err))
	}
	b.open = append(b.open, &Pending{File: f, path: dest})
	return f, nil
}

// forget drops a temporary file from the open ones (b.mu held).
func (b *Batch) forget(name string) {
	for i, p := range b.open {
		if p.File.Name() == name {
			b.open = append(b.open[:i], b.open[i+1:]...)
			return
		}
	}
}

// Commit renames every staged file over its destination: first it removes
// the last staged file's destination (the marker of a complete set), then
// renames the others in order, removes the files of stale (earlier
// outputs the new set does not have), and renames the last one. After a
// failure the destinations may hold a mix, but never the marker of a
// complete set.
func (b *Batch) Commit(stale ...string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return errAborted
	}
	b.done = true
	if len(b.staged) == 0 {
		return nil
	}
	last := b.staged[len(b.staged)-1]
	fail := func(err error) error {
		for _, s := range b.staged {
			os.Remove(s.tmp) // those renamed already are gone
		}
		b.staged = nil
		return err
	}
	if err := os.Remove(last.dest); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fail(fmt.Errorf("cannot replace %s: %w", last.dest, fserr.Cause(err)))
	}
	for _, s := range b.staged[:len(b.staged)-1] {
		if err := os.Rename(s.tmp, s.dest); err != nil {
			return fail(fmt.Errorf("cannot write %s: %w", s.dest, fserr.Cause(err)))
		}
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fail(fmt.Errorf("cannot remove the earlier output %s: %w", p, fserr.Cause(err)))
		}
	}
	if err := os.Rename(last.tmp, last.dest); err != nil {
		return fail(fmt.Errorf("cannot write %s: %w", last.dest, fserr.Cause(err)))
	}
	b.staged = nil
	syncDir(filepath.Dir(last.dest))
	return nil
}

// Abort removes every temporary file of the batch, open or staged; the
// destinations keep their earlier content. Safe to call more than once,
// from another goroutine, or after Commit (then it does nothing).
func (b *Batch) Abort() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = true
	for _, p := range b.open {
		p.File.Close()
		os.Remove(p.File.Name())
	}
	for _, s := range b.staged {
		os.Remove(s.tmp)
	}
	b.open, b.staged = nil, nil
}

// syncDir makes renames in dir durable; best effort.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Staged reports whether a file for path is staged (it will replace path
// at Commit).
func (b *Batch) Staged(path string) bool {
	dest, err := Check(path)
	if err != nil {
		dest = path
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.staged {
		if s.dest == dest || s.dest == path {
			return true
		}
	}
	return false
}
