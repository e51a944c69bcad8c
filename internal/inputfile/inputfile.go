// Package inputfile reads whole input files with a bound on their size, so
// that a huge or endless input (a wrong path, /dev/zero) ends in an error
// instead of exhausting memory.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxSize bounds the files ReadFile reads: far more than any specification,
// profile, cluster, summary or baseline file polluxsim reads whole.
const MaxSize = 64 << 20

// ErrTooLarge is the error (inside an *fs.PathError) of a file over
// MaxSize.
var ErrTooLarge = fmt.Errorf("larger than %d MiB, more than any input read whole", MaxSize>>20)

// ReadFile is os.ReadFile for a file of at most MaxSize bytes; a larger one
// (or an endless stream) fails with ErrTooLarge after reading just past the
// bound. Errors are *fs.PathError, as os.ReadFile's.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := ReadAll(f)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe
		}
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return data, nil
}

// ReadAll is io.ReadAll of at most MaxSize bytes: more (or an endless
// stream) fails with ErrTooLarge after reading just past the bound.
func ReadAll(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, ErrTooLarge
	}
	return data, nil
}

// SameFile reports whether paths a and b name the same existing file
// (false if either does not exist): an output that would overwrite an
// input, or a copy onto itself.
func SameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}
