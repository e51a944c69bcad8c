package elasticflow

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// A made-up trace in the artifact's figure 8(a) spelling.
const fig8aStyle = `job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration
0,1000,2000,cifar10,3000,4096,1,4000
1,1500,1500,ncf,1600,32768,8,100
2,1200,900,bert,2400,12,2,1000
`

// The same kind of jobs in the ITP spelling, with a best-effort column.
const itpStyle = `job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration,best_effort
a,50,10,resnet50,150,64,4,100,0
b,60,10,gpt2,260,128,16,100,1
`

func read(t *testing.T, s string) []Job {
	t.Helper()
	jobs, err := ReadTrace(strings.NewReader(s), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

func TestReadTraceBothSpellings(t *testing.T) {
	jobs := read(t, fig8aStyle)
	if len(jobs) != 3 || jobs[1].Model != "ncf" || jobs[1].GPUs != 8 || jobs[1].Batch != 32768 || jobs[1].Iterations != 1500 {
		t.Fatalf("fig8a spelling: %+v", jobs)
	}
	if f := jobs[0].Factor(); f != 0.5 {
		t.Errorf("factor (3000-1000)/4000 = 0.5, got %g", f)
	}
	itp := read(t, itpStyle)
	if itp[0].Submit != 50 || itp[0].Deadline != 150 || itp[0].Factor() != 1 {
		t.Errorf("ITP spelling: %+v", itp[0])
	}
	if itp[1].Deadline != 0 || itp[1].Factor() != 0 {
		t.Errorf("best_effort = 1 must drop the deadline: %+v", itp[1])
	}
}

func TestReadTraceErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty file"},
		{"job_id,submit_time\n", "t.csv:1: no column iteration or num_iteration"},
		{strings.Replace(fig8aStyle, "1,1500,1500,ncf", "1,1500,x,ncf", 1), "t.csv:3: column iteration"},
		{strings.Replace(fig8aStyle, "1600,32768,8", "1600,32768,0", 1), "t.csv:3: column num_gpu"},
		{strings.Replace(fig8aStyle, "1500,ncf,1600", "1500,ncf,1400", 1), "t.csv:3: deadline 1400 is not after submission 1500"},
		{strings.Replace(fig8aStyle, "4096,1,4000", "4096,1.5,4000", 1), "t.csv:2: num_gpu and batch_size must be whole"},
		{"job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration\n", "no jobs"},
	} {
		_, err := ReadTrace(strings.NewReader(c.in), "t.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error with %q, got %v", c.want, err)
		}
	}
}

