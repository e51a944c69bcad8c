package profiles_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/polluxsim/polluxsim/profiles"
)

const (
	toyPlacements  = "local_bsz,step_time,sync_time,placement\n8,0.2,0.01,1\n8,0.3,0.05,2\n"
	toyScalability = "local_bsz,step_time,sync_time,num_nodes,num_replicas\n8,0.1,0.01,1,1\n"
)

// Every file of an application folder is read bounded and only when it is
// a regular file: placements.csv, scalability.csv, validation-*.csv and
// the Sia layout's per-type tables, each replaced by a link to /dev/zero
// (which grew to 4.6 GB before) or by a named pipe (which blocked for
// ever), end in one error naming the file.
func TestLoadSpecialFiles(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, layout := range []map[string]string{
		{"placements.csv": toyPlacements, "scalability.csv": toyScalability, "validation-32.csv": toyValidation},
		{"placements-aws.csv": toyPlacements, "scalability-aws.csv": toyScalability, "validation-32.csv": toyValidation},
	} {
		for victim := range layout {
			for _, special := range []string{"zero", "fifo"} {
				dir := writeApp(t, layout)
				p := filepath.Join(dir, "traces", "toy", victim)
				os.Remove(p)
				want := "(a character device)"
				if special == "zero" {
					if err := os.Symlink("/dev/zero", p); err != nil {
						t.Skip(err)
					}
				} else {
					if err := syscall.Mkfifo(p, 0o644); err != nil {
						t.Skip(err)
					}
					want = "(a named pipe)"
				}
				_, err := profiles.Load(dir)
				if err == nil || !strings.Contains(err.Error(), p+": not a regular file "+want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s as %s: %v", special, victim, err)
				}
				if _, err := profiles.LoadApp(filepath.Dir(p)); err == nil || !strings.Contains(err.Error(), "not a regular file "+want) {
					t.Errorf("LoadApp: %s as %s: %v", special, victim, err)
				}
			}
		}
	}
	// A compact profile file, too.
	if _, err := profiles.LoadCompact("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero: not a regular file (a character device)") {
		t.Errorf("LoadCompact(/dev/zero): %v", err)
	}
}

// An application folder whose name holds a newline (or is not UTF-8) is
// refused in one line, quoted, instead of splitting every message about it.
func TestLoadAppNameControl(t *testing.T) {
	for _, bad := range []string{"to\ny", "to\x01y", "to\xffy"} {
		dir := t.TempDir()
		app := filepath.Join(dir, "traces", bad)
		if err := os.MkdirAll(app, 0o755); err != nil {
			t.Skip(err)
		}
		os.WriteFile(filepath.Join(app, "placements.csv"), []byte(toyPlacements), 0o644)
		os.WriteFile(filepath.Join(app, "validation-32.csv"), []byte(toyValidation), 0o644)
		for name, load := range map[string]func() error{
			"Load":    func() error { _, err := profiles.Load(dir); return err },
			"LoadApp": func() error { _, err := profiles.LoadApp(app); return err },
		} {
			err := load()
			if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "application folder") {
				t.Errorf("%s %q: %v", name, bad, err)
			}
		}
	}
}
