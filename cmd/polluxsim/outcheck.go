package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
)

// checkOutFile refuses an --out FILE that is not a regular file (a named
// pipe, a device, a folder), or that is the same file as one of the
// command's inputs (which writing it would destroy), before any work is
// done; a symbolic link is written through. Writes check again
// (atomicfile.Write).
func checkOutFile(out string, inputs ...inputFile) error {
	if _, err := atomicfile.Check(out); err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	for _, in := range inputs {
		if in.path != "" && in.path != "-" && sameFile(out, in.path) {
			return fmt.Errorf("--out %s is the same file as %s %s, which it would overwrite: write to another file", out, in.flag, in.path)
		}
	}
	return nil
}

// checkReportOut is checkOutFile for report's HTML: besides, it refuses to
// overwrite an existing file inside the sweep folder in that is not HTML
// (the sweep's own outputs, which report reads).
func checkReportOut(out, in string) error {
	if err := checkOutFile(out); err != nil {
		return err
	}
	st, err := os.Stat(out)
	if err != nil {
		return nil // a new file
	}
	ext := strings.ToLower(filepath.Ext(out))
	if ext == ".html" || ext == ".htm" {
		return nil
	}
	absIn, err1 := filepath.Abs(in)
	absOut, err2 := filepath.Abs(out)
	if err1 != nil || err2 != nil {
		return nil
	}
	if rel, err := filepath.Rel(absIn, absOut); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && st.Mode().IsRegular() {
		return fmt.Errorf("--out %s is a file of the sweep folder %s, which report reads: write the report to an .html file", out, in)
	}
	return nil
}

// inputFile is a file a command reads, named by its flag.
type inputFile struct{ flag, path string }

// sameFile reports whether paths a and b name the same existing file.
func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
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
