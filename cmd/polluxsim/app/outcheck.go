package app

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/internal/inputfile"
	"github.com/polluxsim/polluxsim/traces"
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
	return checkNotInput(out, out, nil, inputs...)
}

// checkNotInput refuses dest, a file a command is about to write for its
// --out out (out itself, or a file of the folder out), when writing it
// would replace or add to one of the command's inputs, its symbolic links
// followed (a write goes through a link at dest):
//   - dest is the same file as an input file, or as a file inside an
//     input folder (a symbolic or a hard link: os.SameFile);
//   - dest lies inside an input folder and its name does not end in one
//     of kinds, the endings of the files the command writes (".csv"): such
//     a file is the command's own earlier output, anything else there
//     (summary.json, a Parquet table, cells/RUN.json, a profile's table) is
//     the folder's, or would be taken for it. With no kinds, nothing may be
//     written inside an input folder.
//
// Inputs that do not exist (or are not files: "-", a trace name) are
// skipped.
func checkNotInput(out, dest string, kinds []string, inputs ...inputFile) error {
	// "--out DIR: DIR/FILE (a link to TARGET)": where a link takes the
	// write is said, but for the same file as an input file named by
	// --out itself, where "the same file" says it.
	name, link := "--out "+out, ""
	if dest != out {
		name += ": " + dest
	}
	if st, err := os.Lstat(dest); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		link = " (a link to " + resolved(dest) + ")"
	}
	what := name + link
	if dest == out {
		what = name
	}
	for _, in := range inputs {
		if in.path == "" || in.path == "-" {
			continue
		}
		st, err := os.Stat(in.path)
		if err != nil {
			continue
		}
		if !st.IsDir() {
			if inputfile.SameFile(dest, in.path) {
				return fmt.Errorf("%s is the same file as %s %s, which it would overwrite: write to another file", what, in.flag, in.path)
			}
			continue
		}
		what := name + link
		if within(dest, in.path) && !hasKind(resolved(dest), kinds) {
			if len(kinds) == 0 {
				return fmt.Errorf("%s is inside %s %s, an input folder: write to a file elsewhere", what, in.flag, in.path)
			}
			if _, err := os.Stat(dest); err == nil {
				return fmt.Errorf("%s is a file of %s %s, an input folder, which it would overwrite: write elsewhere (or to a %s file)", what, in.flag, in.path, orList(kinds))
			}
			return fmt.Errorf("%s would add a file to %s %s, an input folder, that its readers could take for one of its own: write elsewhere (or to a %s file)", what, in.flag, in.path, orList(kinds))
		}
		if same := sameFileIn(dest, in.path, kinds); same != "" {
			return fmt.Errorf("%s is the same file as %s in %s %s, which it would overwrite: write to another file", what, same, in.flag, in.path)
		}
	}
	return nil
}

// hasKind reports whether path's name ends in one of kinds.
func hasKind(path string, kinds []string) bool {
	name := strings.ToLower(filepath.Base(path))
	for _, k := range kinds {
		if strings.HasSuffix(name, k) {
			return true
		}
	}
	return false
}

// orList joins kinds as ".a, .b or .c".
func orList(kinds []string) string {
	if len(kinds) == 1 {
		return kinds[0]
	}
	return strings.Join(kinds[:len(kinds)-1], ", ") + " or " + kinds[len(kinds)-1]
}

// sameFileIn returns the file inside folder dir, other than path and
// than the command's own (named as kinds), that path (existing) is the
// same file as (a hard link to it), or "".
func sameFileIn(path, dir string, kinds []string) string {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	self := resolved(path)
	found := ""
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: not compared
		}
		if d.Type().IsRegular() && !hasKind(p, kinds) {
			if info, err := d.Info(); err == nil && os.SameFile(st, info) && resolved(p) != self {
				found = p
				return filepath.SkipAll
			}
		}
		return nil
	})
	return found
}

// checkReportOut is checkOutFile for report's HTML, which reads the sweep
// folder in: besides, it refuses to replace an existing file that is not
// HTML (a sweep's outputs, a spec), wherever it is, and any file inside
// the sweep folder but an HTML one.
func checkReportOut(out, in string) error {
	if _, err := atomicfile.Check(out); err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	if err := checkNotInput(out, out, []string{".html", ".htm"}, inputFile{"--in", in}); err != nil {
		return err
	}
	if _, err := os.Stat(out); err != nil {
		return nil // a new file
	}
	if !hasKind(resolved(out), []string{".html", ".htm"}) {
		return fmt.Errorf("--out %s exists and is not an HTML file: report writes HTML, write it to an .html file", out)
	}
	return nil
}

// inputFile is a file or folder a command reads, named by its flag.
type inputFile struct{ flag, path string }

// refInput is the input a reference to a workload or trace names: the file
// or folder of a trace name of tf (helios:FILE), else ref itself (a CSV file; a
// name such as paper:1 or itp:cluster02 names no file there, and is
// skipped).
func refInput(tf *traces.TraceFormats, flag, ref string) inputFile {
	if _, arg, ok := strings.Cut(ref, ":"); ok && tf.IsTraceName(ref) {
		return inputFile{flag, arg}
	}
	return inputFile{flag, ref}
}

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
