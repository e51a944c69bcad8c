package traces

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/polluxsim/polluxsim/internal/inputfile"
)

// InputError is a problem at one place of an input: a file, a line, a
// column or a job. Every error of the readers, the decoder and Validate
// that concerns one place is an *InputError (possibly several joined with
// errors.Join); find one with errors.As.
type InputError struct {
	// File names the input (a path, or the name a caller gave a reader).
	File string
	// Line is the 1-based line, 0 when unknown.
	Line int
	// Column is the column (CSV) or field (JSON) concerned, "" if none.
	Column string
	// Job is the name of the job concerned, "" if none.
	Job string
	// Err is the problem itself.
	Err error
}

// Error formats the error as "file:line: job "x": column "c": problem",
// leaving out the parts that are unknown.
func (e *InputError) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	case e.File != "":
		fmt.Fprintf(&b, "%s: ", e.File)
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Job != "" {
		fmt.Fprintf(&b, "job %q: ", e.Job)
	}
	if e.Column != "" {
		fmt.Fprintf(&b, "column %q: ", e.Column)
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString("invalid input")
	}
	return b.String()
}

// Unwrap returns the underlying problem.
func (e *InputError) Unwrap() error { return e.Err }

// maxErrors bounds how many problems one read reports before giving up:
// enough to fix a file in one go, not a wall of text for a wrong file.
const maxErrors = 10

// errorList collects up to maxErrors problems.
type errorList struct {
	errs      []error
	truncated bool
}

// add records err; it reports whether the caller should keep going.
func (l *errorList) add(err error) bool {
	if len(l.errs) >= maxErrors {
		l.truncated = true
		return false
	}
	l.errs = append(l.errs, err)
	return true
}

// err returns nil, the single problem, or all of them joined.
func (l *errorList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	errs := l.errs
	if l.truncated {
		errs = append(errs[:len(errs):len(errs)], errors.New("(further problems not shown)"))
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// openInput opens an input file; a missing file, a folder or another
// problem (a named pipe, a device: not a regular file) is an *InputError naming the path once ("x.csv: no such file or
// directory", not "open x.csv: ...").
func openInput(path string) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, &InputError{File: path, Err: errors.New("is a folder, not a file")}
	}
	f, err := inputfile.Open(path) // a named pipe or device is refused
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &InputError{File: path, Err: err}
	}
	return f, nil
}
