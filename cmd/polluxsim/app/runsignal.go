package app

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// interruptible returns a context that a SIGINT or SIGTERM cancels, a
// function telling which signal did (nil while none has), and a function
// that stops listening. Commands that write outputs install it before they
// create anything, and clean up in their own goroutine when the context
// ends, so no exit races a file being made.
func interruptible(parent context.Context) (ctx context.Context, which func() os.Signal, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	var got atomic.Value
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			got.Store(s)
			cancel()
		case <-done:
		}
	}()
	which = func() os.Signal {
		s, _ := got.Load().(os.Signal)
		return s
	}
	stop = func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
	return ctx, which, stop
}
