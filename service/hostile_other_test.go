//go:build !linux

package service

import "errors"

// limitMemory is not done here: only the heap target bounds the child.
func limitMemory(uint64) error { return errors.New("not on this system") }
