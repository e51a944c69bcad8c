// Package fserr shortens file-system errors for messages that name the
// path themselves.
package fserr

import (
	"errors"
	"io/fs"
)

// Cause returns the cause of a *fs.PathError (say "permission denied"
// instead of "open out/x: permission denied"), so that a message which
// already names the path does not name it twice; other errors are returned
// as they are.
func Cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
