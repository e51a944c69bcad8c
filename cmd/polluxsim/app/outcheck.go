package app

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/internal/inputfile"
)

// checkOutFile refuses an --out FILE that is not a regular file (a named
// pipe, a device, a folder), that is the same file as one of the
// command's input files, or that lies inside one of its input folders
// (which writing it would destroy), before any work is done; symbolic
// links are followed, and a link at --out is written through. Writes check
// again (atomicfile.Write).
func checkOutFile(out string, inputs ...inputFile) error {
	if _, err := atomicfile.Check(out); err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	for _, in := range inputs {
		if in.path == "" || in.path == "-" {
			continue
		}
		if st, err := os.Stat(in.path); err == nil && st.IsDir() {
			if within(out, in.path) {
				return fmt.Errorf("--out %s is inside %s %s, an input folder: write to a file elsewhere", out, in.flag, in.path)
			}
		} else if inputfile.SameFile(out, in.path) {
			return fmt.Errorf("--out %s is the same file as %s %s, which it would overwrite: write to another file", out, in.flag, in.path)
		}
	}
	return nil
}

// checkReportOut is checkOutFile for report's HTML, which reads the sweep
// folder in: besides, it refuses to replace an existing file that is not
// HTML (a sweep's outputs, a spec), wherever it is, and any existing file
// inside the sweep folder but an HTML one.
func checkReportOut(out, in string) error {
	if err := checkOutFile(out); err != nil {
		return err
	}
	if _, err := os.Stat(out); err != nil {
		return nil // a new file
	}
	if ext := strings.ToLower(filepath.Ext(resolved(out))); ext != ".html" && ext != ".htm" {
		if within(out, in) {
			return fmt.Errorf("--out %s is a file of the sweep folder %s, which report reads: write the report to an .html file", out, in)
		}
		return fmt.Errorf("--out %s exists and is not an HTML file: report writes HTML, write it to an .html file", out)
	}
	return nil
}

// inputFile is a file or folder a command reads, named by its flag.
type inputFile struct{ flag, path string }

// resolved is path made absolute with its symbolic links followed
// (runner.Resolved, the library's guard against an output inside an
// input).
func resolved(path string) string { return runner.Resolved(path) }

// within reports whether path, resolved, lies inside folder dir
// (runner.Within).
func within(path, dir string) bool { return runner.Within(path, dir) }

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
