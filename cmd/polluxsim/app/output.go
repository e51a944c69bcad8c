package app

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/polluxsim/polluxsim/experiments"
)

// outputFlag is the listings' -o/--output flag; outputFormats its values.
const outputFlag = "output"

var outputFormats = []string{"text", "json"}

// output is a listing's choice of text (for people) or JSON (for
// programs; docs/running.md documents each listing's fields).
type output struct{ format string }

// register adds -o/--output to f.
func (o *output) register(f *pflag.FlagSet) {
	f.StringVarP(&o.format, outputFlag, "o", "text", "output format: "+strings.Join(outputFormats, " or "))
}

// check refuses a format other than text or json, naming the flag.
func (o *output) check() error {
	for _, f := range outputFormats {
		if o.format == f {
			return nil
		}
	}
	return fmt.Errorf("-o/--output: unknown format %q (want %s)", o.format, strings.Join(outputFormats, " or "))
}

// json reports whether JSON was asked for.
func (o *output) json() bool { return o.format == "json" }

// print writes v as JSON when JSON was asked for, else through text.
func (o *output) print(w io.Writer, v any, text func(io.Writer) error) error {
	if o.json() {
		return writeJSON(w, v)
	}
	return text(w)
}

// wroteFiles is what a command that writes files prints with -o json:
// {"wrote": [FILE...]}.
type wroteFiles struct {
	Wrote []string `json:"wrote"`
}

// printWrote says which files a command wrote: "wrote a, b", or with -o
// json v (nil: wroteFiles of files).
func (o *output) printWrote(w io.Writer, v any, files ...string) error {
	if v == nil {
		v = wroteFiles{Wrote: files}
	}
	return o.print(w, v, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "wrote %s\n", strings.Join(files, ", "))
		return err
	})
}

// writeJSON writes v as indented JSON and a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printSkipped says on w, one line each, what a stored experiment names
// that this binary does not know and a read-only command therefore skips
// (figure kinds) or shows from the stored results only (policies).
func printSkipped(w io.Writer, prog string, exp *experiments.Experiment) {
	for _, s := range exp.Skipped() {
		fmt.Fprintf(w, "%s: skipped: %s\n", prog, s)
	}
}
