package main

import (
	"fmt"
	"io"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
)

// checkOutFile refuses an --out FILE that is not a regular file (a named
// pipe, a device, a folder) before any work is done; a symbolic link is
// written through. Writes check again (atomicfile.Write).
func checkOutFile(out string) error {
	if _, err := atomicfile.Check(out); err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	return nil
}

// maxWarnings bounds the warnings printed for one input, as problems are
// bounded: the rest are counted.
const maxWarnings = 10

// printWarnings prints warnings to w as "warning: ...", at most
// maxWarnings of them, then how many more there were.
func printWarnings(w io.Writer, warnings []string) {
	for i, msg := range warnings {
		if i == maxWarnings {
			fmt.Fprintf(w, "warning: ... and %d more warnings\n", len(warnings)-maxWarnings)
			return
		}
		fmt.Fprintln(w, "warning:", msg)
	}
}