// Each deadline is the artifact's factor times the job's isolated run
// time here, computed independently with sim.IsolatedRunTime.
func TestConvertKeepsTightness(t *testing.T) {
	set := profiles.Default()
	jobs := read(t, fig8aStyle)
	w, rep, err := Convert(jobs, set, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Jobs != 3 || len(w.Jobs) != 3 || rep.BestEffort != 0 {
		t.Fatalf("report %+v", rep)
	}
	// Sorted by submission and shifted to 0: cifar10 (1000), bert (1200), ncf (1500).
	wantApps := []string{"cifar10", "bert", "ncf"}
	wantTimes := []float64{0, 200, 500}
	src := []Job{jobs[0], jobs[2], jobs[1]}
	var gpuSec, artSec float64
	for i, j := range w.Jobs {
		if j.App != wantApps[i] || j.Time != wantTimes[i] || j.Replicas != src[i].GPUs {
			t.Errorf("job %d: %+v", i, j)
		}
		spec := j
		spec.Deadline = 0
		run := sim.IsolatedRunTime(set.Apps[j.App], spec, 4)
		if !(run > 0) {
			t.Fatalf("job %d: no isolated run time", i)
		}
		want := max(src[i].Factor()*run, 1)
		if math.Abs(j.Deadline-want) > 1e-9*want {
			t.Errorf("job %d: deadline %g, want factor %g x run %g = %g", i, j.Deadline, src[i].Factor(), run, want)
		}
		gpuSec += float64(j.Replicas) * run
		artSec += float64(src[i].GPUs) * src[i].Duration
	}
	if math.Abs(rep.GPUSeconds-gpuSec) > 1e-6*gpuSec || rep.ArtifactGPUSeconds != artSec {
		t.Errorf("GPU-seconds %g / %g, want %g / %g", rep.GPUSeconds, rep.ArtifactGPUSeconds, gpuSec, artSec)
	}
	if rep.BatchReplaced != 0 || w.Jobs[1].Batch != 12 {
		t.Errorf("bert's batch: replaced %d, now %d", rep.BatchReplaced, w.Jobs[1].Batch)
	}
}

// MatchLoad stretches submissions by the work ratio, and nothing else.
func TestConvertMatchLoad(t *testing.T) {
	jobs := read(t, fig8aStyle)
	plain, rep, err := Convert(jobs, profiles.Default(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	stretched, _, err := Convert(jobs, profiles.Default(), Options{MatchLoad: true})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.GPUSeconds / rep.ArtifactGPUSeconds
	for i := range plain.Jobs {
		a, b := plain.Jobs[i], stretched.Jobs[i]
		if math.Abs(b.Time-a.Time*f) > 1e-9*max(1, a.Time*f) || b.Deadline != a.Deadline || b.App != a.App || b.Replicas != a.Replicas {
			t.Errorf("job %d: %+v stretched by %g is %+v", i, a, f, b)
		}
	}
}

func TestConvertSecondsAndMapping(t *testing.T) {
	w, rep, err := Convert(read(t, itpStyle), profiles.Default(), Options{Deadlines: DeadlineSeconds})
	if err != nil {
		t.Fatal(err)
	}
	if w.Jobs[0].App != "imagenet" || w.Jobs[0].Deadline != 100 || w.Jobs[1].App != "bert" || w.Jobs[1].Deadline != 0 {
		t.Errorf("jobs %+v", w.Jobs)
	}
	if rep.BestEffort != 1 || rep.Mapped["resnet50->imagenet"] != 1 || rep.Mapped["gpt2->bert"] != 1 {
		t.Errorf("report %+v", rep)
	}
	if w.Jobs[1].SLO() != traces.SLOBestEffort {
		t.Errorf("best-effort job has class %s", w.Jobs[1].SLO())
	}
	bad := strings.Replace(fig8aStyle, "ncf", "llama", 1)
	if _, _, err := Convert(read(t, bad), profiles.Default(), Options{}); err == nil || !strings.Contains(err.Error(), `line 3: model "llama"`) {
		t.Errorf("unknown model: %v", err)
	}
	if _, _, err := Convert(read(t, fig8aStyle), profiles.Default(), Options{Deadlines: "tight"}); err == nil {
		t.Error("an unknown deadline mode must be an error")
	}
}

// artifactDir is a checkout of pkusys/ElasticFlow named by
// ELASTICFLOW_ARTIFACT; tests that need it skip without it.
func artifactDir(t *testing.T) string {
	t.Helper()
	d := os.Getenv("ELASTICFLOW_ARTIFACT")
	if d == "" {
		t.Skip("ELASTICFLOW_ARTIFACT (a checkout of pkusys/ElasticFlow) not set")
	}
	return d
}

// The artifact's figure 8(a) trace converts whole: 195 jobs of the six
// applications of Pollux's workload, every deadline factor in the
// artifact's [0.5, 1.5], about the same work as in the artifact.
func TestConvertArtifactFig8a(t *testing.T) {
	dir := artifactDir(t)
	f, err := os.Open(filepath.Join(dir, "ElasticFlow", "traces_for_ElasticFlow", "elasticVpollux_e.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	jobs, err := ReadTrace(f, "elasticVpollux_e.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if u := j.Factor(); u < 0.5 || u > 1.5 {
			t.Errorf("line %d: factor %g outside [0.5, 1.5]", j.Line, u)
		}
	}
	w, rep, err := Convert(jobs, profiles.Default(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 195 || rep.BatchReplaced != 0 || len(rep.Mapped) != 6 {
		t.Errorf("%d jobs, report %+v", len(w.Jobs), rep)
	}
	if r := rep.GPUSeconds / rep.ArtifactGPUSeconds; r < 0.9 || r > 1.2 {
		t.Errorf("work here over the artifact's %.3f, measured 1.04", r)
	}
}
