package service

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/parquettest"
	"github.com/polluxsim/polluxsim/policies"
)

// identityRun runs workload paper:w under spec with --no-timing into dir.
func identityRun(t *testing.T, spec runspec.RunSpec, w int, dir string) {
	t.Helper()
	_, err := runner.Run(context.Background(), spec, runner.Inputs{WorkloadRef: fmt.Sprintf("paper:%d", w)},
		runner.Options{Ext: testExt, Out: dir, NoTiming: true})
	if err != nil {
		t.Fatal(err)
	}
}

// The columns the identity test leaves out: the run's identity and the
// policy's name and options, which name "remote" and its options (url,
// the service's policy) on the remote side.
var identitySkip = []string{"run_id", "policy", "policy_options"}

// sameTables checks that table (a Parquet file) of run folders a and b
// agrees but for identitySkip, and has rows.
func sameTables(t *testing.T, a, b, table string) {
	t.Helper()
	ta := parquettest.ReadTable(t, filepath.Join(a, table))
	defer ta.Release()
	tb := parquettest.ReadTable(t, filepath.Join(b, table))
	defer tb.Release()
	if d := parquettest.DiffExcept(ta, tb, identitySkip...); d != "" {
		t.Errorf("%s, %s and %s: %s", table, filepath.Base(a), filepath.Base(b), d)
	}
	if ta.NumRows() == 0 {
		t.Errorf("%s: no rows", table)
	}
}

// TestRemoteIdentity is the proof that the live path and the simulated
// one are the same code: the eight reference workloads under Pollux,
// Tiresias and Optimus+Oracle, each decided in process and through a
// service on a loopback port (every round posted, every oracle fact
// asked of the simulator), give the same jobs.parquet and rounds.parquet
// in every column but run_id, policy and policy_options. In -short mode
// workloads 1 and 5 only, under -race workload 1.
func TestRemoteIdentity(t *testing.T) {
	srv := New(Config{Registry: testExt.Policies, Autoscalers: testExt.Autoscalers})
	ts := httptest.NewServer(srv.Handler()) // 127.0.0.1:0
	defer ts.Close()
	workloads := []int{1, 2, 3, 4, 5, 6, 7, 8}
	switch {
	case raceEnabled:
		workloads = []int{1}
	case testing.Short():
		workloads = []int{1, 5}
	}
	// The control: the comparison can fail. Pollux through the service
	// with another seed decides otherwise, and the tables say so.
	t.Run("control", func(t *testing.T) {
		dir := t.TempDir()
		identityRun(t, runspec.DefaultSpec("pollux"), 1, filepath.Join(dir, "local"))
		remote, err := runspec.DefaultSpec("remote").WithOptions(testExt, []string{"url=" + ts.URL, "policy=pollux"})
		if err != nil {
			t.Fatal(err)
		}
		remote.Seed = 2
		identityRun(t, remote, 1, filepath.Join(dir, "remote"))
		a := parquettest.ReadTable(t, filepath.Join(dir, "local", "rounds.parquet"))
		b := parquettest.ReadTable(t, filepath.Join(dir, "remote", "rounds.parquet"))
		defer a.Release()
		defer b.Release()
		if d := parquettest.DiffExcept(a, b, append(identitySkip, "seed")...); d == "" {
			t.Error("seeds 1 and 2 give the same rounds: the comparison cannot tell runs apart")
		}
	})
	for _, pol := range []string{"tiresias", "optimus", "pollux"} {
		for _, w := range workloads {
			t.Run(fmt.Sprintf("%s/%d", pol, w), func(t *testing.T) {
				dir := t.TempDir()
				local := runspec.DefaultSpec(pol)
				start := time.Now()
				identityRun(t, local, w, filepath.Join(dir, "local"))
				mid := time.Now()
				remote := runspec.DefaultSpec("remote")
				remote, err := remote.WithOptions(testExt, []string{"url=" + ts.URL, "policy=" + pol})
				if err != nil {
					t.Fatal(err)
				}
				identityRun(t, remote, w, filepath.Join(dir, "remote"))
				t.Logf("in process %.2f s, through the service %.2f s", mid.Sub(start).Seconds(), time.Since(mid).Seconds())
				if n := srv.Sessions(); n != 0 {
					t.Errorf("%d sessions open after the run (the pipeline closes the policy, which closes its session)", n)
				}
				for _, table := range []string{"jobs.parquet", "rounds.parquet"} {
					sameTables(t, filepath.Join(dir, "local"), filepath.Join(dir, "remote"), table)
				}
			})
		}
	}
}

