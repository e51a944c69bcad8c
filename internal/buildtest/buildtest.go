// Package buildtest builds the module's programs for tests that run them
// as a user would (the CLI's tests, the custom-binary examples).
package buildtest

import (
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
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
