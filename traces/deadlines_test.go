package traces

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

const deadlineCSV = `name,time,application,num_replicas,batch_size,deadline
a,10,ncf,1,256,
b,20,ncf,2,512,3600
c,30,cifar10,1,128,90.5
`

// The deadline column is optional: an empty cell is a best-effort job, a
// number the seconds after submission; a round trip keeps both, and a
// workload without deadlines is written without the column.
func TestDeadlineColumn(t *testing.T) {
	w, warnings, err := Parse(strings.NewReader(deadlineCSV), "w.csv", ReadOptions{Apps: referenceApps()})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("err %v, warnings %q", err, warnings)
	}
	want := []float64{0, 3600, 90.5}
	for i, j := range w.Jobs {
		if j.Deadline != want[i] {
			t.Errorf("job %s: deadline %v, want %v", j.Name, j.Deadline, want[i])
		}
	}
	if w.Jobs[0].SLO() != SLOBestEffort || w.Jobs[1].SLO() != SLODeadline {
		t.Errorf("SLO classes %q, %q", w.Jobs[0].SLO(), w.Jobs[1].SLO())
	}
	if got := w.Jobs[1].DueAt(); got != 3620 {
		t.Errorf("due at %v, want 20 + 3600", got)
	}
	if got := w.Jobs[0].DueAt(); got != 0 {
		t.Errorf("best-effort job due at %v, want 0 (none)", got)
	}
	var buf bytes.Buffer
	if err := Write(&buf, w); err != nil {
		t.Fatal(err)
	}
	if buf.String() != deadlineCSV {
		t.Errorf("round trip\n got %q\nwant %q", buf.String(), deadlineCSV)
	}
	for i := range w.Jobs {
		w.Jobs[i].Deadline = 0
	}
	buf.Reset()
	if err := Write(&buf, w); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "deadline") || !strings.HasPrefix(buf.String(), strings.Join(workloadColumns(), ",")+"\n") {
		t.Errorf("a workload without deadlines is written with the column:\n%s", buf.String())
	}
}

func TestDeadlineColumnErrors(t *testing.T) {
	const h = "name,time,application,num_replicas,batch_size,deadline\n"
	for _, c := range []struct{ name, row, want string }{
		{"zero", "a,1,ncf,1,256,0\n", "positive number of seconds"},
		{"negative", "a,1,ncf,1,256,-5\n", "positive number of seconds"},
		{"word", "a,1,ncf,1,256,soon\n", `"soon" is not a number`},
		{"NaN", "a,1,ncf,1,256,NaN\n", "not a finite number"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Parse(strings.NewReader(h+c.row), "w.csv", ReadOptions{})
			wantInputError(t, err, "w.csv:2:", `column "deadline"`, c.want)
		})
	}
	w := &Workload{Source: "s", Jobs: []Job{{Name: "a", App: "ncf", Replicas: 1, Batch: 1, Deadline: math.Inf(1)}}}
	wantInputError(t, Validate(w, nil, 0), `column "deadline"`)
}

