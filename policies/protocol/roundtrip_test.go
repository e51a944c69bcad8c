package protocol

import (
	"reflect"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/faults"
	"github.com/polluxsim/polluxsim/internal/schematest"
	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// recorder is FIFO under other traits that, every round, sends the
// round's input through the wire form and back: encoded, checked against
// the schema, decoded and converted, it must equal what the engine gave.
type recorder struct {
	*fifo.Policy
	t      *testing.T
	root   *schematest.Node
	traits policies.Traits
	rounds int
	// seen counts what the rounds held, so the test knows what it covered.
	params, typeModels, allocs, deadlines, interrupted, llm int
}

func (r *recorder) Traits() policies.Traits { return r.traits }

func (r *recorder) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	r.rounds++
	msg := Round{Type: TypeRound, Round: r.rounds, Now: now, Cluster: FromCluster(c)}
	for i := range jobs {
		msg.Jobs = append(msg.Jobs, FromJob(&jobs[i]))
	}
	data, err := Encode(msg)
	if err != nil {
		r.t.Fatal(err)
	}
	validateMessage(r.t, r.root, data)
	back, err := Decode(data)
	if err != nil {
		r.t.Fatal(err)
	}
	got := back.(*Round)
	if got.Now != now || !reflect.DeepEqual(got.Cluster.Policies(), c) {
		r.t.Errorf("round %d: now %v cluster %+v, sent %v %+v", r.rounds, got.Now, got.Cluster.Policies(), now, c)
	}
	for i := range jobs {
		want := jobs[i]
		if want.Oracle == nil {
			r.t.Fatalf("round %d: job %s has no oracle under NeedsOracle", r.rounds, want.Name)
		}
		want.Oracle = nil
		if g := got.Jobs[i].Policies(); !reflect.DeepEqual(g, want) {
			r.t.Errorf("round %d job %d: back from the wire\n%+v\nsent\n%+v", r.rounds, i, g, want)
		}
		if want.Params != nil {
			r.params++
		}
		if want.TypeModels != nil {
			r.typeModels++
		}
		if want.Alloc != nil {
			r.allocs++
		}
		if want.Interruptions > 0 {
			r.interrupted++
		}
		if want.NodeUnit > 0 && want.MinGPUs > 0 {
			r.llm++
		}
		if want.Deadline > 0 {
			r.deadlines++
			if want.Deadline != want.Submit+1234.5 {
				r.t.Errorf("round %d: job %s due at %v, want its submission + 1234.5 s", r.rounds, want.Name, want.Deadline)
			}
		}
	}
	d := r.Policy.Schedule(now, c, jobs)
	data, err = Encode(Decision{Type: TypeDecision, Round: r.rounds, Alloc: d.Alloc})
	if err != nil {
		r.t.Fatal(err)
	}
	validateMessage(r.t, r.root, data)
	return d
}

// TestRealRoundsRoundTrip: the rounds of two real simulations (an
// untyped cluster and a T4 + A100 one under an adaptive policy, so that
// fitted θ_sys and per-type models are on the wire), and one under
// failures (so that jobs' interruptions are), survive the wire form bit
// for bit and validate against the schema.
func TestRealRoundsRoundTrip(t *testing.T) {
	w := &traces.Workload{Source: "test", Jobs: []traces.Job{
		{Name: "cifar10-0", Time: 0, App: "cifar10", Replicas: 2, Batch: 256},
		{Name: "ncf-1", Time: 30, App: "ncf", Replicas: 1, Batch: 32768, Deadline: 1234.5},
		{Name: "cifar10-2", Time: 200, App: "cifar10", Replicas: 4, Batch: 512},
		{Name: "bert-3", Time: 400, App: "bert", Replicas: 4, Batch: 32},
	}}
	for _, tc := range []struct {
		name     string
		cluster  policies.Cluster
		traits   policies.Traits
		failures *faults.Model
	}{
		{"untyped", policies.Cluster{Nodes: 2, GPUsPerNode: 4}, policies.Traits{NeedsOracle: true, UserGPUs: true}, nil},
		{"t4+a100", policies.NewCluster(policies.Pool{Type: "t4", Nodes: 1, GPUsPerNode: 4, Price: 1.5, Name: "old"},
			policies.Pool{Type: "a100", Nodes: 1, GPUsPerNode: 8}), policies.Traits{AdaptiveBatch: true, NeedsOracle: true}, nil},
		{"failures", policies.Cluster{Nodes: 2, GPUsPerNode: 4}, policies.Traits{NeedsOracle: true, UserGPUs: true},
			&faults.Model{JobFailRate: 100, Repair: faults.Dist{Kind: "fixed", Mean: 600}, Checkpoint: faults.Checkpoint{Mode: "fixed", Interval: 300}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{Policy: fifo.New(), t: t, root: loadSchema(t), traits: tc.traits}
			cfg := sim.DefaultConfig()
			cfg.Cluster, cfg.Rounds, cfg.FullRounds = tc.cluster, sim.RoundsNone, true
			cfg.Failures, cfg.FaultSeed = tc.failures, 1
			if _, err := sim.Run(cfg, profiles.Default(), w, r); err != nil {
				t.Fatal(err)
			}
			if r.rounds < 10 || r.allocs == 0 || r.deadlines == 0 {
				t.Errorf("%d rounds, %d job views holding GPUs, %d with a deadline: the test covers too little", r.rounds, r.allocs, r.deadlines)
			}
			if (r.interrupted > 0) != (tc.failures != nil) {
				t.Errorf("%d job views with interruptions, want some exactly under failures", r.interrupted)
			}
			if tc.traits.AdaptiveBatch && (r.params == 0 || r.typeModels == 0) {
				t.Errorf("adaptive run: %d views with params, %d with type models", r.params, r.typeModels)
			}
		})
	}
}

