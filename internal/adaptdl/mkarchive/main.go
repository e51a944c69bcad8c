// Command mkarchive writes the embedded copy of the Pollux artifact's
// simulator data: a zip file holding, unchanged, traces/<app>/*.csv
// (placements, scalability, validation) and workloads/ and
// workloads-realistic/ of the reference folder given as its argument.
// The Philly table traces/philly.csv is left out (the project embeds a
// summary of it instead, see traces/default).
//
// Usage, from the repository root:
//
//	go run ./internal/adaptdl/mkarchive REF internal/adaptdl/simulator.zip
//
// The output depends only on the files' names and contents (sorted names,
// fixed timestamps, best compression), so rerunning it on the same data
// gives the same bytes.
package main

import (
	"fmt"
	"os"

	"github.com/polluxsim/polluxsim/internal/adaptdl"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: mkarchive REFERENCE-FOLDER OUT.zip")
		os.Exit(2)
	}
	if err := adaptdl.WriteArchive(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "mkarchive:", err)
		os.Exit(1)
	}
}
