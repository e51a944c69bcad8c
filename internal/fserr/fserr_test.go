package fserr

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"
)

func TestCause(t *testing.T) {
	_, err := os.Open("/nonexistent/file")
	if got := Cause(err); !errors.Is(got, fs.ErrNotExist) || got.Error() != fs.ErrNotExist.Error() {
		t.Errorf("Cause(open error) = %v, want the bare cause", got)
	}
	wrapped := fmt.Errorf("reading: %w", err)
	if got := Cause(wrapped); got.Error() != fs.ErrNotExist.Error() {
		t.Errorf("Cause(wrapped) = %v, want the bare cause", got)
	}
	other := errors.New("plain")
	if Cause(other) != other {
		t.Error("Cause changed an error that is not a path error")
	}
}
