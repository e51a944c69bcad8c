package app

// Tests through the polluxsim binary: malformed inputs give one line on
// stderr naming the file and line or the flag, a non-zero exit and no
// output; a run killed with SIGKILL leaves no output that looks complete
// but is not; the same command gives byte-identical outputs.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/internal/buildtest"
	"github.com/polluxsim/polluxsim/version"
)

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// polluxsimBinary builds the command once per test run (a few seconds with
// a warm build cache) and returns its path.
func polluxsimBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "polluxsim-cli-test-")
		if binErr != nil {
			return
		}
		binPath, binErr = buildtest.Build(binDir, "polluxsim", "..")
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// cliResult is what one run of the binary did.
type cliResult struct {
	stdout, stderr string
	code           int // exit code; -1 if killed by a signal
}

// runBinary runs polluxsim with args in dir, with extra environment.
func runBinary(t *testing.T, dir string, env []string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(polluxsimBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := cliResult{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	default:
		t.Fatalf("polluxsim %v: %v", args, err)
	}
	return res
}

const workloadHeader = "name,time,application,num_replicas,batch_size\n"

// toyProfiles is a valid reference-format folder with one application,
// "toy"; files maps extra or replacement files into it.
func toyProfiles(files map[string]string) map[string]string {
	m := map[string]string{
		"prof/traces/toy/placements.csv":    "placement,local_bsz,step_time,sync_time\n1,8,0.05,0\n1,16,0.08,0\n2,8,0.07,0.02\n2,16,0.1,0.02\n",
		"prof/traces/toy/validation-16.csv": "progress,iteration,metric,grad_sqr,grad_var\n100,100,0.5,1,2\n200,200,0.6,1,2\n",
	}
	for k, v := range files {
		m[k] = v
	}
	return m
}

// TestCLIMalformedInputs: every malformed input or flag value exits with
// status 1 (a Go panic exits with 2), prints exactly one line on stderr
// that names the file and line or the flag, prints nothing on stdout, and
// leaves no output behind: the --out folder is not even created.
func TestCLIMalformedInputs(t *testing.T) {
	polluxsimBinary(t)
	cases := []struct {
		name  string
		files map[string]string // relative path -> content; "" under a name ending in / makes a folder
		args  []string
		want  string // substring of the message
	}{
		// workload files
		{"missing workload", nil, []string{"--workload", "missing.csv"}, "missing.csv: no such file or directory"},
		{"workload is a folder", map[string]string{"adir/": ""}, []string{"--workload", "adir"}, "adir: is a folder"},
		{"empty workload", map[string]string{"w.csv": ""}, []string{"--workload", "w.csv"}, "w.csv:1: empty file"},
		{"header only", map[string]string{"w.csv": workloadHeader}, []string{"--workload", "w.csv"}, "w.csv:2: no jobs"},
		{"missing column", map[string]string{"w.csv": "name,time,application,batch_size\na,0,ncf,32768\n"},
			[]string{"--workload", "w.csv"}, `w.csv:1: missing column "num_replicas"`},
		{"duplicate column", map[string]string{"w.csv": "name,time,time,application,num_replicas,batch_size\na,0,0,ncf,1,32768\n"},
			[]string{"--workload", "w.csv"}, `w.csv:1: column "time": appears twice`},
		{"binary garbage", map[string]string{"w.csv": "\x00\xff\xfe\x01garbage\n\"unterminated"},
			[]string{"--workload", "w.csv"}, `w.csv:1: missing columns`},
		{"non-numeric time", map[string]string{"w.csv": workloadHeader + "a,0,ncf,1,32768\nb,soon,ncf,1,32768\n"},
			[]string{"--workload", "w.csv"}, `w.csv:3: column "time": "soon" is not a number`},
		{"non-numeric replicas", map[string]string{"w.csv": workloadHeader + "a,0,ncf,four,32768\n"},
			[]string{"--workload", "w.csv"}, `w.csv:2: column "num_replicas": "four" is not a whole number`},
		{"fractional batch", map[string]string{"w.csv": workloadHeader + "a,0,ncf,1,12.5\n"},
			[]string{"--workload", "w.csv"}, `w.csv:2: column "batch_size": "12.5" is not a whole number`},
		{"NaN time", map[string]string{"w.csv": workloadHeader + "a,NaN,ncf,1,32768\n"},
			[]string{"--workload", "w.csv"}, `w.csv:2: column "time": "NaN" is not a finite number`},
		{"infinite time", map[string]string{"w.csv": workloadHeader + "a,+Inf,ncf,1,32768\n"},
			[]string{"--workload", "w.csv"}, `w.csv:2: column "time": "+Inf" is not a finite number`},
		{"time out of range", map[string]string{"w.csv": workloadHeader + "a,1e400,ncf,1,32768\n"},
			[]string{"--workload", "w.csv"}, `w.csv:2: column "time": "1e400" is out of range`},
		{"negative time", map[string]string{"w.csv": workloadHeader + "a,0,ncf,1,32768\nb,-5,ncf,1,32768\n"},
			[]string{"--workload", "w.csv"}, `w.csv:3: column "time": negative time -5`},
		{"zero replicas", map[string]string{"w.csv": workloadHeader + "a,0,ncf,0,32768\n"},
			[]string{"--workload", "w.csv"}, `w.csv:2: column "num_replicas": must be at least 1, got 0`},
		{"empty name", map[string]string{"w.csv": workloadHeader + " ,0,ncf,1,32768\n"},
			[]string{"--workload", "w.csv"}, `w.csv:2: column "name": empty job name`},
		{"duplicate name", map[string]string{"w.csv": workloadHeader + "a,0,ncf,1,32768\na,5,ncf,1,32768\n"},
			[]string{"--workload", "w.csv"}, `w.csv:3: column "name": duplicate job name "a" (first on line 2)`},
		{"short row", map[string]string{"w.csv": workloadHeader + "a,0,ncf,1\n"},
			[]string{"--workload", "w.csv"}, `w.csv:2: has 4 fields, the header has 5`},
		{"bad quoting", map[string]string{"w.csv": workloadHeader + "a,0,ncf,1,32768\n\"b,1,ncf,1,32768\n"},
			[]string{"--workload", "w.csv"}, `w.csv:3: extraneous or missing " in quoted-field`},
		{"unknown application", map[string]string{"w.csv": workloadHeader + "a,0,resnet,1,256\n"},
			[]string{"--workload", "w.csv"}, `w.csv:2: column "application": unknown application "resnet" (known: bert, cifar10,`},
		{"job larger than the cluster", map[string]string{"w.csv": workloadHeader + "a,0,cifar10,4,512\nb,60,cifar10,9,1024\n"},
			[]string{"--workload", "w.csv", "--nodes", "2"}, `w.csv:3: job "b": column "num_replicas": asks for 9 GPUs but the cluster has only 8`},
		{"non-UTF-8 job name", map[string]string{"w.csv": workloadHeader + "a,0,ncf,1,32768\nb\xff\xfe,5,ncf,1,32768\n"},
			[]string{"--workload", "w.csv"}, `w.csv:3: column "name": job name "b\xff\xfe" is not valid UTF-8`},
		{"job after the time limit names its line", map[string]string{"w.csv": workloadHeader + "a,0,ncf,1,32768\nlate,200000000,ncf,1,32768\n"},
			[]string{"--workload", "w.csv", "--policy", "fifo"}, `w.csv:3: job "late": submitted at 2e+08 s, after the simulation's time limit of 1e+08 s`},
		{"only job after the time limit names its line", map[string]string{"w.csv": workloadHeader + "a,1e300,ncf,1,32768\n"},
			[]string{"--workload", "w.csv", "--policy", "fifo"}, `w.csv:2: job "a": submitted at 1e+300 s, after the simulation's time limit of 1e+08 s`},
		{"rounds beyond the round limit", map[string]string{"w.csv": workloadHeader + "a,0,ncf,1,32768\nb,100000,ncf,1,32768\n"},
			[]string{"--workload", "w.csv", "--interval", "0.01"}, "scheduling rounds of 0.01 s, beyond the engine's round limit of 2000000"},
		{"workload with --jobs", map[string]string{"w.csv": workloadHeader + "a,0,ncf,1,32768\n"},
			[]string{"--workload", "w.csv", "--jobs", "5"}, "--jobs, --workload-seed and --config"},

		// flag values
		{"nodes 0", nil, []string{"--nodes", "0"}, "--nodes must be in [1, 100000], got 0"},
		{"nodes negative", nil, []string{"--nodes", "-4"}, "--nodes must be in [1, 100000], got -4"},
		{"nodes huge", nil, []string{"--nodes", "1000000000"}, "--nodes must be in [1, 100000]"},
		{"nodes non-numeric", nil, []string{"--nodes", "four"}, `invalid argument "four" for "--nodes" flag: not a whole number`},
		{"gpus-per-node 0", nil, []string{"--gpus-per-node", "0"}, "--gpus-per-node must be in [1, 1024], got 0"},
		{"interval 0", nil, []string{"--interval", "0"}, `invalid argument "0" for "--interval" flag: must be positive`},
		{"interval -5", nil, []string{"--interval", "-5"}, `invalid argument "-5" for "--interval" flag: must be positive`},
		{"interval abc", nil, []string{"--interval", "abc"}, `invalid argument "abc" for "--interval" flag: not a duration`},
		{"interval NaN", nil, []string{"--interval", "NaN"}, `invalid argument "NaN" for "--interval" flag: not a finite duration`},
		{"interval negative duration", nil, []string{"--interval", "-2m"}, `invalid argument "-2m" for "--interval" flag: must be positive`},
		{"interval 1e400", nil, []string{"--interval", "1e400"}, `invalid argument "1e400" for "--interval" flag: out of range`},
		{"step with fractional interval", nil, []string{"--step", "--interval", "1.5"}, "--interval must be whole seconds with --step, got 1.5 s"},
		{"realloc-delay negative", nil, []string{"--realloc-delay", "-1"}, `invalid argument "-1" for "--realloc-delay" flag: must not be negative`},
		{"p abc", nil, []string{"--p", "abc"}, `invalid argument "abc" for "--p" flag: not a number`},
		{"p NaN", nil, []string{"--p", "NaN"}, `invalid argument "NaN" for "--p" flag: not a finite number`},
		{"p -Inf", nil, []string{"--p", "-Inf"}, `invalid argument "-Inf" for "--p" flag: not a finite number`},
		{"p with digit separators", nil, []string{"--p", "1_0"}, `invalid argument "1_0" for "--p" flag: not a number`},
		{"p hexadecimal", nil, []string{"--p", "0x1p-2"}, `invalid argument "0x1p-2" for "--p" flag: not a number`},
		{"interval with digit separators", nil, []string{"--interval", "1_000"}, `invalid argument "1_000" for "--interval" flag: not a duration`},
		{"nodes with digit separators", nil, []string{"--nodes", "1_000"}, `invalid argument "1_000" for "--nodes" flag: not a whole number`},
		{"interference 1.5", nil, []string{"--interference", "1.5"}, "--interference must be in [0, 1), got 1.5"},
		{"interference negative", nil, []string{"--interference", "-0.1"}, "--interference must be in [0, 1), got -0.1"},
		{"interference NaN", nil, []string{"--interference", "nan"}, `invalid argument "nan" for "--interference" flag: not a finite number`},
		{"jobs 0", nil, []string{"--jobs", "0"}, "--jobs must be at least 1, got 0"},
		{"jobs abc", nil, []string{"--jobs", "abc"}, `invalid argument "abc" for "--jobs" flag: not a whole number`},
		{"jobs too many", nil, []string{"--jobs", "100000"}, "cannot sample 100000 jobs"},
		{"seed negative", nil, []string{"--seed", "-1"}, `invalid argument "-1" for "--seed" flag: not a whole number`},
		{"seed too big", nil, []string{"--seed", "18446744073709551616"}, `invalid argument "18446744073709551616" for "--seed" flag: out of range`},
		{"population negative", nil, []string{"--population", "-1"}, "--population: policy pollux: population must be in [1, 100000]"},
		{"population zero", nil, []string{"--population", "0"}, "--population: policy pollux: population must be in [1, 100000]"},
		{"generations negative", nil, []string{"--generations", "-1"}, "--generations: policy pollux: generations must be in [0, 100000], got -1"},
		{"generations huge", nil, []string{"--generations", "1000000000"}, "--generations: policy pollux: generations must be in [0, 100000], got 1000000000"},
		{"policy option unknown", nil, []string{"--policy-opt", "nosuch=1"}, "--policy-opt: policy pollux has no option \"nosuch\" (valid: p, no_interference_avoidance"},
		{"policy option of a policy without options", nil, []string{"--policy", "fifo", "--policy-opt", "x=1"}, "--policy-opt: policy fifo has no options"},
		{"policy option ill-typed", nil, []string{"--policy", "tiresias", "--policy-opt", "demote_gpu_hours=abc"}, "policy tiresias: option demote_gpu_hours: \"abc\" is not a valid number"},
		{"policy option not key=value", nil, []string{"--policy", "tiresias", "--policy-opt", "demote_gpu_hours"}, "must be key=value"},
		{"policy option out of range", nil, []string{"--policy", "tiresias", "--policy-opt", "demote_gpu_hours=0"}, "demote_gpu_hours must be positive"},
		{"pollux shorthand with another policy", nil, []string{"--policy", "optimus", "--p", "2"}, "--p: policy optimus has no options"},
		{"unknown policy", nil, []string{"--policy", "nosuch"}, `unknown policy "nosuch" (known: chronus, edf, edf-elastic, elasticflow, external, fifo, gandiva, gavel-ftf, gavel-las, gavel-throughput, optimus, pollux, remote, sia, sia-rigid, srtf, themis, tiresias)`},
		{"cluster unknown type", nil, []string{"--cluster", "h200:2x8"}, `--cluster pool 1 "h200:2x8": unknown GPU type "h200"`},
		{"cluster zero nodes", nil, []string{"--cluster", "t4:0x4"}, `--cluster pool 1 "t4:0x4": nodes must be a whole number in [1, 100000], got "0"`},
		{"cluster malformed pool", nil, []string{"--cluster", "t4:4"}, `--cluster pool 1 "t4:4": want NODESxGPUS after the type`},
		{"cluster type without tables", toyProfiles(map[string]string{"w.csv": workloadHeader + "a,0,toy,1,16\n"}),
			[]string{"--policy", "fifo", "--profiles", "prof", "--workload", "w.csv", "--cluster", "t4:4x4,a100:2x8"}, "cluster GPU type a100: no application of workload w.csv has measured tables for it in profiles prof"},
		{"cluster zero GPUs per node", nil, []string{"--cluster", "t4:2x0"}, `--cluster pool 1 "t4:2x0": GPUs per node must be a whole number in [1, 1024], got "0"`},
		{"cluster bad price", nil, []string{"--cluster", "a100:2x8@abc"}, `--cluster pool 1 "a100:2x8@abc": price must be a number of currency units per GPU-hour in [0, 1e+09]`},
		{"cluster huge price", nil, []string{"--cluster", "a100:2x8@1e308"}, `price must be a number of currency units per GPU-hour in [0, 1e+09], got "1e308"`},
		{"cluster empty pool", nil, []string{"--cluster", "t4:2x4,,a100:1x8"}, `--cluster pool 2 "": want TYPE:NODESxGPUS[@PRICE]`},
		{"cluster two prices for a type", nil, []string{"--cluster", "t4:2x4,t4:1x4@2"}, "--cluster: two t4 pools with different prices"},
		{"cluster file short line", map[string]string{"c.txt": "# pools\nedge t4 6\n"}, []string{"--cluster", "c.txt"}, "c.txt:2: want NAME TYPE NODES GPUS_PER_NODE [PRICE], got 3 fields"},
		{"cluster price with digit separators", nil, []string{"--cluster", "a100:2x8@1_0"}, `price must be a number of currency units per GPU-hour in [0, 1e+09], got "1_0"`},
		{"cluster file duplicate pool name", map[string]string{"c.txt": "edge t4 2 4\nedge a100 1 8\n"}, []string{"--cluster", "c.txt"}, `c.txt:2: pool name "edge" is also line 1's`},
		{"min nodes 0", nil, []string{"--autoscaler", "goodput", "--min-nodes", "0"}, "--min-nodes must be at least 1, got 0"},
		{"cluster with nodes", nil, []string{"--cluster", "t4:4x4", "--nodes", "4"}, "--cluster replaces --nodes and --gpus-per-node"},
		{"unknown config", nil, []string{"--config", "tunned"}, `--config must be tuned or realistic, got "tunned"`},

		// elastic clusters and closed loops
		{"autoscaler u not above l", nil, []string{"--autoscaler", "goodput", "--autoscaler-opt", "u=0.5", "--autoscaler-opt", "l=0.5"}, "--autoscaler-opt: autoscaler goodput: u must be greater than l, got u=0.5 l=0.5"},
		{"autoscaler u below l", nil, []string{"--autoscaler", "throughput", "--autoscaler-opt", "u=0.3"}, "--autoscaler-opt: autoscaler throughput: u must be greater than l, got u=0.3 l=0.5"},
		{"autoscaler band inverted", nil, []string{"--autoscaler", "utility-band", "--autoscaler-opt", "low=0.7"}, "--autoscaler-opt: autoscaler utility-band: high must be greater than low"},
		{"autoscaler option unknown", nil, []string{"--autoscaler", "goodput", "--autoscaler-opt", "x=1"}, `--autoscaler-opt: autoscaler goodput has no option "x" (valid: u, l, scale_down)`},
		{"unknown autoscaler", nil, []string{"--autoscaler", "nosuch"}, `--autoscaler: unknown autoscaler "nosuch" (known: goodput, throughput, utility-band)`},
		{"autoscaler options without autoscaler", nil, []string{"--autoscaler-opt", "u=0.9"}, "--autoscaler-opt: autoscaler options need --autoscaler"},
		{"max nodes below min", nil, []string{"--autoscaler", "goodput", "--nodes", "2", "--min-nodes", "3", "--max-nodes", "2"}, "--max-nodes 2 is below --min-nodes 3"},
		{"initial nodes outside the range", nil, []string{"--autoscaler", "goodput", "--nodes", "1", "--min-nodes", "2", "--max-nodes", "4"}, "--nodes 1 (the initial cluster) must be within --min-nodes 2 and --max-nodes 4"},
		{"negative provisioning delay", nil, []string{"--autoscaler", "goodput", "--provision-delay", "-1"}, `invalid argument "-1" for "--provision-delay" flag: must not be negative`},
		{"negative node price", nil, []string{"--autoscaler", "goodput", "--node-price", "-3"}, "--node-price must be in [0, 1e+09], got -3"},
		{"sia lambda_n 0", nil, []string{"--policy", "sia", "--policy-opt", "lambda_n=0"}, "lambda_n must be in (1, 1e+06] with p < 0 (at most 1, no allocation is worth making), got 0"},
		{"sia lambda_n 1", nil, []string{"--policy", "sia", "--policy-opt", "lambda_n=1"}, "lambda_n must be in (1, 1e+06] with p < 0"},
		{"sia lambda_n 0 with p > 0", nil, []string{"--policy", "sia", "--policy-opt", "p=1", "--policy-opt", "lambda_n=0"}, "lambda_n must be in (0, 1e+06], got 0"},
		{"sia p huge", nil, []string{"--policy", "sia", "--policy-opt", "p=-1e308"}, "p must satisfy 0.01 <= |p| <= 10, got -1e+308"},
		{"sia clip huge", nil, []string{"--policy", "sia", "--policy-opt", "clip=1e308"}, "clip must be in [1, 1e+06], got 1e+308"},
		{"gavel round_s huge", nil, []string{"--policy", "gavel-las", "--policy-opt", "round_s=1e308"}, "round_s must be in (0, 1e+06] seconds, got 1e+308"},
		{"gavel weight of an unknown application", nil, []string{"--policy", "gavel-las", "--policy-opt", "weights=bret=2"}, `policy gavel-las: option weights: unknown application "bret" (known: bert, cifar10,`},
		{"gavel weight huge", nil, []string{"--policy", "gavel-las", "--policy-opt", "weights=bert=1e308"}, `weights: "bert=1e308": the weight must be a number in (0, 1e+06]`},
		{"tiresias demotion huge", nil, []string{"--policy", "tiresias", "--policy-opt", "demote_gpu_hours=1e308"}, "demote_gpu_hours must be positive and at most 1e+09, got 1e+308"},
		{"huge node price", nil, []string{"--autoscaler", "goodput", "--node-price", "1e308"}, "--node-price must be in [0, 1e+09], got 1e+308"},
		{"interval beyond the bound", nil, []string{"--interval", "1e8"}, "--interval must be in (0, 1e+06] s, got 1e+08 s"},
		{"elastic flag without autoscaler", nil, []string{"--max-nodes", "8"}, "--min-nodes, --max-nodes, --provision-delay, --node-price and autoscaler options need --autoscaler"},
		{"closed loop negative", nil, []string{"--closed-loop", "-1"}, "--closed-loop must be non-negative, got -1"},
		{"unknown flag", nil, []string{"--nodse", "4"}, "unknown flag: --nodse"},
		{"positional argument", nil, []string{"workload.csv"}, `unknown command "workload.csv" for "polluxsim run"`},

		// profiles
		{"missing profiles folder", nil, []string{"--profiles", "nope"}, "--profiles nope: no such file or folder"},
		{"empty profiles folder", map[string]string{"prof/": ""}, []string{"--profiles", "prof"}, "prof: no application folders found"},
		{"malformed profile cell", toyProfiles(map[string]string{
			"prof/traces/toy/placements.csv": "placement,local_bsz,step_time,sync_time\n1,8,0.05,0\n1,16,slow,0\n"}),
			[]string{"--profiles", "prof"}, `prof/traces/toy/placements.csv:3:6: step_time: "slow" is not a number`},
		{"profile missing column", toyProfiles(map[string]string{
			"prof/traces/toy/validation-16.csv": "progress,iteration,metric,grad_sqr\n100,100,0.5,1\n"}),
			[]string{"--profiles", "prof"}, `prof/traces/toy/validation-16.csv:1: missing column "grad_var"`},
		{"profile progress all zero", toyProfiles(map[string]string{
			"prof/traces/toy/validation-16.csv": "progress,iteration,metric,grad_sqr,grad_var\n0,100,0.5,1,2\n0,200,0.6,1,2\n"}),
			[]string{"--profiles", "prof"}, `prof/traces/toy/validation-16.csv:3:1: progress: 0 on every row`},
		{"profile target below an iteration", toyProfiles(map[string]string{
			"prof/traces/toy/validation-16.csv": "progress,iteration,metric,grad_sqr,grad_var\n1e-306,100,0.5,1,2\n1e-305,200,0.6,1,2\n"}),
			[]string{"--profiles", "prof"}, `prof/traces/toy/validation-16.csv:3:1: progress: the last row's progress 1e-305 (the target) is below 1 iteration`},
		{"compact profile key named", map[string]string{"p.json": "{\"format\": \"polluxsim-compact-profiles/1\", \"apps\": [{\"name\": \"a\"}]}"},
			[]string{"--profiles", "p.json"}, `p.json: application "a": missing "init_batch"`},
		{"profile missing file", map[string]string{"prof/traces/toy/validation-16.csv": "progress,iteration,metric,grad_sqr,grad_var\n100,100,0.5,1,2\n"},
			[]string{"--profiles", "prof"}, "prof/traces/toy/placements.csv: missing file"},
		{"malformed compact profile file", map[string]string{"p.json": "{\"format\": 3,"}, []string{"--profiles", "p.json"}, "p.json: "},
		{"workload application not in profiles", toyProfiles(map[string]string{"w.csv": workloadHeader + "a,0,cifar10,1,128\n"}),
			[]string{"--profiles", "prof", "--workload", "w.csv"}, `w.csv:2: column "application": unknown application "cifar10" (known: toy)`},

		// output folder
		{"out under a regular file", map[string]string{"file": "x"}, []string{"--out", "file/sub"}, "--out file/sub: cannot create the folder: not a directory"},
		{"out is a regular file", map[string]string{"file": "x"}, []string{"--out", "file"}, "--out file: cannot create the folder: not a directory"},
		{"out empty", nil, []string{"--out", ""}, "--out must name a folder"},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		cases = append(cases, struct {
			name  string
			files map[string]string
			args  []string
			want  string
		}{"out read-only", map[string]string{"ro/": ""}, []string{"--out", "ro/out"}, "--out ro/out: cannot create the folder: permission denied"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, content := range tc.files {
				p := filepath.Join(dir, name)
				if strings.HasSuffix(name, "/") {
					if err := os.MkdirAll(p, 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.name == "out read-only" {
				os.Chmod(filepath.Join(dir, "ro"), 0o555)
			}
			args := append([]string{"run", "--quiet", "--out", "out"}, tc.args...)
			r := runBinary(t, dir, nil, args...)
			msg := strings.TrimSpace(r.stderr)
			if r.code != 1 {
				t.Fatalf("exit code %d, want 1\nstderr: %s", r.code, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("printed on stdout: %q", r.stdout)
			}
			if strings.Count(msg, "\n") != 0 || msg == "" {
				t.Errorf("stderr is not exactly one line:\n%s", r.stderr)
			}
			if strings.Contains(msg, "panic") || strings.Contains(msg, "goroutine ") {
				t.Errorf("stderr has a panic trace:\n%s", r.stderr)
			}
			if !strings.HasPrefix(msg, "polluxsim: ") || !strings.Contains(msg, tc.want) {
				t.Errorf("stderr %q\nwant \"polluxsim: ...%s...\"", msg, tc.want)
			}
			// Nothing is written for a bad input: not the --out folder, let
			// alone an output or a temporary file in it.
			if ents, err := os.ReadDir(filepath.Join(dir, "out")); err == nil {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("--out folder created, holding %v", names)
			}
		})
	}
}

// TestCLIManyProblems: a workload with several problems reports each on a
// line of its own (at most ten), every line naming the file and line.
func TestCLIManyProblems(t *testing.T) {
	dir := t.TempDir()
	w := workloadHeader + "a,x,foo,0,1\nb,1,ncf\n"
	if err := os.WriteFile(filepath.Join(dir, "w.csv"), []byte(w), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, dir, nil, "run", "--quiet", "--workload", "w.csv", "--out", "out")
	if r.code != 1 {
		t.Fatalf("exit code %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(strings.TrimPrefix(r.stderr, "polluxsim: ")), "\n")
	line := regexp.MustCompile(`^w\.csv:[23]: `)
	if len(lines) != 4 {
		t.Errorf("%d lines, want 4 (three problems on line 2, one on line 3):\n%s", len(lines), r.stderr)
	}
	for _, l := range lines {
		if !line.MatchString(l) {
			t.Errorf("line %q does not name w.csv and a line", l)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("--out folder created")
	}
}

// TestCLIUnsortedWorkload: rows out of time order are not an error (the
// reference's files are sorted, other tools' may not be): the jobs are
// sorted by time with one warning naming the file, and the run succeeds.
func TestCLIUnsortedWorkload(t *testing.T) {
	dir := t.TempDir()
	w := workloadHeader + "late,100,ncf,1,32768\nearly,5,ncf,1,32768\n"
	if err := os.WriteFile(filepath.Join(dir, "w.csv"), []byte(w), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, dir, nil, "run", "--quiet", "--policy", "fifo", "--workload", "w.csv", "--out", "out")
	if r.code != 0 {
		t.Fatalf("exit code %d\n%s", r.code, r.stderr)
	}
	want := "warning: w.csv: rows are not in time order; jobs sorted by time (ties keep file order)"
	if got := strings.TrimSpace(r.stderr); got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	checkOutputs(t, filepath.Join(dir, "out"), true)
}

// checkOutputs asserts that dir holds no output that looks complete but is
// not: summary.json parses and carries its provenance, each Parquet file
// has the magic bytes at both ends and a footer that fits, and when
// summary.json (written last) is there, so are the Parquet files. Hidden
// temporary files (".name.tmp-*", ".probe-*") are reported; anything else
// is an error. With complete set, all three files must be there.
func checkOutputs(t *testing.T, dir string, complete bool) (outputs, hidden []string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, e := range ents {
		name := e.Name()
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasPrefix(name, "."):
			hidden = append(hidden, name)
			continue
		case name == "summary.json":
			var s struct {
				Version    string `json:"polluxsim_version"`
				InputsHash string `json:"inputs_hash"`
				Jobs       int    `json:"jobs"`
			}
			if err := json.Unmarshal(data, &s); err != nil || s.Version == "" || len(s.InputsHash) != 64 || s.Jobs < 1 {
				t.Errorf("summary.json incomplete (%v): %.200s", err, data)
			}
		case name == "jobs.parquet" || name == "rounds.parquet" || name == "cluster.parquet" || name == "types.parquet" || name == "nodes.parquet":
			if err := checkParquet(data); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		default:
			t.Errorf("unexpected file %s in the output folder", name)
		}
		have[name] = true
		outputs = append(outputs, name)
	}
	if have["summary.json"] || complete {
		for _, f := range []string{"summary.json", "jobs.parquet", "rounds.parquet", "cluster.parquet", "types.parquet"} {
			if !have[f] {
				t.Errorf("%s missing (have %v)", f, outputs)
			}
		}
	}
	return outputs, hidden
}

// checkParquet checks a Parquet file's frame: "PAR1", data, the footer, the
// footer's length (4 bytes, little-endian), "PAR1".
func checkParquet(data []byte) error {
	n := len(data)
	if n < 12 || string(data[:4]) != "PAR1" || string(data[n-4:]) != "PAR1" {
		return errors.New("no PAR1 magic at both ends")
	}
	footer := int(binary.LittleEndian.Uint32(data[n-8 : n-4]))
	if footer <= 0 || footer > n-12 {
		return errors.New("footer length does not fit the file")
	}
	return nil
}

// TestCLISIGKILL kills runs at various points: mid-simulation of a Pollux
// run on the default 160-job workload, and around the end of short runs,
// when the outputs are being written. No kill may leave a file that looks
// complete but is not (see checkOutputs).
func TestCLISIGKILL(t *testing.T) {
	bin := polluxsimBinary(t)
	kill := func(t *testing.T, after time.Duration, args ...string) (killed bool, outputs, hidden []string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out")
		cmd := exec.Command(bin, append([]string{"run", "--quiet", "--out", out}, args...)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(after)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				killed = true
			}
		} else if err != nil {
			t.Fatal(err)
		}
		outputs, hidden = checkOutputs(t, out, !killed)
		return killed, outputs, hidden
	}

	// Mid-simulation: nothing may be there but hidden files.
	killed, outputs, hidden := kill(t, 700*time.Millisecond, "--jobs", "160")
	if !killed {
		t.Log("the 160-job Pollux run finished within 0.7 s; it was not killed")
	} else if len(outputs) > 0 {
		t.Errorf("outputs %v after a kill mid-simulation", outputs)
	}
	t.Logf("killed mid-simulation: outputs %v, hidden %v", outputs, hidden)

	// Around the end of a short run: measure it, then kill at points
	// spread over its last part, where the files are written.
	args := []string{"--policy", "tiresias", "--jobs", "120"}
	start := time.Now()
	if r := runBinary(t, t.TempDir(), nil, append([]string{"run", "--quiet", "--out", "out"}, args...)...); r.code != 0 {
		t.Fatalf("run failed: %s", r.stderr)
	}
	full := time.Since(start)
	n := 8
	if testing.Short() {
		n = 3
	}
	seen := map[string]int{}
	for i := 0; i < n; i++ {
		after := time.Duration(float64(full) * (0.6 + 0.5*float64(i)/float64(n)))
		killed, outputs, hidden := kill(t, after, args...)
		key := strings.Join(outputs, "+")
		if !killed {
			key = "finished"
		}
		seen[key]++
		if len(hidden) > 0 {
			t.Logf("kill at %v left hidden files %v", after.Round(time.Millisecond), hidden)
		}
	}
	t.Logf("full run %v; kills near the end left: %v", full.Round(time.Millisecond), seen)
}

// TestCLIDeterministic: the same command gives byte-identical outputs, run
// twice and with one or two processors (the Pollux search uses as many
// workers as GOMAXPROCS). --no-timing zeroes the wall-clock fields. The
// outputs record the version, seed and inputs hash.
func TestCLIDeterministic(t *testing.T) {
	dir := t.TempDir()
	args := []string{"run", "--quiet", "--no-timing", "--jobs", "30", "--nodes", "4", "--seed", "7"}
	runs := []struct {
		out string
		env []string
	}{
		{"a", []string{"GOMAXPROCS=2"}},
		{"b", []string{"GOMAXPROCS=2"}},
		{"c", []string{"GOMAXPROCS=1"}},
	}
	for _, r := range runs {
		res := runBinary(t, dir, r.env, append(args, "--out", r.out)...)
		if res.code != 0 {
			t.Fatalf("%v: exit %d\n%s", r.env, res.code, res.stderr)
		}
		checkOutputs(t, filepath.Join(dir, r.out), true)
	}
	for _, f := range []string{"summary.json", "jobs.parquet", "rounds.parquet", "cluster.parquet", "types.parquet"} {
		a, err := os.ReadFile(filepath.Join(dir, "a", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs[1:] {
			b, err := os.ReadFile(filepath.Join(dir, r.out, f))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs between run a (GOMAXPROCS=2) and run %s (%v)", f, r.out, r.env)
			}
		}
	}
	var s struct {
		Version    string `json:"polluxsim_version"`
		Seed       uint64 `json:"seed"`
		InputsHash string `json:"inputs_hash"`
		Wall       float64
	}
	data, _ := os.ReadFile(filepath.Join(dir, "a", "summary.json"))
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Version, version.Release) || s.Seed != 7 || len(s.InputsHash) != 64 {
		t.Errorf("provenance: version %q seed %d inputs_hash %q", s.Version, s.Seed, s.InputsHash)
	}
	for _, f := range []string{"jobs.parquet", "rounds.parquet", "cluster.parquet"} {
		data, _ := os.ReadFile(filepath.Join(dir, "a", f))
		for _, want := range []string{"polluxsim.version", "polluxsim.seed", "polluxsim.inputs_hash", s.InputsHash} {
			if !bytes.Contains(data, []byte(want)) {
				t.Errorf("%s metadata lacks %q", f, want)
			}
		}
	}
	// Another seed is another run, with the same inputs hash.
	res := runBinary(t, dir, nil, append(args[:len(args)-1], "8", "--out", "d")...)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	d, _ := os.ReadFile(filepath.Join(dir, "d", "summary.json"))
	if bytes.Equal(d, data) || !bytes.Contains(d, []byte(s.InputsHash)) {
		t.Error("seed 8: want a different summary with the same inputs hash")
	}
}

// TestCLIExtremePowerMean: every finite --p completes a Pollux run (the
// power mean is computed stably; large |p| used to overflow or underflow
// every term, so that no allocation scored above another and jobs waited
// forever).
func TestCLIExtremePowerMean(t *testing.T) {
	if testing.Short() {
		t.Skip("runs five simulations")
	}
	bin := polluxsimBinary(t)
	for _, p := range []string{"200", "-1000", "1e308", "-1e308", "1e-300"} {
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, bin, "run", "--quiet", "--no-timing", "--policy", "pollux", "--jobs", "30", "--p", p, "--out", "out")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("--p %s: %v (%s)", p, err, out)
		}
		var sum struct {
			Jobs   int     `json:"jobs"`
			AvgJCT float64 `json:"avg_jct_s"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "out", "summary.json"))
		if err == nil {
			err = json.Unmarshal(b, &sum)
		}
		if err != nil || sum.Jobs != 30 || !(sum.AvgJCT > 0) {
			t.Errorf("--p %s: summary %+v (%v)", p, sum, err)
		}
	}
}
