package runner

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The guard against an output inside an input, in the library: a sweep
// refuses one itself (sweep.CheckOutsideInputs, from sweep.Sweep), and the
// command line calls the same functions before it reads anything.

// Input is a file or folder an operation reads, named as its user gave
// it (Name: a flag such as "--profiles", or an option's name).
type Input struct {
	Name, Path string
}

// CheckOutside refuses an output folder out that lies inside one of the
// inputs, or is one: writing it would change what is read (a profiles
// folder's digest took in a sweep's own outputs, and the sweep reran for
// ever). Inputs without a path are skipped; symbolic links are followed
// (Resolved).
func CheckOutside(out string, inputs ...Input) error {
	for _, in := range inputs {
		if in.Path == "" {
			continue
		}
		if Within(out, in.Path) {
			return fmt.Errorf("--out %s is inside %s %s, an input: outputs must lie outside their inputs", out, in.Name, in.Path)
		}
	}
	return nil
}

// Resolved is path made absolute with its symbolic links followed: all of
// them if it exists, else its folder's.
func Resolved(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// Within reports whether path, resolved, lies inside folder dir (or is
// dir).
func Within(path, dir string) bool {
	rel, err := filepath.Rel(Resolved(dir), Resolved(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
