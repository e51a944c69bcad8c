// Command polluxsim is a trace-driven, discrete-event simulator of a GPU
// cluster running deep-learning training jobs under the Pollux,
// Optimus+Oracle, Tiresias and FIFO schedulers.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "polluxsim:", err)
		os.Exit(1)
	}
}
