package fserr

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
)

func TestCause(t *testing.T) {
	_, err := os.Open("/nonexistent/file")
	if got := Cause(err); got != syscall.ENOENT {
		t.Errorf("Cause(open error) = %#v, want the bare ENOENT", got)
	}
	if got := Cause(fmt.Errorf("reading: %w", err)); got != syscall.ENOENT {
		t.Errorf("Cause(wrapped open error) = %#v, want the bare ENOENT", got)
	}
	other := errors.New("plain")
	if Cause(other) != other {
		t.Error("Cause changed an error that is not a path error")
	}
}
