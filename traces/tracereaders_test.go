package traces

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/internal/refdata"
)

// TestPaperLoadConstants recomputes the paper's pool (the Philly jobs
// DefaultPhillyFilter keeps) and its GPU time from the reference's
// philly.csv.
func TestPaperLoadConstants(t *testing.T) {
	tab, _, err := ReadPhilly(filepath.Join(refdata.Dir(t), "traces", "philly.csv"))
	if err != nil {
		t.Fatal(err)
	}
	f := DefaultPhillyFilter()
	n, gs := 0, 0.0
	for i := range tab.Jobs {
		if _, ok := f.arrival(&tab.Jobs[i]); ok {
			n++
			gs += tab.Jobs[i].GPUTime
		}
	}
	if n != PaperPoolJobs || math.Abs(gs-PaperPoolGPUSeconds) > 1e-3 {
		t.Errorf("pool %d jobs, %.3f GPU-s; constants %d, %.3f", n, gs, PaperPoolJobs, PaperPoolGPUSeconds)
	}
	t.Logf("paper load: %.4f Philly GPU-hours per GPU-hour, %.4f jobs per GPU-hour", PaperGPUHoursPerGPUHour(), PaperJobsPerGPUHour())
}

// TestITPRealRows reads the first rows of cluster02 as FORMAT.md shows
// the format, and checks every job is whole.
func TestITPRealRows(t *testing.T) {
	tab, err := ReadITP("2")
	if err != nil {
		t.Fatal(err)
	}
	if tab.Name != "itp:cluster02" || !tab.Start.IsZero() {
		t.Errorf("name %q, start %v", tab.Name, tab.Start)
	}
	for _, j := range tab.Jobs {
		if j.GPUs < 1 || !(j.Duration > 0) || j.Submit < 0 || len(j.ID) != 36 {
			t.Fatalf("job %+v", j)
		}
	}
	if _, err := builtinFormats.Read("itp:cluster11"); err == nil || !strings.Contains(err.Error(), "cluster01 … cluster10") {
		t.Errorf("itp:cluster11: %v", err)
	}
	// Neither an embedded cluster nor a file: both are said.
	missing := filepath.Join(t.TempDir(), "nonexist.csv")
	want := "itp:" + missing + `: no ITP cluster "` + missing + `" (the embedded ones are cluster01 … cluster10) and no such file`
	if _, err := builtinFormats.Read("itp:" + missing); err == nil || err.Error() != want {
		t.Errorf("itp:%s: %v\nwant %s", missing, err, want)
	}
}

func TestITPMalformedRows(t *testing.T) {
	for in, want := range map[string]string{
		"job_id,submission_time,duration,num_gpu\na,1,2,x\n":           `bad.csv:2: column "num_gpu": "x" is not a whole number`,
		"job_id,submission_time,duration,num_gpu\na,1,2,1\nb,-5,2,1\n": `bad.csv:3: column "submission_time": time "-5" out of range`,
		"job_id,submission_time,duration,num_gpu\na,1,-2,1\n":          `bad.csv:2: column "duration": negative duration -2`,
		"job_id,submission_time,duration,num_gpu\na,1,2\n":             `bad.csv:2: has 3 fields, the header has 4`,
		"job_id,submission_time,num_gpu\na,1,2\n":                      `bad.csv:1: missing column "duration"`,
		"job_id,submission_time,duration,num_gpu\na,1,2,0\n":           `bad.csv: no GPU job in the trace (1 rows read; left out: bad.csv:2: zero GPUs)`,
		"": `bad.csv:1: empty file`,
		"job_id,submission_time,duration,num_gpu\na,1,2,1.5\n": `bad.csv:2: column "num_gpu": "1.5" is not a whole number`,
		"job_id,job_id,submission_time,duration,num_gpu\n":     `appears twice`,
	} {
		_, err := ParseITP(strings.NewReader(in), "bad.csv")
		wantInputError(t, err, want)
	}
	long := "job_id,submission_time,duration,num_gpu\n" + strings.Repeat("x", maxLineBytes+1)
	_, err := ParseITP(strings.NewReader(long), "long.csv")
	wantInputError(t, err, "long.csv:2: line longer than")
}