// AssignDeadlines' rules on exhaustive small cases: ElasticFlow's deadline
// is floor(U·t) with U in [min, max]; tightness gives exactly f·t; the
// best-effort fraction 0 and 1 give none and all; a seed gives the same
// deadlines and best-effort jobs whatever the rule; other fields never
// change.
func TestAssignDeadlines(t *testing.T) {
	base := func() *Workload {
		w := &Workload{Source: "s"}
		for i := 0; i < 200; i++ {
			w.Jobs = append(w.Jobs, Job{Name: string(rune('a'+i%26)) + strings.Repeat("x", i/26), Time: float64(i), App: "ncf", Replicas: 1 + i%4, Batch: 64})
		}
		return w
	}
	runTime := func(j *Job) float64 { return 100 * float64(j.Replicas) }
	w := base()
	if err := AssignDeadlines(w, DeadlineOptions{Rule: DeadlineElasticFlow, Seed: 7}, runTime); err != nil {
		t.Fatal(err)
	}
	lo, hi := math.Inf(1), 0.0
	for i, j := range w.Jobs {
		tt := runTime(&j)
		if j.Deadline != math.Floor(j.Deadline) || j.Deadline < math.Floor(0.5*tt) || j.Deadline > math.Floor(1.5*tt) {
			t.Fatalf("job %d: deadline %v outside floor([0.5, 1.5] x %v)", i, j.Deadline, tt)
		}
		lo, hi = math.Min(lo, j.Deadline/tt), math.Max(hi, j.Deadline/tt)
		j.Deadline = 0
		if !reflect.DeepEqual(j, base().Jobs[i]) {
			t.Fatalf("job %d changed beyond its deadline: %+v", i, j)
		}
	}
	if lo > 0.55 || hi < 1.45 {
		t.Errorf("200 factors span [%v, %v], want nearly [0.5, 1.5]", lo, hi)
	}
	tight := base()
	if err := AssignDeadlines(tight, DeadlineOptions{Rule: DeadlineTightness, Tightness: 1.25, Seed: 7}, runTime); err != nil {
		t.Fatal(err)
	}
	for _, j := range tight.Jobs {
		if j.Deadline != 1.25*runTime(&j) {
			t.Fatalf("tightness 1.25: deadline %v, want %v", j.Deadline, 1.25*runTime(&j))
		}
	}
	for _, p := range []float64{0, 1} {
		w := base()
		if err := AssignDeadlines(w, DeadlineOptions{Rule: DeadlineElasticFlow, BestEffort: p, Seed: 3}, runTime); err != nil {
			t.Fatal(err)
		}
		if got := w.HasDeadlines(); got != (p == 0) {
			t.Errorf("best_effort %v: has deadlines %v", p, got)
		}
	}
	a, b := base(), base()
	AssignDeadlines(a, DeadlineOptions{Rule: DeadlineElasticFlow, BestEffort: 0.3, Seed: 5}, runTime)
	AssignDeadlines(b, DeadlineOptions{Rule: DeadlineTightness, Tightness: 2, BestEffort: 0.3, Seed: 5}, runTime)
	n := 0
	for i := range a.Jobs {
		if (a.Jobs[i].Deadline == 0) != (b.Jobs[i].Deadline == 0) {
			t.Fatalf("job %d: best-effort under one rule and not the other", i)
		}
		if a.Jobs[i].Deadline == 0 {
			n++
		}
	}
	if n < 40 || n > 80 {
		t.Errorf("%d of 200 jobs best-effort at 0.3, want about 60", n)
	}
}

func TestAssignDeadlinesErrors(t *testing.T) {
	w := &Workload{Jobs: []Job{{Name: "a", App: "ncf", Replicas: 1, Batch: 1}}}
	one := func(*Job) float64 { return 1 }
	for _, c := range []struct {
		opts DeadlineOptions
		want string
	}{
		{DeadlineOptions{Rule: "soon"}, "must be elasticflow or tightness"},
		{DeadlineOptions{Rule: DeadlineTightness}, "tightness must be in"},
		{DeadlineOptions{Rule: DeadlineTightness, Tightness: math.NaN()}, "tightness must be in"},
		{DeadlineOptions{Rule: DeadlineElasticFlow, Min: 2, Max: 1}, "factor range"},
		{DeadlineOptions{Rule: DeadlineElasticFlow, Min: 0.5}, "factor range"},
		{DeadlineOptions{Rule: DeadlineElasticFlow, BestEffort: 1.5}, "best_effort"},
	} {
		if err := AssignDeadlines(w, c.opts, one); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.opts, err, c.want)
		}
	}
	err := AssignDeadlines(w, DeadlineOptions{Rule: DeadlineElasticFlow}, func(*Job) float64 { return 0 })
	if err == nil || !strings.Contains(err.Error(), "job a") {
		t.Errorf("no run time: error %v, want one naming the job", err)
	}
}
