//go:build linux

package service

import "syscall"

// limitMemory bounds the process's address space from now on, as `ulimit
// -v` does: past it the runtime cannot map memory and the process dies.
func limitMemory(bytes uint64) error {
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: bytes, Max: bytes})
}
