// Package buildtest builds the module's programs for tests that run them
// as a user would (the CLI's tests, the custom-binary examples).
package buildtest

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Build compiles the package pkg (as `go build` takes it, relative to the
// test's folder) into dir/name and returns the program's path; the error
// carries go build's output.
func Build(dir, name, pkg string) (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(dir, name)
	if out, err := exec.Command(goTool, "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		return "", errors.New("go build " + pkg + ": " + err.Error() + "\n" + string(out))
	}
	return bin, nil
}

// Must is Build that ends the test t on an error.
func Must(t testing.TB, dir, name, pkg string) string {
	t.Helper()
	bin, err := Build(dir, name, pkg)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// Run runs the program bin with args and returns its standard output and
// error; a failure ends the test t, quoting the standard error.
func Run(t testing.TB, bin string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, errs.String())
	}
	return out.String(), errs.String()
}
