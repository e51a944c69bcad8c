package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIDeepSpec: an experiment spec nested 40,000 levels deep (40 KB;
// `sweep` grew past 4 GB and died, exit 2) ends in one line naming the
// file, the place and the bound, exit 1 and no --out folder; so does one
// nested deep inside a cell's options. The shallow case comes first, so
// that a binary without the bound fails it before the deep ones exhaust
// memory.
func TestCLIDeepSpec(t *testing.T) {
	polluxsimBinary(t)
	cell := `{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "fifo", "options": {"x": `
	for _, c := range []struct{ name, spec, want string }{
		{"65 levels", strings.Repeat("[", 65), "e.json: line 1, column 65: arrays and objects nested deeper than 64 levels"},
		{"40000 [", strings.Repeat("[", 40000), "e.json: line 1, column 65: arrays and objects nested deeper than 64 levels"},
		{"options", cell + strings.Repeat(`{"a":`, 40000), "e.json: line 1, column 388: arrays and objects nested deeper than 64 levels"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "e.json"), []byte(c.spec), 0o644); err != nil {
				t.Fatal(err)
			}
			oneLineError(t, runBinary(t, dir, nil, "sweep", "--quiet", "--out", "out", "--experiment", "e.json"), c.want)
			if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
				t.Error("--out was created")
			}
		})
	}
}
