package protocol

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies/conformance"
)

// TestNegotiate: a policy may answer any version the engine offers, and
// only those; a version 1 engine's hello (no max_protocol) offers 1 alone.
func TestNegotiate(t *testing.T) {
	now := Hello{Protocol: MinVersion, MaxProtocol: Version}
	old := Hello{Protocol: 1}
	for _, tc := range []struct {
		hello Hello
		v     int
		err   string
	}{
		{now, 1, ""},
		{now, 2, ""},
		{now, 3, ""},
		{now, 4, ""},
		{now, 0, "speaks protocol version 0, this simulator speaks 1 to 4"},
		{now, 5, "speaks protocol version 5, this simulator speaks 1 to 4"},
		{old, 1, ""},
		{old, 2, "speaks protocol version 2, this simulator speaks 1"},
	} {
		got, err := Negotiate(tc.hello, tc.v)
		switch {
		case tc.err == "" && (err != nil || got != tc.v):
			t.Errorf("%+v answered %d: %d, %v", tc.hello, tc.v, got, err)
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%+v answered %d: error %v, want %q", tc.hello, tc.v, err, tc.err)
		}
	}
	// The facts of a version are the ones a conversation of that version
	// may ask; every fact AnswerQuery knows has one.
	for _, f := range []string{FactEpochs, FactIterations, FactIterTime, FactRemainingIterations, FactTypeIterTime} {
		if FactVersion(f) != 1 {
			t.Errorf("%s: version %d, want 1", f, FactVersion(f))
		}
	}
	for _, f := range []string{FactStepTime, FactCompletionEpoch} {
		if FactVersion(f) != 2 {
			t.Errorf("%s: version %d, want 2", f, FactVersion(f))
		}
	}
	if FactVersion("age") != 0 {
		t.Error("an unknown fact has a version")
	}
}

// TestStepTimeAnswer: the split oracle's answers over the wire are the
// closed form of the conformance suite's step model, step = compute +
// per-sample·local + sync, sync the local and network parts on several
// GPUs and nodes, and iter_time = step + accum·(step − sync); the sync
// part travels exactly through a decode, and completion_epoch is the last
// epoch.
func TestStepTimeAnswer(t *testing.T) {
	m := conformance.StepModel{Compute: 0.25, PerSample: 0.01, Local: 0.125, Network: 0.5}
	o := conformance.Oracle{Remaining: 100, Batch: 64, Step: m}
	root := loadSchema(t)
	for _, tc := range []struct {
		place []int
		sync  float64
	}{{[]int{1}, 0}, {[]int{4}, m.Local}, {[]int{2, 2}, m.Local + m.Network}} {
		local := 32.0
		step := m.Compute + m.PerSample*local + tc.sync
		a, err := AnswerQuery(o, &Query{Type: TypeQuery, Job: "j", Fact: FactStepTime, Placement: tc.place, Local: local})
		if err != nil {
			t.Fatal(err)
		}
		data, err := Encode(a)
		if err != nil {
			t.Fatal(err)
		}
		validateMessage(t, root, data)
		msg, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		got := msg.(*Answer)
		if got.Value != step || got.Sync != tc.sync || !got.OK {
			t.Errorf("%v: step_time answered %s, want step %v, sync %v", tc.place, data, step, tc.sync)
		}
		if tc.sync == 0 && strings.Contains(string(data), "sync") {
			t.Errorf("%v: %s carries a zero sync", tc.place, data)
		}
		for accum := range 3 {
			it, err := AnswerQuery(o, &Query{Type: TypeQuery, Job: "j", Fact: FactIterTime, Placement: tc.place, Local: local, Accum: accum})
			if err != nil {
				t.Fatal(err)
			}
			if want := step + float64(accum)*(step-tc.sync); it.Value != want || it.Sync != 0 {
				t.Errorf("%v accum %d: iter_time %+v, want %v", tc.place, accum, it, want)
			}
		}
	}
	a, err := AnswerQuery(o, &Query{Type: TypeQuery, Job: "j", Fact: FactCompletionEpoch, Batch: 64})
	if err != nil || a.Value != float64(o.Epochs()-1) {
		t.Errorf("completion_epoch: %+v, %v; want %d", a, err, o.Epochs()-1)
	}
}

// TestVersion2Messages: the messages version 2 adds validate against the
// schema, and what it refuses of them is refused.
func TestVersion2Messages(t *testing.T) {
	root := loadSchema(t)
	for _, msg := range []any{
		Hello{Type: TypeHello, Protocol: MinVersion, MaxProtocol: Version, Seed: 1, RestartDelay: 30},
		Query{Type: TypeQuery, Job: "j", Fact: FactStepTime, Placement: []int{2, 2}, Local: 32},
		Query{Type: TypeQuery, Job: "j", Fact: FactCompletionEpoch, Batch: 128},
		Answer{Type: TypeAnswer, Value: 0.5, Sync: 0.125, OK: true},
	} {
		data, err := Encode(msg)
		if err != nil {
			t.Fatal(err)
		}
		validateMessage(t, root, data)
	}
	for _, bad := range []string{
		`{"type":"answer","value":1,"sync":-1,"ok":true}`,
		`{"type":"hello","protocol":1,"max_protocol":0,"seed":1,"restart_delay":0}`,
		`{"type":"query","job":"j","fact":"step_times"}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(bad), &v); err != nil {
			t.Fatal(err)
		}
		if root.Validate(v) == nil {
			t.Errorf("%s: valid", bad)
		}
	}
}

// TestVersion3Messages: the messages version 3 adds (admission control)
// validate against the schema and read back as they were sent; what the
// schema refuses of them is refused.
func TestVersion3Messages(t *testing.T) {
	root := loadSchema(t)
	job := Job{Name: "j", App: "cifar10", Submit: 5, Deadline: 905, Request: Request{GPUs: 1, Batch: 128}}
	for _, msg := range []any{
		&Ready{Type: TypeReady, Protocol: AdmissionVersion, Name: "edf", Admission: true},
		&Admit{Type: TypeAdmit, Now: 5, Cluster: Cluster{Nodes: 2, GPUsPerNode: 4}, Job: job, Active: []Job{}},
		&Admission{Type: TypeAdmission, Job: "j", Declined: "deadline cannot be met"},
		&Admission{Type: TypeAdmission, Job: "j"},
	} {
		data, err := Encode(msg)
		if err != nil {
			t.Fatal(err)
		}
		validateMessage(t, root, data)
		back, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := Encode(back); string(again) != string(data) {
			t.Errorf("%s read back as %s", data, again)
		}
	}
	for _, bad := range []string{
		`{"type":"admission","declined":"x"}`,
		`{"type":"admission","job":""}`,
		`{"type":"admission","job":"j","declined":3}`,
		`{"type":"admit","now":0,"cluster":{"nodes":1,"gpus_per_node":4},"active":[]}`,
		`{"type":"ready","protocol":3,"name":"p","traits":{"adaptive_batch":false,"needs_oracle":false,"user_gpus":true},"admission":1}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(bad), &v); err != nil {
			t.Fatal(err)
		}
		if root.Validate(v) == nil {
			t.Errorf("%s: valid", bad)
		}
	}
}
