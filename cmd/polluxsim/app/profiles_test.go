package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/internal/refdata"
	"github.com/polluxsim/polluxsim/profiles"
)

// runProfilesCLI runs the polluxsim command line with args and returns its
// standard output.
func runProfilesCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd(testExt, intree.DefaultPolicy)
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestProfilesListEmbedded(t *testing.T) {
	out, err := runProfilesCLI(t, "profiles", "list")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"profiles: embedded", "bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3", "32768", "4..8"} {
		if !strings.Contains(out, want) {
			t.Errorf("list output lacks %q:\n%s", want, out)
		}
	}
}

func TestProfilesShowEmbedded(t *testing.T) {
	out, err := runProfilesCLI(t, "profiles", "show", "imagenet")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"imagenet", "initial batch B0", "200", "12800", "20..200", "epochs", "90",
		"target progress", "24 GPU × 3200", "Throughput (samples/s)", "B=12800", "Statistical efficiency", "1.000"} {
		if !strings.Contains(out, want) {
			t.Errorf("show output lacks %q:\n%s", want, out)
		}
	}
	if _, err := runProfilesCLI(t, "profiles", "show", "resnet9000"); err == nil || !strings.Contains(err.Error(), `unknown application "resnet9000"`) {
		t.Errorf("unknown model: %v", err)
	}
	if _, err := runProfilesCLI(t, "profiles", "show", "bert", "--gpus-per-node", "0"); err == nil {
		t.Error("--gpus-per-node 0 accepted")
	}
	if _, err := runProfilesCLI(t, "profiles", "list", "--profiles", filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "no such file or folder") {
		t.Errorf("missing profiles: %v", err)
	}
}

func TestLoadProfileSet(t *testing.T) {
	set, err := runner.LoadProfiles("")
	if err != nil || set.Source != "embedded" || len(set.Apps) != 6 {
		t.Fatalf("embedded: %v, %v", set, err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runner.LoadProfiles(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("bad compact file: %v", err)
	}
}

// TestProfilesDeriveRoundTrip derives a compact file from the reference
// data, then uses it and the data folder as --profiles.
func TestProfilesDeriveRoundTrip(t *testing.T) {
	dir := refdata.Dir(t)
	out := filepath.Join(t.TempDir(), "compact.json")
	text, err := runProfilesCLI(t, "profiles", "derive", "--from", dir, "--out", out, "--source", "test data", "--license", "Apache-2.0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "wrote "+out+": 6 applications") || !strings.Contains(text, "step time err mean") {
		t.Errorf("derive output:\n%s", text)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"source": "test data"`) || strings.Contains(string(data), dir) {
		t.Errorf("provenance wrong or machine path leaked into the file")
	}
	for _, p := range []string{out, dir, filepath.Join(dir, "traces")} {
		text, err := runProfilesCLI(t, "profiles", "show", "cifar10", "--profiles", p)
		if err != nil {
			t.Fatalf("show --profiles %s: %v", p, err)
		}
		if !strings.Contains(text, "6 GPU × 2048") {
			t.Errorf("show --profiles %s:\n%s", p, text)
		}
	}
	if _, err := runProfilesCLI(t, "profiles", "derive", "--from", dir); err == nil {
		t.Error("derive without --out accepted")
	}
}

// TestProfilesDeriveTypes derives per-type models from the Sia artifact's
// tables (skipped without them) and checks the file and the printed
// accuracy table; bad --types are refused with one message.
func TestProfilesDeriveTypes(t *testing.T) {
	dir := refdata.SiaDir(t)
	out := filepath.Join(t.TempDir(), "types.json")
	text, err := runProfilesCLI(t, "profiles", "derive", "--from", dir, "--types", "dgx-ext,rtx", "--out", out, "--source", "test data")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "wrote "+out+": 6 applications") || !strings.Contains(text, "step time err rms") ||
		!strings.Contains(text, "imagenet       a100") || !strings.Contains(text, "rtx2080ti") || strings.Contains(text, "v100") {
		t.Errorf("derive --types output:\n%s", text)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	f, err := profiles.ParseTypes(out, data)
	if err != nil || len(f.Apps) != 6 || len(f.Apps[0].Types) != 2 || f.Provenance.Source != "test data" || strings.Contains(string(data), dir) {
		t.Errorf("file: %v, %+v", err, f)
	}
	if _, err := runProfilesCLI(t, "profiles", "derive", "--from", dir, "--types", "h200", "--out", out); err == nil ||
		!strings.Contains(err.Error(), `--types: unknown GPU type "h200"`) {
		t.Errorf("unknown type: %v", err)
	}
	if ref, ok := refdata.Find(); ok {
		if _, err := runProfilesCLI(t, "profiles", "derive", "--from", ref, "--types", "a100", "--out", out); err == nil ||
			!strings.Contains(err.Error(), "has tables for GPU types [a100]") {
			t.Errorf("folder without per-type tables: %v", err)
		}
	}
}
