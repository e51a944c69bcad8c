package traces

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTemp writes content to a file named name in a fresh temporary
// folder and returns its path.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantInputError checks that err is an *InputError whose message contains
// every one of wants.
func wantInputError(t *testing.T, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", wants)
	}
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Errorf("error %v (%T) is not an *InputError", err, err)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

// referenceApps are the six applications of the reference data.
func referenceApps() []string { return GeneratedApps() }

// formatApps returns the per-application B0 and tuned pairs of the
// reference data, as FORMAT.md lists them ("Resulting configs").
func formatApps() map[string]AppConfig {
	pairs := func(batch int, gpus ...int) []TunedPair {
		var out []TunedPair
		for _, g := range gpus {
			out = append(out, TunedPair{Replicas: g, Batch: batch})
		}
		return out
	}
	return map[string]AppConfig{
		AppBERT:        {InitBatch: 12, Tuned: pairs(384, 6, 8, 12, 16)},
		AppCIFAR10:     {InitBatch: 128, Tuned: append(pairs(2048, 6, 8), pairs(4096, 12, 16)...)},
		AppDeepSpeech2: {InitBatch: 20, Tuned: append(pairs(320, 6, 8), pairs(640, 12)...)},
		AppImageNet:    {InitBatch: 200, Tuned: append(pairs(3200, 24), pairs(6400, 32, 48)...)},
		AppNCF:         {InitBatch: 256, Tuned: pairs(32768, 1)},
		AppYOLOv3:      {InitBatch: 8, Tuned: pairs(64, 4)},
	}
}
