package traces

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// checkTraceTable is what every trace reader promises of a table it
// accepts: the report adds up, every job is a whole GPU job with finite
// non-negative times, and the table can be summarised (to JSON without
// NaN or Inf) and sampled.
func checkTraceTable(t *testing.T, tab *TraceTable) {
	t.Helper()
	dropped := 0
	for _, n := range tab.Report.Dropped {
		dropped += n
	}
	if tab.Report.Kept != len(tab.Jobs) || tab.Report.Rows != tab.Report.Kept+dropped || len(tab.Jobs) == 0 {
		t.Fatalf("report %+v does not add up to %d jobs", tab.Report, len(tab.Jobs))
	}
	for _, j := range tab.Jobs {
		if j.GPUs < 1 || !(j.Duration >= 0) || !(j.Submit >= 0) || math.IsInf(j.Duration, 0) || math.IsInf(j.Submit, 0) || j.Line < 1 {
			t.Fatalf("job %+v", j)
		}
	}
	s, err := SummarizeTrace(tab, 4)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.WriteJSON(&buf); err != nil {
		t.Fatalf("summary JSON: %v", err)
	}
	if err := s.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	w, _, err := SampleTrace(tab, TraceSampleOptions{All: true, Apps: formatApps(), Config: ConfigRealistic, Filter: KeepAllFilter(), MaxGPUs: 64})
	if err != nil {
		t.Fatalf("sampling the whole table: %v", err)
	}
	if err := Validate(w, nil, 64); err != nil {
		t.Fatalf("sampled workload: %v", err)
	}
}

// fuzzTrace runs a reader on arbitrary input: no panic, and an accepted
// table keeps checkTraceTable's promises.
func fuzzTrace(f *testing.F, seeds []string, parse func(string) (*TraceTable, error)) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		tab, err := parse(in)
		if err != nil {
			if tab != nil {
				t.Fatal("table returned with an error")
			}
			return
		}
		checkTraceTable(t, tab)
	})
}

func FuzzParseITP(f *testing.F) {
	fuzzTrace(f, []string{
		"job_id,submission_time,duration,num_gpu\n965d744f-0445-c1a8-12af-97e4c536c66e,1932025,2429,64\n",
		"job_id,submission_time,duration,num_gpu\na,1,2,0\nb,1e300,1,1\n",
		"num_gpu,duration,submission_time,job_id\r\n1,1,1,\"x,y\"\r\n",
		"",
	}, func(in string) (*TraceTable, error) { return ParseITP(strings.NewReader(in), "fuzz.csv") })
}

func FuzzParseHelios(f *testing.F) {
	fuzzTrace(f, []string{heliosCSV, strings.Join(HeliosColumns(), ",") + "\n1,u,v,1,1,1,X,2020-02-29 23:59:59.5+08:00,,,,\n"},
		func(in string) (*TraceTable, error) { return ParseHelios(strings.NewReader(in), "cluster_log.csv") })
}

func FuzzParseAcme(f *testing.F) {
	fuzzTrace(f, []string{strings.Join(AcmeColumns(), ",") + "\ndlc1,u1,128,1024,8192,Pretrain,COMPLETED,2023-07-01 00:00:00,2023-07-01 00:10:00,2023-07-02 00:10:00,86400,600,24576.0\n"},
		func(in string) (*TraceTable, error) { return ParseAcme(strings.NewReader(in), "trace_seren.csv") })
}

// FuzzParsePAI splits the input at the first "|" into the job and the
// task table.
func FuzzParsePAI(f *testing.F) {
	fuzzTrace(f, []string{paiJobs + "|" + paiTasks, "j,i,u,s,1,2|j,t,1,s,1,2,1,1,50,V100\n"}, func(in string) (*TraceTable, error) {
		jobs, tasks, _ := strings.Cut(in, "|")
		return ParsePAI(strings.NewReader(jobs), "jobs", strings.NewReader(tasks), "tasks")
	})
}

// FuzzParseMappedCSV takes the mapping from the first line of the input.
func FuzzParseMappedCSV(f *testing.F) {
	fuzzTrace(f, []string{
		"submit=s,gpus=g,duration=d,time=seconds\ns,g,d\n1,0.5,3\n2,2,1\n",
		"submit=s,gpus=g,start=a,end=b,time=unix-ms\ns,g,a,b\n1000,1,1000,5000\n",
		"submit=s,gpus=g,duration=d\ns,g,d\n2024-01-01 00:00:00,1,1\n",
	}, func(in string) (*TraceTable, error) {
		spec, body, _ := strings.Cut(in, "\n")
		m, err := ParseColumnMapping(spec)
		if err != nil {
			return nil, err
		}
		return ParseMappedCSV(strings.NewReader(body), "fuzz.csv", m)
	})
}

func FuzzParseHeliosGPUs(f *testing.F) {
	for _, s := range []string{"date,a,b\nd,1,2\n", "date,vc,gpu_num\nd,a,8\n", "x\n1\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ParseHeliosGPUs(strings.NewReader(in), "g.csv")
		if err == nil && (c.Days < 1 || c.MaxTotal < 0) {
			t.Fatalf("capacity %+v", c)
		}
	})
}
