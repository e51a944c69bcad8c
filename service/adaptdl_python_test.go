package service

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/internal/buildtest"
	"github.com/polluxsim/polluxsim/internal/refdata"
)

// TestAdaptDLDropIn runs python/tests/test_adaptdl.py: the drop-in for
// AdaptDL's policy (python/polluxsim_adaptdl.py) driven by AdaptDL's own
// job side and allocator, read from AdaptDL master's code
// (refdata.AdaptDLMasterDir; skipped without it), against a real
// `polluxsim serve` child on loopback. The interpreter is the first of
// python3 and Debian's that imports numpy, else python3 (skipped without
// one): the tests that need AdaptDL's goodput functions skip inside
// without numpy, and say so.
func TestAdaptDLDropIn(t *testing.T) {
	adaptdl := refdata.AdaptDLMasterDir(t)
	py := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		if py == "" {
			py = path
		}
		if exec.Command(path, "-c", "import numpy").Run() == nil {
			py = path
			break
		}
	}
	if py == "" {
		t.Skip("python3 not found: the drop-in for AdaptDL is not checked")
	}
	bin := buildtest.Must(t, t.TempDir(), "polluxsim", "../cmd/polluxsim")
	abs, err := filepath.Abs(adaptdl)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-m", "unittest", "-v", "test_adaptdl")
	cmd.Dir = filepath.Join("..", "python", "tests")
	cmd.Env = append(os.Environ(), "POLLUXSIM_ADAPTDL_MASTER="+abs, "POLLUXSIM_BIN="+bin, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("python tests: %v", err)
	}
	if !strings.Contains(string(out), "\nOK") {
		t.Fatal("the python tests did not say OK")
	}
}
