// Package inputfile reads input files with a bound on their size and only
// when they are regular files, so that a huge or endless input (a wrong
// path, /dev/zero) ends in an error instead of exhausting memory, and a
// named pipe ends in an error instead of blocking forever.
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

// ErrNotRegular is the error (inside an *fs.PathError, wrapped with the
// kind of file: "not a regular file (a named pipe)") of an input that is
// a named pipe, device, socket or folder where a file is needed.
var ErrNotRegular = errors.New("not a regular file")

// ReadFile is os.ReadFile for a regular file of at most MaxSize bytes
// (symbolic links are followed): a larger one fails with ErrTooLarge
// after reading just past the bound, and anything else (a named pipe, a
// device such as /dev/zero, a folder) with ErrNotRegular before it is
// opened. Errors are *fs.PathError, as os.ReadFile's.
func ReadFile(path string) ([]byte, error) {
	return ReadFileLimit(path, MaxSize)
}

// MaxStoredSize bounds the stored results polluxsim reads back whole (a
// sweep's cells, which hold every job's results: a whole-trace run is
// tens of MiB), with ReadFileLimit.
const MaxStoredSize = 1 << 30

// ReadFileLimit is ReadFile with another bound than MaxSize.
func ReadFileLimit(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = tooLarge(limit)
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe
		}
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return data, nil
}

// tooLarge is ErrTooLarge, or its like for another bound.
func tooLarge(limit int64) error {
	if limit == MaxSize {
		return ErrTooLarge
	}
	return limitError(limit)
}

// limitError is ErrTooLarge for a bound other than MaxSize.
type limitError int64

func (e limitError) Error() string {
	return fmt.Sprintf("larger than %d MiB, more than any such input", int64(e)>>20)
}

func (e limitError) Is(target error) bool { return target == ErrTooLarge }

// Open opens a regular file for reading (following symbolic links); a
// named pipe, device, socket or folder fails with ErrNotRegular without
// being opened (opening a named pipe blocks until a writer comes).
// Errors are *fs.PathError.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(path, st); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// The name may have been replaced between the two looks.
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = checkRegular(path, st)
		}
		return nil, err
	}
	return f, nil
}

// ReadFS is ReadFile for the file name of fsys: a regular file of at most
// MaxSize bytes, checked with fs.Stat before it is opened.
func ReadFS(fsys fs.FS, name string) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(name, st); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, name)
}

// readAll reads r bounded, naming path in its error.
func readAll(r io.Reader, path string) ([]byte, error) {
	data, err := ReadAll(r)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe
		}
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return data, nil
}

// checkRegular is nil for a regular file and an *fs.PathError wrapping
// ErrNotRegular, with the kind of file, for anything else.
func checkRegular(path string, st fs.FileInfo) error {
	if st.Mode().IsRegular() {
		return nil
	}
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(st.Mode()))}
}

// Kind names the kind of a file for messages ("a named pipe", "a
// character device", "a socket", "a folder").
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
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
