// Package atomicfile writes files so that a reader never sees a partial
// one: the content goes to a temporary file in the same folder, named
// ".<name>.tmp-<random>" (hidden, and never the destination's name), which
// is synced and renamed over the destination only when complete. A process
// killed mid-write (SIGKILL, or a signal the command does not catch) leaves
// at most such a hidden temporary file, and the next Write to the same
// destination removes it: a writer holds an advisory lock on its temporary
// file until the rename, so one nobody holds is left over (on systems with
// flock; elsewhere it stays).
//
// Only regular files are replaced: a named pipe, device, socket or folder
// at the destination is refused (see Check), and a symbolic link is
// written through: the file it points to is replaced, the link is kept.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/polluxsim/polluxsim/internal/fserr"
	"github.com/polluxsim/polluxsim/internal/inputfile"
)

// Check returns the file a write to path replaces or creates: path
// itself, or the file a symbolic link at path points to. It fails when
// that is not a regular file (a named pipe, a device, a socket, a folder)
// or when the link does not resolve. The error does not repeat path.
func Check(path string) (string, error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil
	}
	if err != nil {
		return "", fserr.Cause(err)
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", errors.New("a symbolic link that does not resolve to a file")
		}
		if st, err = os.Stat(real); err != nil {
			return "", fserr.Cause(err)
		}
		path = real
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("not a regular file (%s)", inputfile.Kind(st.Mode()))
	}
	return path, nil
}

// Write creates path atomically with the bytes fill writes. If fill fails,
// nothing is left behind and the destination is untouched. See Check for
// the destinations it refuses.
func Write(path string, fill func(w io.Writer) error) (err error) {
	dest, err := Check(path)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	path = dest
	dir := filepath.Dir(path)
	removeAbandoned(dir, filepath.Base(path))
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, fserr.Cause(err))
	}
	hold(tmp)
	closed := false
	defer func() {
		if !closed {
			tmp.Close()
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	if err = fill(tmp); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if !renameOpen {
		if err = tmp.Close(); err != nil {
			return fmt.Errorf("cannot write %s: %w", path, err)
		}
		closed = true
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if !closed {
		closed = true
		if err = tmp.Close(); err != nil {
			return fmt.Errorf("cannot write %s: %w", path, err)
		}
	}
	// Make the rename itself durable (a crash of the machine, not just of
	// the process, could otherwise lose it); best effort.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// minAbandonedAge spares a temporary file younger than this: its writer
// may have created it and not yet locked it.
const minAbandonedAge = time.Minute

// removeAbandoned removes the temporary files of earlier writes to dir/base
// that no live writer holds (see hold) and that are old enough.
func removeAbandoned(dir, base string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), "."+base+".tmp-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) >= minAbandonedAge {
			removeIfAbandoned(filepath.Join(dir, e.Name()))
		}
	}
}

// WriteBytes creates path atomically with data.
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