// TestLLMRoundsRoundTrip: what a policy needs to size and place LLM jobs
// (protocol version 4) survives the wire bit for bit on a real run: jobs'
// min_gpus and node_unit, the cluster's racks and oversubscription, and
// the trait sizes_llm_jobs in ready. A conversation of version 3 carries
// none of them (older strict peers refuse unknown fields), and what it
// carries still validates.
func TestLLMRoundsRoundTrip(t *testing.T) {
	w := &traces.Workload{Source: "test", Jobs: []traces.Job{
		{Name: "big", App: "llm-70b-eval", Replicas: 16, Batch: 64, Deadline: 1234.5},
		{Name: "sft", Time: 60, App: "llm-7b-sft", Replicas: 8, Batch: 64},
		{Name: "small", Time: 120, App: "llm-1b-eval", Replicas: 4, Batch: 64},
	}}
	traits := policies.Traits{NeedsOracle: true, SizesLLMJobs: true}
	r := &recorder{Policy: fifo.New(), t: t, root: loadSchema(t), traits: traits}
	cfg := sim.DefaultConfig()
	cfg.Cluster = policies.NewCluster(policies.Pool{Type: "h100", Nodes: 4, GPUsPerNode: 8})
	cfg.Cluster.Racks, cfg.Cluster.Oversubscription = 2, 4
	cfg.Rounds, cfg.FullRounds = sim.RoundsNone, true
	if _, err := sim.Run(cfg, profiles.LLM(), w, r); err != nil {
		t.Fatal(err)
	}
	if r.rounds < 5 || r.llm == 0 {
		t.Fatalf("%d rounds, %d LLM job views: the test covers too little", r.rounds, r.llm)
	}

	ready := Ready{Type: TypeReady, Protocol: Version, Name: "p", Traits: FromTraits(traits)}
	data, err := Encode(ready)
	if err != nil {
		t.Fatal(err)
	}
	validateMessage(t, r.root, data)
	back, err := Decode(data)
	if err != nil || back.(*Ready).Traits.Policies() != traits {
		t.Errorf("ready's traits back from the wire: %+v, %v; sent %+v", back, err, traits)
	}

	j := policies.Job{Name: "j", App: "llm-7b", MinGPUs: 2, NodeUnit: 8, Limits: models.Limits{InitBatch: 8, MaxBatch: 64, MinLocal: 1, MaxLocal: 16}}
	old := Round{Type: TypeRound, Round: 1, Cluster: FromCluster(cfg.Cluster).ForVersion(AdmissionVersion), Jobs: []Job{FromJob(&j)}}
	old.Jobs[0].ForVersion(AdmissionVersion)
	data, err = Encode(old)
	if err != nil {
		t.Fatal(err)
	}
	validateMessage(t, r.root, data)
	for _, key := range []string{"node_unit", "racks", "oversubscription"} {
		if strings.Contains(string(data), key) {
			t.Errorf("a version 3 round carries %s: %s", key, data)
		}
	}
	cur := FromJob(&j)
	cur.ForVersion(LLMVersion)
	if cur.NodeUnit != 8 || FromCluster(cfg.Cluster).ForVersion(LLMVersion).Racks != 2 {
		t.Errorf("a version 4 round drops what it carries: %+v", cur)
	}
}
