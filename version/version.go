// Package version says which polluxsim made an output: the release and,
// when the binary was built from a VCS checkout, the revision.
package version

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
)

// Release is the release of polluxsim. It is part of every run's input
// identity (run_id): results of another release are not reused.
const Release = "0.1.0"

// String is Release plus "+" and the first 12 digits of the VCS revision
// the binary was built from, when the build recorded one.
func String() string {
	v := Release
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += "+" + s.Value[:12]
			}
		}
	}
	return v
}

// Code identifies the code that simulates: String plus a digest of the
// running binary ("0.1.0+abc… binary 0123456789ab"), so that a rebuilt
// polluxsim redoes a sweep's stored runs rather than mixing results of two
// builds (VCS stamps alone are missing from builds with -buildvcs=false
// and blind to uncommitted changes). Without a readable executable it is
// String.
func Code() string {
	v := String()
	exe, err := os.Executable()
	if err != nil {
		return v
	}
	f, err := os.Open(exe)
	if err != nil {
		return v
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return v
	}
	return v + " binary " + hex.EncodeToString(h.Sum(nil))[:12]
}