// heliosCSV is a cluster_log.csv written to the published header, with
// rows of the forms the trace has: a CPU job, a job cancelled in the
// queue (no start time), the five states.
const heliosCSV = `job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue
23498,uf4c0,vc6YE,8,64,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:03,2020-06-09 20:41:03,7200,2
23499,uf4c0,vc6YE,0,4,1,COMPLETED,2020-06-09 18:42:00,2020-06-09 18:42:01,2020-06-09 18:43:01,60,1
23500,u1a2b,vcEwI,16,128,2,FAILED,2020-06-09 19:00:00,2020-06-09 19:10:00,2020-06-09 19:40:00,1800,600
23501,u1a2b,vcEwI,1,6,1,CANCELLED,2020-06-09 19:05:00,,2020-06-09 19:06:00,0,0
23502,u9,vc6YE,2,12,1,TIMEOUT,2020-06-10 18:41:01,2020-06-10 18:41:01,2020-06-11 18:41:01,86400,0
23503,u9,vc6YE,1,6,1,NODE_FAIL,2020-06-08 12:00:00,2020-06-08 12:00:00,2020-06-08 12:01:40,100,0
`

func TestHeliosPublishedHeader(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, HeliosJobFile), []byte(heliosCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := builtinFormats.Read("helios:" + filepath.Join(dir, HeliosJobFile))
	if err != nil {
		t.Fatal(err)
	}
	if tab.Report.Rows != 6 || tab.Report.Kept != 4 || tab.Report.Dropped[TraceDropZeroGPUs] != 1 || tab.Report.Dropped[TraceDropNoRunTime] != 1 {
		t.Fatalf("report %+v", tab.Report)
	}
	// The earliest submission is NODE_FAIL's 2020-06-08 12:00:00.
	if want := time.Date(2020, 6, 8, 12, 0, 0, 0, time.UTC); !tab.Start.Equal(want) {
		t.Errorf("start %v, want %v", tab.Start, want)
	}
	j := tab.Jobs[0]
	if j.ID != "23498" || j.User != "uf4c0" || j.VC != "vc6YE" || j.GPUs != 8 || j.Nodes != 1 || j.Status != "COMPLETED" ||
		j.Duration != 7200 || j.Submit != 86400+6*3600+41*60+1 || j.Line != 2 {
		t.Errorf("first job %+v", j)
	}
	s, err := SummarizeTrace(tab, 4)
	if err != nil {
		t.Fatal(err)
	}
	if s.States["FAILED"] != 1 || s.States["TIMEOUT"] != 1 || s.MaxGPUs != 16 || s.GPUHours != (8*7200+16*1800+2*86400+100)/3600.0 {
		t.Errorf("summary %+v", s)
	}
	// The folder form also reads cluster_gpu_number.csv.
	gpus := "date,vc6YE,vcEwI\n2020-06-08,64,32\n2020-06-09,64,48\n2020-06-10,,40\n"
	if err := os.WriteFile(filepath.Join(dir, HeliosGPUFile), []byte(gpus), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err = builtinFormats.Read("helios:" + dir)
	if err != nil {
		t.Fatal(err)
	}
	if tab.ClusterGPUs != 112 || tab.Report.Kept != 4 {
		t.Errorf("cluster GPUs %d, report %+v", tab.ClusterGPUs, tab.Report)
	}
	c, err := ParseHeliosGPUs(strings.NewReader("date,vc,gpu_num\nd1,a,8\nd1,b,16\nd2,a,32\n"), "long.csv")
	if err != nil || c.Days != 2 || c.MaxTotal != 32 || c.MaxByVC["b"] != 16 {
		t.Errorf("long form: %+v, %v", c, err)
	}
	_, err = ParseHeliosGPUs(strings.NewReader("date,vc1\nd1,x\n"), "g.csv")
	wantInputError(t, err, `g.csv:2: column "vc1": "x" is not a whole number`)
}

func TestHeliosMalformedRows(t *testing.T) {
	h := strings.Join(HeliosColumns(), ",") + "\n"
	for row, want := range map[string]string{
		"1,u,v,8,1,1,COMPLETED,2020/06/09 18:41:01,,,10,0":                     `column "submit_time": "2020/06/09 18:41:01" is not a time of the form 2006-01-02 15:04:05`,
		"1,u,v,8,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,,-1,0":  `column "duration": negative duration -1`,
		"1,u,v,-8,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,,1,0":  `column "gpu_num": GPU count -8 out of range`,
		"1,u,v,8,1,one,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,,1,0": `column "node_num": "one" is not a whole number`,
	} {
		_, err := ParseHelios(strings.NewReader(h+row+"\n"), "cluster_log.csv")
		wantInputError(t, err, "cluster_log.csv:2: "+want)
	}
}

func TestAcmeSerenAndKalos(t *testing.T) {
	seren := strings.Join(AcmeColumns(), ",") + "\n" +
		"dlc1,u1,128,1024,8192,Pretrain,COMPLETED,2023-07-01 00:00:00,2023-07-01 00:10:00,2023-07-02 00:10:00,86400,600,24576.0\n" +
		"dlc2,u2,1,8,64,SFT,FAILED,2023-07-01 01:00:00,2023-07-01 01:00:05,2023-07-01 01:30:05,1800,5,4.0\n" +
		"dlc3,u3,1,0,4,Other,COMPLETED,2023-07-01 02:00:00,2023-07-01 02:00:00,2023-07-01 02:00:10,10,0,0\n"
	tab, err := ParseAcme(strings.NewReader(seren), "trace_seren.csv")
	if err != nil {
		t.Fatal(err)
	}
	if tab.Report.Kept != 2 || tab.Report.Dropped[TraceDropZeroGPUs] != 1 || tab.Jobs[0].GPUs != 1024 || tab.Jobs[0].Nodes != 128 ||
		tab.Jobs[0].Type != "Pretrain" || tab.Jobs[1].Submit != 3600 || tab.Jobs[1].VC != "" {
		t.Errorf("seren %+v", tab)
	}
	kalos := strings.Join(append(AcmeColumns(), KalosColumns()...), ",") + "\n" +
		"k1,u1,2,16,128,Evaluation,CANCELLED,2023-05-01 00:00:00,2023-05-01 00:00:30,2023-05-01 00:05:30,300,30,1.33,512,64,,2023-05-01 00:05:30\n" +
		"k2,u1,1,8,64,MLLM,COMPLETED,2023-05-01 00:01:00,,,,,0,512,64,,\n"
	path := writeTemp(t, "trace_kalos.csv", kalos)
	tab, err = builtinFormats.Read("acme:" + path)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Report.Kept != 1 || tab.Report.Dropped[TraceDropNoRunTime] != 1 || tab.Jobs[0].Duration != 300 || tab.Jobs[0].Status != "CANCELLED" {
		t.Errorf("kalos %+v", tab)
	}
}

// paiJobs and paiTasks are PAI 2020 tables without a header, as the
// published files are, in the published column order; job 3 asks for half
// a GPU per instance, job 4 is a CPU job, job 5 never ran.
const (
	paiJobs = `j1,i1,u1,Terminated,1597500000,1597503600
j2,i2,u2,Failed,1597500100,1597500700
j3,i3,u1,Terminated,1597499000,1597499900
j4,i4,u3,Terminated,1597500200,1597500300
j5,i5,u3,Waiting,1597500300,
`
	paiTasks = `j1,worker,4,Terminated,1597500010,1597503600,600,29.3,100,V100
j1,ps,1,Terminated,1597500005,1597503590,200,10,,
j2,tensorflow,1,Failed,1597500110,1597500700,600,29.3,200,P100
j3,worker,3,Terminated,1597499100,1597499900,400,10,50,T4
j4,worker,2,Terminated,1597500210,1597500300,400,10,0,
j5,worker,1,Waiting,,,600,29.3,100,MISC
`
)

func TestPAIJobsAndTasks(t *testing.T) {
	tab, err := ParsePAI(strings.NewReader(paiJobs), "pai_job_table.csv", strings.NewReader(paiTasks), "pai_task_table.csv")
	if err != nil {
		t.Fatal(err)
	}
	if tab.Report.Rows != 5 || tab.Report.Kept != 3 || tab.Report.Dropped[TraceDropZeroGPUs] != 1 ||
		tab.Report.Dropped[TraceDropNoRunTime] != 1 || tab.Report.Fractional != 1 {
		t.Fatalf("report %+v", tab.Report)
	}
	byID := map[string]TraceJob{}
	for _, j := range tab.Jobs {
		byID[j.ID] = j
	}
	// j1: 4 instances × 1 GPU (the ps task asks none), run 1597500005 → 1597503600.
	// j3: 3 instances × ⌈0.5⌉ = 3 GPUs. Time 0 is j3's submission.
	if j := byID["j1"]; j.GPUs != 4 || j.Duration != 3595 || j.Submit != 1000 || j.GPUType != "V100" || j.Status != "Terminated" || j.User != "u1" {
		t.Errorf("j1 %+v", j)
	}
	if j := byID["j2"]; j.GPUs != 2 || j.Duration != 590 {
		t.Errorf("j2 %+v", j)
	}
	if j := byID["j3"]; j.GPUs != 3 || j.Submit != 0 || j.GPUType != "T4" {
		t.Errorf("j3 %+v", j)
	}
	// With the published headers the same tables read the same.
	withHeader := func(cols []string, body string) string { return strings.Join(cols, ",") + "\n" + body }
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, PAIJobFile), []byte(withHeader(PAIJobColumns(), paiJobs)), 0o644)
	os.WriteFile(filepath.Join(dir, PAITaskFile), []byte(withHeader(PAITaskColumns(), paiTasks)), 0o644)
	tab2, err := builtinFormats.Read("pai:" + dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab2.Jobs) != 3 || tab2.Jobs[0].GPUs != tab.Jobs[0].GPUs || tab2.Jobs[0].Line != tab.Jobs[0].Line+1 {
		t.Errorf("with headers: %+v", tab2.Jobs)
	}
	_, err = ParsePAI(strings.NewReader(paiJobs), "jobs", strings.NewReader("j1,w,1,T,10,5,1,1,100,V100\n"), "tasks")
	wantInputError(t, err, `tasks:1: column "end_time": ends at 5, before its start 10`)
	_, err = ParsePAI(strings.NewReader(paiJobs), "jobs", strings.NewReader("j1,w,x,T,1,5,1,1,100,V100\n"), "tasks")
	wantInputError(t, err, `tasks:1: column "inst_num": "x" is not a whole number`)
	_, err = ParsePAI(strings.NewReader("j1,i\n"), "jobs", strings.NewReader(paiTasks), "tasks")
	wantInputError(t, err, `jobs:1: missing column "job_name"`, "6 published columns")
}