// admissionWorkload is a generated workload with ElasticFlow's deadlines
// (0.5 to 1.5 times each job's run time alone, a fifth of the jobs
// best-effort), on which EDF with admission declines some jobs.
const admissionWorkload = "generate:jobs=40,seed=2,config=realistic,deadlines=elasticflow,best_effort=0.2"

// TestRemoteAdmissionIdentity: admission control through the service is
// the same code as in process. EDF with admission (its oracle asked over
// HTTP within each admission) and without, decided in process and through
// a service on a loopback port, give the same jobs.parquet (declined jobs
// and their reasons included) and rounds.parquet in every column but
// run_id, policy and policy_options; with admission some jobs are
// declined, and the session said it has admission control.
func TestRemoteAdmissionIdentity(t *testing.T) {
	srv := New(Config{Registry: testExt.Policies, Autoscalers: testExt.Autoscalers})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	run := func(spec runspec.RunSpec, dir string) {
		t.Helper()
		if _, err := runner.Run(context.Background(), spec, runner.Inputs{WorkloadRef: admissionWorkload},
			runner.Options{Ext: testExt, Out: dir, NoTiming: true}); err != nil {
			t.Fatal(err)
		}
	}
	for _, admission := range []string{"false", "true"} {
		t.Run("admission="+admission, func(t *testing.T) {
			dir := t.TempDir()
			local, err := runspec.DefaultSpec("edf").WithOptions(testExt, []string{"admission=" + admission})
			if err != nil {
				t.Fatal(err)
			}
			run(local, filepath.Join(dir, "local"))
			remote, err := runspec.DefaultSpec("remote").WithOptions(testExt,
				[]string{"url=" + ts.URL, "policy=edf", `options={"admission": ` + admission + `}`})
			if err != nil {
				t.Fatal(err)
			}
			run(remote, filepath.Join(dir, "remote"))
			if n := srv.Sessions(); n != 0 {
				t.Errorf("%d sessions open after the run", n)
			}
			for _, table := range []string{"jobs.parquet", "rounds.parquet"} {
				sameTables(t, filepath.Join(dir, "local"), filepath.Join(dir, "remote"), table)
			}
			var sum struct {
				Declined float64 `json:"jobs_declined"`
			}
			data, err := os.ReadFile(filepath.Join(dir, "remote", "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &sum); err != nil {
				t.Fatal(err)
			}
			declined := sum.Declined
			if admission == "true" && declined == 0 || admission == "false" && declined != 0 {
				t.Errorf("%v jobs declined through the service", declined)
			}
			t.Logf("%v jobs declined", declined)
		})
	}
}

// TestRemoteLLMIdentity: LLM jobs through the service are the same code
// as in process. Pollux (which sizes LLM jobs: the session's
// traits.sizes_llm_jobs, the jobs' min_gpus and node_unit over the wire)
// and FIFO (rigid) on a small LLM workload on two racks, decided in
// process and through a service on a loopback port, give the same
// jobs.parquet and rounds.parquet in every column but run_id, policy and
// policy_options.
func TestRemoteLLMIdentity(t *testing.T) {
	srv := New(Config{Registry: testExt.Policies, Autoscalers: testExt.Autoscalers})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	in := runner.Inputs{ProfilesRef: "llm", WorkloadRef: "llm:jobs=12,seed=3,hours=1"}
	for _, pol := range []string{"pollux", "fifo"} {
		t.Run(pol, func(t *testing.T) {
			dir := t.TempDir()
			local := runspec.DefaultSpec(pol)
			local.SetCluster(mustCluster(t, "h100:16x8,racks=4,oversub=4"))
			remote, err := runspec.DefaultSpec("remote").WithOptions(testExt, []string{"url=" + ts.URL, "policy=" + pol})
			if err != nil {
				t.Fatal(err)
			}
			remote.SetCluster(mustCluster(t, "h100:16x8,racks=4,oversub=4"))
			for name, spec := range map[string]runspec.RunSpec{"local": local, "remote": remote} {
				if _, err := runner.Run(context.Background(), spec, in, runner.Options{Ext: testExt, Out: filepath.Join(dir, name), NoTiming: true}); err != nil {
					t.Fatal(err)
				}
			}
			for _, table := range []string{"jobs.parquet", "rounds.parquet"} {
				sameTables(t, filepath.Join(dir, "local"), filepath.Join(dir, "remote"), table)
			}
		})
	}
}

func mustCluster(t *testing.T, spec string) policies.Cluster {
	t.Helper()
	c, err := runspec.ParseCluster(spec)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
