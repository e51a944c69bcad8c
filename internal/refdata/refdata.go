// Package refdata locates the reference (adaptdl) data set for tests. The
// data is not part of this repository: tests that need it skip cleanly when
// it is absent.
package refdata

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvVar names the environment variable that points at the reference data
// folder (the one holding traces/, workloads/ and workloads-realistic/).
const EnvVar = "POLLUXSIM_REFERENCE"

// Find returns the reference data folder: $POLLUXSIM_REFERENCE if set, else
// ../shared/reference/adaptdl relative to the repository root (found by
// walking up from the working directory to go.mod). ok is false when no
// such folder exists.
func Find() (dir string, ok bool) { return find(EnvVar, "adaptdl", "traces") }

// find locates a reference folder holding marker: the folder $env names
// if set, else ../shared/reference/<name> beside the repository root.
func find(env, name, marker string) (string, bool) {
	if d := os.Getenv(env); d != "" {
		if _, err := os.Stat(filepath.Join(d, marker)); err == nil {
			return d, true
		}
		return "", false
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			ref := filepath.Join(d, "..", "shared", "reference", name)
			if _, err := os.Stat(filepath.Join(ref, marker)); err == nil {
				return ref, true
			}
			return "", false
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// Dir returns the reference data folder or skips the test.
func Dir(tb testing.TB) string {
	tb.Helper()
	d, ok := Find()
	if !ok {
		tb.Skip("reference data not found (set " + EnvVar + " or place it at ../shared/reference/adaptdl)")
	}
	return d
}

// SiaEnvVar names the environment variable that points at the Sia
// artifact's data folder (the one holding traces/ with per-GPU-type tables
// and workloads/).
const SiaEnvVar = "POLLUXSIM_SIA_REFERENCE"

// FindSia returns the Sia reference folder: $POLLUXSIM_SIA_REFERENCE if
// set, else ../shared/reference/sia relative to the repository root. ok is
// false when no such folder exists.
func FindSia() (dir string, ok bool) { return find(SiaEnvVar, "sia", "traces") }

// SiaDir returns the Sia reference folder or skips the test.
func SiaDir(tb testing.TB) string {
	tb.Helper()
	d, ok := FindSia()
	if !ok {
		tb.Skip("Sia reference data not found (set " + SiaEnvVar + " or place it at ../shared/reference/sia)")
	}
	return d
}

// AdaptDLMasterEnvVar names the environment variable that points at
// AdaptDL master's code (the folder holding adaptdl/ and sched/, as
// petuum/adaptdl lays them out).
const AdaptDLMasterEnvVar = "POLLUXSIM_ADAPTDL_MASTER"

// AdaptDLMasterDir returns AdaptDL master's code folder,
// $POLLUXSIM_ADAPTDL_MASTER if set, else ../shared/reference/adaptdl-master
// beside the repository root, or skips the test.
func AdaptDLMasterDir(tb testing.TB) string {
	tb.Helper()
	d, ok := find(AdaptDLMasterEnvVar, "adaptdl-master", filepath.Join("sched", "adaptdl_sched", "allocator.py"))
	if !ok {
		tb.Skip("AdaptDL master's code not found (set " + AdaptDLMasterEnvVar + " or place it at ../shared/reference/adaptdl-master)")
	}
	return d
}
