package traces

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	ok := func() *Workload {
		return &Workload{Source: "w.csv", Jobs: []Job{
			{Name: "a", Time: 0, App: "ncf", Replicas: 1, Batch: 256, Line: 2},
			{Name: "b", Time: 5, App: "imagenet", Replicas: 48, Batch: 6400, Line: 3},
		}}
	}
	if err := Validate(ok(), referenceApps(), 64); err != nil {
		t.Fatalf("valid workload: %v", err)
	}
	cases := []struct {
		name   string
		change func(w *Workload)
		gpus   int
		wants  []string
	}{
		{"too big for the cluster", func(w *Workload) {}, 32,
			[]string{"w.csv:3:", `job "b"`, "asks for 48 GPUs but the cluster has only 32"}},
		{"unknown app", func(w *Workload) { w.Jobs[1].App = "gpt" }, 64,
			[]string{"w.csv:3:", `job "b"`, `unknown application "gpt"`}},
		{"unsorted", func(w *Workload) { w.Jobs[1].Time = -0.0; w.Jobs[0].Time = 9 }, 64,
			[]string{"w.csv:3:", "before the previous job's"}},
		{"duplicate", func(w *Workload) { w.Jobs[1].Name = "a" }, 64, []string{"duplicate job name"}},
		{"NaN", func(w *Workload) { w.Jobs[0].Time = math.NaN() }, 64, []string{`job "a"`, "not a finite number"}},
		{"zero batch", func(w *Workload) { w.Jobs[0].Batch = 0 }, 64, []string{`column "batch_size"`}},
		{"empty name, no line", func(w *Workload) { w.Jobs[0].Name = ""; w.Jobs[0].Line = 0 }, 64,
			[]string{"w.csv: ", `job "#1"`, "empty job name"}},
		{"control character", func(w *Workload) { w.Jobs[0].Name = "a\nb" }, 64, []string{"control characters"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := ok()
			c.change(w)
			wantInputError(t, Validate(w, referenceApps(), c.gpus), c.wants...)
		})
	}
	if err := Validate(nil, nil, 0); err == nil {
		t.Error("nil workload accepted")
	}
	if err := Validate(&Workload{}, nil, 0); err == nil || !strings.Contains(err.Error(), "no jobs") {
		t.Errorf("empty workload: %v", err)
	}
}

func TestValidateReportsEveryJob(t *testing.T) {
	w := &Workload{Source: "w.csv"}
	for i := 0; i < 3; i++ {
		w.Jobs = append(w.Jobs, Job{Name: string(rune('a' + i)), App: "ncf", Replicas: 100, Batch: 1, Line: i + 2})
	}
	err := Validate(w, nil, 64)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 2 || ie.Job != "a" || ie.Column != ColReplicas {
		t.Fatalf("first problem %+v", ie)
	}
	if n := strings.Count(err.Error(), "asks for 100 GPUs"); n != 3 {
		t.Errorf("%d problems reported, want 3:\n%v", n, err)
	}
}
