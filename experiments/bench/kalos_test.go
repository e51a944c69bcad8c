package bench

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// kalosKind is one job type of the Kalos stand-in: its share of the jobs
// and the GPU counts it asks for, with weights.
type kalosKind struct {
	typ    string
	share  float64
	gpus   []int
	weight []float64
}

// kalosMix is the stand-in's mix. It is a shape, not Kalos' published
// figures (the trace is not at hand): evaluation jobs are most of the jobs
// and small; debug jobs small; fine-tuning on one to eight nodes; a few
// pre-training jobs on 1 to 128 nodes, which take most of the GPU time.
// The shares are an assumption chosen so that the replay loads 1,000 × 8
// GPUs without being hopelessly overloaded.
var kalosMix = []kalosKind{
	{"Evaluation", 0.600, []int{1, 2, 4, 8}, []float64{4, 2, 2, 4}},
	{"Debug", 0.180, []int{1, 2, 4, 8, 16}, []float64{3, 2, 2, 3, 1}},
	{"SFT", 0.216, []int{8, 16, 32, 64}, []float64{5, 3, 2, 1}},
	{"Pretrain", 0.004, []int{8, 16, 32, 64, 128, 256, 512, 1024}, []float64{8, 6, 4, 3, 2, 2, 1, 1}},
}

// writeKalosStandIn writes a stand-in for Acme's Kalos trace to w in its
// published format (traces.AcmeColumns): jobs jobs of kalosMix arriving as
// a Poisson process over days days from 2023-05-01, every one COMPLETED;
// duration, queue and gpu_time are placeholders the replay does not read.
func writeKalosStandIn(w io.Writer, jobs int, days float64, seed int64) error {
	rng := rand.New(rand.NewSource(seed))
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, strings.Join(traces.AcmeColumns(), ","))
	t0 := time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC)
	const layout = "2006-01-02 15:04:05"
	rate := float64(jobs) / (days * 86400)
	t := 0.0
	for i := 0; i < jobs; i++ {
		t += rng.ExpFloat64() / rate
		k := kalosMix[len(kalosMix)-1]
		u, acc := rng.Float64(), 0.0
		for _, c := range kalosMix {
			if acc += c.share; u < acc {
				k = c
				break
			}
		}
		g := k.gpus[pick(rng, k.weight)]
		s := t0.Add(time.Duration(t) * time.Second)
		e := s.Add(time.Hour)
		fmt.Fprintf(bw, "k%d,u%d,%d,%d,%d,%s,COMPLETED,%s,%s,%s,3600,0,%d\n",
			i, rng.Intn(50), int(math.Ceil(float64(g)/8)), g, 8*g, k.typ,
			s.Format(layout), s.Format(layout), e.Format(layout), 3600*g)
	}
	return bw.Flush()
}

// pick draws an index with probability proportional to its weight.
func pick(rng *rand.Rand, weight []float64) int {
	total := 0.0
	for _, w := range weight {
		total += w
	}
	u := rng.Float64() * total
	for i, w := range weight {
		if u -= w; u < 0 {
			return i
		}
	}
	return len(weight) - 1
}

// kalosWorkload writes the stand-in to a temporary folder and replays it
// as the CLI's acme:FILE does under --profiles llm on 8-GPU nodes.
func kalosWorkload(tb testing.TB, jobs int, days float64) *traces.Workload {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "trace_kalos.csv")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := writeKalosStandIn(f, jobs, days, 1); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	ext, err := intree.With()
	if err != nil {
		tb.Fatal(err)
	}
	w, _, err := ext.ResolveWorkload("acme:"+path, ext.WorkloadEnv(profiles.LLM(), 8))
	if err != nil {
		tb.Fatal(err)
	}
	return w
}

// TestKalosStandInShape: the stand-in replays as LLM jobs of every kind,
// at the GPUs its rows ask for (none larger than 128 nodes), in time order.
func TestKalosStandInShape(t *testing.T) {
	const jobs = 5000
	w := kalosWorkload(t, jobs, 5)
	if len(w.Jobs) != jobs {
		t.Fatalf("%d jobs, want %d", len(w.Jobs), jobs)
	}
	set := profiles.LLM()
	kinds := map[string]int{}
	for i, j := range w.Jobs {
		if _, ok := set.Apps[j.App]; !ok {
			t.Fatalf("job %s: application %q not in the llm set", j.Name, j.App)
		}
		if j.Replicas < 1 || j.Replicas > 1024 {
			t.Errorf("job %s asks for %d GPUs", j.Name, j.Replicas)
		}
		if i > 0 && j.Time < w.Jobs[i-1].Time {
			t.Errorf("job %s arrives before the job before it", j.Name)
		}
		kind := "pretrain"
		for _, s := range []string{"-eval", "-debug", "-sft"} {
			if strings.HasSuffix(j.App, s) {
				kind = s
			}
		}
		kinds[kind]++
	}
	// Shares within 5 standard deviations of the mix's.
	for kind, share := range map[string]float64{"-eval": 0.6, "-debug": 0.18, "-sft": 0.216, "pretrain": 0.004} {
		sd := math.Sqrt(share * (1 - share) / jobs)
		if got := float64(kinds[kind]) / jobs; math.Abs(got-share) > 5*sd {
			t.Errorf("%s: share %.4f, want %.4f ± %.4f", kind, got, share, 5*sd)
		}
	}
	if last := w.Jobs[len(w.Jobs)-1].Time; last < 4*86400 || last > 6*86400 {
		t.Errorf("last arrival at %.0f s, want about 5 days", last)
	}
}

// BenchmarkKalosReplay replays the Kalos stand-in under Pollux on 1,000 ×
// 8 H100s with the llm profile set, recording no rounds: "30000" (30,000
// jobs over 30 days) is the Scale case of docs/scale.md, minutes per
// iteration (run with -benchtime 1x), with Pollux's defaults, and
// "30000-g2" the same with its genetic algorithm held to two generations
// a round (docs/scale.md says why); "3000" (3,000 jobs over 3 days, the
// same arrival rate) is a smaller case for profiles. Each reports the
// simulated days (the makespan), rounds and restarts of its run.
func BenchmarkKalosReplay(b *testing.B) {
	for _, c := range []struct {
		name string
		jobs int
		days float64
		opts []string
	}{{"3000", 3000, 3, nil}, {"30000", 30000, 30, nil}, {"30000-g2", 30000, 30, []string{"generations=2"}}} {
		b.Run(c.name, func(b *testing.B) {
			w := kalosWorkload(b, c.jobs, c.days)
			set := profiles.LLM()
			spec, err := runspec.DefaultSpec("pollux").WithOptions(known, c.opts)
			if err != nil {
				b.Fatal(err)
			}
			spec.Cluster, spec.Nodes, spec.GPUsPerNode = "h100:1000x8", 1000, 8
			spec.Rounds = "none"
			res := runs(b, spec, set, w)
			// What the run simulated: its length and its restarts.
			b.ReportMetric(res.Summary.Makespan/86400, "sim-days")
			b.ReportMetric(float64(res.Summary.Rounds), "rounds")
			b.ReportMetric(float64(res.Summary.Restarts), "restarts")
		})
	}
}
