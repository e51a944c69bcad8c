package experiments

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/faults"
)

var updateFaultLog = flag.Bool("update-fault-log", false, "rewrite specs/faults/failures-replay.csv from its process")

// The fault log the failures experiment replays (specs/faults/
// failures-replay.csv) is synthetic, and this is how it was made
// (docs/failures.md): node failures on 16 nodes at 64 times RSC-1's rate
// (0.416 per node-day), rack outages (failure domains of 4 nodes) at 0.25
// per rack-day, repairs lognormal of mean 4 h and log standard deviation
// 1, over 4 days, seed 44, through faults.Generate (one GPU type) and faults.WriteLog.
// The committed file is exactly that; -update-fault-log rewrites it.
const (
	faultLogPath    = "specs/faults/failures-replay.csv"
	faultLogProcess = "rate=0.416,domain=4:0.25,repair=lognormal:14400:1"
	faultLogNodes   = 16
	faultLogDays    = 4
	faultLogSeed    = 44
)

func TestFailuresFaultLog(t *testing.T) {
	m, err := faults.Parse(faultLogProcess)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := faults.Generate(m, make([]string, faultLogNodes), faultLogDays*faults.Day, faultLogSeed)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := faults.WriteLog(&b, ev); err != nil {
		t.Fatal(err)
	}
	if *updateFaultLog {
		if err := os.WriteFile(faultLogPath, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(faultLogPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Errorf("%s is not what its process generates; go test ./experiments -run TestFailuresFaultLog -update-fault-log", faultLogPath)
	}
	// It reads back as the events drawn, rounded to seconds.
	back, err := faults.Read(faultLogPath, bytes.NewReader(got))
	if err != nil || len(back) != len(ev) {
		t.Fatalf("read back %d events (%v), want %d", len(back), err, len(ev))
	}
	nodeFaults, rackFaults := 0, 0
	for _, e := range back {
		if e.Node >= 0 {
			nodeFaults++
		} else {
			rackFaults++
		}
	}
	t.Logf("%d node failures, %d rack outages", nodeFaults, rackFaults)
}

// A spec carries its fault logs beside it: a cell's "failures" names a
// log by a path relative to the spec (read from the spec's folder, not
// the working directory); the log's content, not only its path, is part
// of the run's identity (runspec.RunSpec.FaultLog); a bad row is one
// error naming the file and line; a path outside the spec's folder is
// refused; a sweep's stored copy reads the same.
func TestSpecFaultLog(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := func(failures string) string {
		return `{"name": "f", "version": 1, "description": "d", "cells": [{"name": "c", "policy": "fifo", "settings": {"failures": "` + failures + `"}}]}`
	}
	write("logs/f.csv", "time,node,duration\n100,1,50\n")
	write("f.json", spec("logs/f.csv,ckpt=600"))
	load := func() (*Experiment, error) {
		e, _, err := LoadExperiment(filepath.Join(dir, "f.json"), testExt())
		return e, err
	}
	e, err := load()
	if err != nil {
		t.Fatal(err)
	}
	first := e.Cells[0].Spec().FaultLog()
	if len(first) != 16 || fmt.Sprint(e.FaultLogs()) != "[logs/f.csv]" {
		t.Fatalf("fault log digest %q, logs %v", first, e.FaultLogs())
	}
	id := func(s runspec.RunSpec) string {
		return outputs.RunHash(outputs.PlainRunIdentity, outputs.Identity{InputsHash: "h", Settings: s, FaultLog: s.FaultLog()})
	}
	before := id(e.Cells[0].Spec())
	write("logs/f.csv", "time,node,duration\n100,1,60\n") // same path, other content
	// The spec read its log once: its cells and the copy a sweep stores
	// are the log as it was read, not the file edited since.
	if e.Cells[0].Spec().FaultLog() != first {
		t.Error("a cell's fault log digest changed with the file after the spec was read")
	}
	kept := t.TempDir()
	if err := e.WriteFaultLogs(kept); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(kept, "logs", "f.csv")); string(b) != "time,node,duration\n100,1,50\n" {
		t.Errorf("the stored copy is %q, not the log the cells read", b)
	}
	if e, err = load(); err != nil {
		t.Fatal(err)
	}
	if e.Cells[0].Spec().FaultLog() == first || id(e.Cells[0].Spec()) == before {
		t.Error("an edited fault log leaves the run's identity unchanged")
	}
	// The stored copy (a sweep's folder) reads as the spec did.
	out := t.TempDir()
	if err := e.WriteFaultLogs(out); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "f.json"))
	stored, err := ParseStoredExperiment(data, filepath.Join(out, "experiment.json"), testExt())
	if err != nil || stored.Cells[0].Spec().FaultLog() != e.Cells[0].Spec().FaultLog() {
		t.Errorf("stored copy: %v", err)
	}
	write("logs/f.csv", "time,node,duration\n100,1,60\n200,x,5\n")
	if _, err := load(); err == nil || !strings.Contains(err.Error(), "logs/f.csv:3:") {
		t.Errorf("bad row: %v, want an error naming logs/f.csv:3", err)
	}
	write("f.json", spec("../f.csv"))
	if _, err := load(); err == nil || !strings.Contains(err.Error(), "relative path inside the spec's folder") {
		t.Errorf("a path outside the spec's folder: %v", err)
	}
	// The built-in failures experiment carries its log in the binary.
	fe, _, err := LoadExperiment("failures", testExt())
	if err != nil {
		t.Fatal(err)
	}
	if c := fe.Cell("pollux-replay"); c == nil || c.Spec().FaultLog() == "" {
		t.Error("the failures experiment has no fault-log replay cell reading its embedded log")
	}
}
