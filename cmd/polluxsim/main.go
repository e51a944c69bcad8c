// Command polluxsim is a trace-driven, discrete-event simulator of a GPU
// cluster running deep-learning training jobs under the registered
// scheduling policies (Pollux, Sia, the Gavel family, Optimus+Oracle,
// Tiresias, SRTF, FIFO). Its command tree is the library package app.
package main

import (
	"os"

	"github.com/polluxsim/polluxsim/cmd/polluxsim/app"
)

func main() { os.Exit(app.Main()) }