func TestMappedCSV(t *testing.T) {
	m, err := ParseColumnMapping("submit=queued_at,gpus=gpu_req,start=began,end=ended,time=2006-01-02T15:04:05Z07:00,id=name,status=outcome")
	if err != nil {
		t.Fatal(err)
	}
	in := "name,queued_at,gpu_req,began,ended,outcome\n" +
		"a,2024-01-01T00:00:00Z,0.25,2024-01-01T00:00:10Z,2024-01-01T01:00:10Z,ok\n" +
		"b,2024-01-01T02:00:00+01:00,2,2024-01-01T02:00:00+01:00,2024-01-01T02:30:00+01:00,fail\n" +
		"c,2024-01-01T03:00:00Z,0,2024-01-01T03:00:00Z,2024-01-01T03:00:01Z,ok\n" +
		"d,2024-01-01T04:00:00Z,1,,,queued\n"
	tab, err := ParseMappedCSV(strings.NewReader(in), "mine.csv", m)
	if err != nil {
		t.Fatal(err)
	}
	// b's 02:00+01:00 is 01:00 UTC: an hour after a.
	if tab.Report.Kept != 2 || tab.Report.Fractional != 1 || tab.Jobs[0].GPUs != 1 || tab.Jobs[0].Duration != 3600 ||
		tab.Jobs[1].Submit != 3600 || tab.Jobs[1].Duration != 1800 || tab.Jobs[1].Status != "fail" ||
		tab.Report.Dropped[TraceDropZeroGPUs] != 1 || tab.Report.Dropped[TraceDropNoRunTime] != 1 {
		t.Errorf("table %+v", tab)
	}
	// A mapping file names its CSV; seconds are kept as they are.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte("s,g,d\n100,4,60\n50,1,1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "map.json"), []byte(`{"file": "t.csv", "submit": "s", "gpus": "g", "duration": "d", "time_format": "seconds"}`), 0o644)
	tab, err = builtinFormats.Read("csv:" + filepath.Join(dir, "map.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Jobs) != 2 || tab.Jobs[0].Submit != 100 || tab.Jobs[1].Submit != 50 || !tab.Start.IsZero() {
		t.Errorf("seconds table %+v", tab)
	}
	for spec, want := range map[string]string{
		"submit=a,gpus=b":                   "duration column, or start and end",
		"gpus=a,duration=b":                 "submit and gpus columns are required",
		"submit=a,gpus=b,duration=c,x=y":    `"x=y" is not KEY=COLUMN`,
		"submit=a,gpus=b,duration=c,time=Y": `time format "Y"`,
	} {
		if _, err := ParseColumnMapping(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseColumnMapping(%q): %v, want %q", spec, err, want)
		}
	}
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"submit": "s", "gpus": "g", "duration": "d", "colour": 1}`), 0o644)
	_, err = builtinFormats.Read("csv:" + filepath.Join(dir, "bad.json"))
	wantInputError(t, err, `unknown field "colour"`)
	_, err = ParseMappedCSV(strings.NewReader("s,g,d\n1,1.5e30,1\n"), "x.csv", ColumnMapping{Submit: "s", GPUs: "g", Duration: "d", TimeFormat: TimeSeconds})
	wantInputError(t, err, `x.csv:2: column "g": GPU count 1.5e+30 out of range`)
}

// TestPhillyAdapters: the reduced table and the cluster_job_log read as
// trace tables row for row, with the log's drop counts.
func TestPhillyAdapters(t *testing.T) {
	pt, _, err := ParsePhilly(strings.NewReader("timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,2,132.0,vc1\n2017-10-03 00:00:00,10.0,1,10.0,vc2\n"), "p.csv")
	if err != nil {
		t.Fatal(err)
	}
	tab := PhillyTrace(pt)
	if len(tab.Jobs) != 2 || tab.Jobs[0].Submit != 6*86400+7*3600+60+55 || tab.Jobs[1].Submit != 0 || tab.Jobs[0].VC != "vc1" ||
		!tab.Start.Equal(time.Date(2017, 10, 3, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("table %+v", tab)
	}
	log := writeTemp(t, "cluster_job_log", `[
{"jobid": "a", "vc": "v", "status": "Pass", "submitted_time": "2017-10-03 00:00:00", "attempts": [{"start_time": "2017-10-03 00:00:10", "end_time": "2017-10-03 01:00:10", "detail": [{"gpus": ["g0", "g1"]}]}]},
{"jobid": "b", "vc": "v", "status": "Killed", "submitted_time": "2017-10-03 00:00:05", "attempts": [{"start_time": "2017-10-03 00:00:10", "end_time": "2017-10-03 01:00:10", "detail": [{"gpus": []}]}]}
]`)
	tab, err = builtinFormats.Read("philly-log:" + log)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Report.Rows != 2 || tab.Report.Kept != 1 || tab.Report.Dropped[string(DropZeroGPUs)] != 1 || tab.Jobs[0].GPUs != 2 || tab.Jobs[0].Duration != 3600 {
		t.Errorf("log table %+v", tab)
	}
	if _, err := builtinFormats.Read("philly:" + filepath.Join(t.TempDir(), "none.csv")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestTraceFormatRegistry(t *testing.T) {
	r := NewTraceFormats()
	if err := r.Register(TraceFormat{Name: "mine", Usage: "mine:N", Read: func(arg string) (*TraceTable, error) {
		return &TraceTable{Jobs: []TraceJob{{GPUs: 1, Duration: 1}}}, nil
	}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(TraceFormat{Name: "mine", Read: ReadITP}); err == nil {
		t.Error("second registration of a name accepted")
	}
	if err := r.Register(TraceFormat{Name: "Bad Name", Read: ReadITP}); err == nil {
		t.Error("bad name accepted")
	}
	tab, err := r.Read("mine:7")
	if err != nil || tab.Name != "mine:7" || tab.Format != "mine" {
		t.Errorf("read %+v, %v", tab, err)
	}
	if !r.IsTraceName("mine:x") || r.IsTraceName("itp:cluster01") || r.IsTraceName("file.csv") {
		t.Error("IsTraceName")
	}
	for ref, want := range map[string]string{"mine:": "no argument (want mine:N)", "nope:1": `unknown trace format "nope" (known: mine)`, "x.csv": "not a trace name"} {
		if _, err := r.Read(ref); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Read(%q): %v, want %q", ref, err, want)
		}
	}
	want := "acme csv helios itp pai philly philly-log"
	if got := strings.Join(builtinFormats.Names(), " "); got != want {
		t.Errorf("built-in formats %q, want %q", got, want)
	}
}

// TestOpenTraceByHeader: files and folders of the built-in formats are
// recognised by their headers and layout.
func TestOpenTraceByHeader(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	acme := strings.Join(AcmeColumns(), ",") + "\ndlc2,u2,1,8,64,SFT,FAILED,2023-07-01 01:00:00,2023-07-01 01:00:05,2023-07-01 01:30:05,1800,5,4.0\n"
	for path, format := range map[string]string{
		write("itp.csv", "job_id,submission_time,duration,num_gpu\na,1,2,1\n"):                                      "itp",
		write("philly.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,2,132.0,vc1\n"): "philly",
		write("cluster_log.csv", heliosCSV):                                                                         "helios",
		write("seren.csv", acme):                                                                                    "acme",
		write("log.json", `[{"jobid": "a", "submitted_time": "2017-10-03 00:00:00", "attempts": [{"start_time": "2017-10-03 00:00:10", "end_time": "2017-10-03 01:00:10", "detail": [{"gpus": ["g0"]}]}]}]`): "philly-log",
		dir:             "helios",
		"itp:cluster10": "itp",
	} {
		tab, err := builtinFormats.Open(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if tab.Format != format || tab.Name != path || len(tab.Jobs) == 0 {
			t.Errorf("%s: format %q, name %q, %d jobs; want %s", path, tab.Format, tab.Name, len(tab.Jobs), format)
		}
	}
	if tab, err := builtinFormats.Read("itp:" + filepath.Join(dir, "itp.csv")); err != nil || len(tab.Jobs) != 1 || tab.Format != "itp" {
		t.Errorf("itp:FILE: %+v, %v", tab, err)
	}
	pai := t.TempDir()
	os.WriteFile(filepath.Join(pai, PAIJobFile), []byte(paiJobs), 0o644)
	os.WriteFile(filepath.Join(pai, PAITaskFile), []byte(paiTasks), 0o644)
	if tab, err := builtinFormats.Open(pai); err != nil || tab.Format != "pai" || len(tab.Jobs) != 3 {
		t.Errorf("PAI folder: %+v, %v", tab, err)
	}
	_, err := builtinFormats.Open(write("other.csv", "a,b,c\n1,2,3\n"))
	wantInputError(t, err, "other.csv:1: not a trace of a known format", "csv:MAPPING.json")
	_, err = builtinFormats.Open(t.TempDir())
	wantInputError(t, err, "a folder of no known trace")
}

// TestPAIOffsetTimes: PAI-style seconds that are not dates are shifted to
// the earliest submission without a calendar start.
func TestPAIOffsetTimes(t *testing.T) {
	tab, err := ParsePAI(strings.NewReader("j1,i,u,Terminated,5000.5,9000\nj2,i,u,Terminated,4000.5,9000\n"), "jobs",
		strings.NewReader("j1,w,1,Terminated,5100,6100,1,1,100,T4\nj2,w,2,Terminated,4100,4200,1,1,100,T4\n"), "tasks")
	if err != nil {
		t.Fatal(err)
	}
	if !tab.Start.IsZero() || tab.Jobs[0].Submit != 1000 || tab.Jobs[1].Submit != 0 || tab.Jobs[1].GPUs != 2 {
		t.Errorf("start %v, jobs %+v", tab.Start, tab.Jobs)
	}
}
