package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// cleanUpOnSignal makes a SIGINT or SIGTERM during a run leave no trace of
// it: the temporary file of the streamed rounds (*tmp once set) is removed,
// and the output folder too if the run created it and it is still empty;
// one line says so and the process exits with status 1. Outputs an earlier
// run left in the folder stay (a run replaces them only once it has
// finished). The returned function stops listening.
func cleanUpOnSignal(w io.Writer, out string, created bool, tmp *atomic.Pointer[string], quiet bool) (stop func()) {
	sig := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sig:
			if p := tmp.Load(); p != nil {
				os.Remove(*p)
			}
			if created {
				os.Remove(out) // only if empty
			}
			if !quiet {
				fmt.Fprintln(w) // end the progress line
			}
			fmt.Fprintf(w, "polluxsim: interrupted (%v): the run was not written to %s\n", s, out)
			os.Exit(1)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}
